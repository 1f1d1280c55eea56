// SPDX-License-Identifier: Apache-2.0
#include "fuzz/support/memory_file_tree.hpp"

#include <cerrno>
#include <charconv>
#include <vector>

namespace roced::fuzz {

namespace fs = std::filesystem;

namespace {

// "/a/./b//c/../d/" -> "/a/b/d", with plain string work (std::filesystem's is the fuzz loop's
// bottleneck under the sanitizers).
std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const size_t slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  return parts;
}

std::string join(const std::vector<std::string_view>& parts, size_t count) {
  std::string text;
  for (size_t i = 0; i < count; ++i) (text += '/') += parts[i];
  return text.empty() ? "/" : text;
}

std::string normal(std::string_view path) {
  const auto parts = components(path);
  return join(parts, parts.size());
}

bool is_directive(std::string_view line) {
  return line.size() >= 2 && (line[0] == '=' || line[0] == '~' || line[0] == '!') && line[1] == '/';
}

}  // namespace

MemoryFileTree::MemoryFileTree(std::string_view description) {
  entries_["/"] = Entry{};
  std::string file;  // the file whose content lines are being read
  bool in_file = false;
  std::string content;
  auto close_file = [&] {
    if (in_file) add(file, Entry{Entry::Kind::File, content, 0});
    in_file = false;
    content.clear();
  };
  while (!description.empty()) {
    const size_t end = description.find('\n');
    const size_t taken = end == std::string_view::npos ? description.size() : end + 1;
    const std::string_view line = description.substr(0, taken);
    description.remove_prefix(taken);
    if (!is_directive(line)) {
      if (in_file) content += line;
      continue;
    }
    close_file();
    std::string_view body = line.substr(1);
    if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
    if (line[0] == '=') {
      if (body.back() == '/') {
        add(std::string(body), Entry{});
      } else {
        file = body;
        in_file = true;
      }
      continue;
    }
    const size_t space = body.find(' ');
    const std::string path(body.substr(0, space));
    const std::string_view argument =
        space == std::string_view::npos ? std::string_view() : body.substr(space + 1);
    if (line[0] == '~') {
      add(path, Entry{Entry::Kind::Link, std::string(argument), 0});
    } else {
      int error = EIO;
      std::from_chars(argument.data(), argument.data() + argument.size(), error);
      if (error <= 0 || error > 133) error = EIO;
      add(path, Entry{Entry::Kind::Failing, {}, error});
    }
  }
  close_file();
}

void MemoryFileTree::add(const std::string& path, Entry entry) {
  const auto parts = components(path);
  if (parts.empty()) return;
  // Parents become directories (a later directive may not turn one back into a file).
  std::string parent = "/";
  for (size_t depth = 0; depth < parts.size(); ++depth) {
    auto& parent_entry = entries_[parent];
    if (parent_entry.kind != Entry::Kind::Dir) return;
    children_[parent].insert(std::string(parts[depth]));
    parent = join(parts, depth + 1);
  }
  auto [it, inserted] = entries_.emplace(parent, entry);
  if (!inserted && it->second.kind != Entry::Kind::Dir) it->second = std::move(entry);
}

std::string MemoryFileTree::follow(const fs::path& path, bool follow_last) const {
  constexpr int kMaxLinks = 40;  // as the kernel's ELOOP limit
  int links = 0;
  std::string pending = normal(path.native());
  std::vector<std::string_view> parts = components(pending);
  for (size_t depth = 0; depth < parts.size(); ++depth) {
    const std::string prefix = join(parts, depth + 1);
    const auto it = entries_.find(prefix);
    if (it == entries_.end()) return {};
    const bool last = depth + 1 == parts.size();
    if (it->second.kind != Entry::Kind::Link || (last && !follow_last)) continue;
    if (++links > kMaxLinks) return {};
    // Restart from the link's target (relative to the link's directory) and the rest of the path.
    const std::string& target = it->second.content;
    std::string rest =
        !target.empty() && target.front() == '/' ? target : join(parts, depth) + "/" + target;
    for (size_t after = depth + 1; after < parts.size(); ++after) (rest += '/') += parts[after];
    pending = normal(rest);
    parts = components(pending);
    depth = static_cast<size_t>(-1);  // the loop's ++ makes it 0
  }
  return join(parts, parts.size());
}

fs::path MemoryFileTree::resolve(const fs::path& real_path) const { return real_path; }

Result<std::string> MemoryFileTree::read(const fs::path& real_path) const {
  const std::string key = follow(real_path, true);
  const auto it = key.empty() ? entries_.end() : entries_.find(key);
  if (it == entries_.end()) return Error::from_errno(ENOENT, "read " + real_path.string());
  switch (it->second.kind) {
    case Entry::Kind::File:
      return it->second.content;
    case Entry::Kind::Failing:
      return Error::from_errno(it->second.error, "read " + real_path.string());
    default:
      return Error::from_errno(EISDIR, "read " + real_path.string());
  }
}

Result<void> MemoryFileTree::write(const fs::path& real_path, const std::string& text) {
  const std::string key = follow(real_path, true);
  const auto it = key.empty() ? entries_.end() : entries_.find(key);
  if (it == entries_.end() || it->second.kind != Entry::Kind::File) {
    return Error::from_errno(EACCES, "write " + real_path.string());
  }
  it->second.content = text;
  return ok();
}

Result<std::vector<std::string>> MemoryFileTree::list(const fs::path& real_path) const {
  const std::string key = follow(real_path, true);
  const auto it = key.empty() ? entries_.end() : entries_.find(key);
  if (it == entries_.end()) return Error::from_errno(ENOENT, "list " + real_path.string());
  if (it->second.kind != Entry::Kind::Dir) {
    return Error::from_errno(ENOTDIR, "list " + real_path.string());
  }
  const auto names = children_.find(key);
  if (names == children_.end()) return std::vector<std::string>{};
  return std::vector<std::string>(names->second.begin(), names->second.end());
}

bool MemoryFileTree::exists(const fs::path& real_path) const {
  return !follow(real_path, true).empty();
}

Result<void> MemoryFileTree::make_dir(const fs::path& real_path) {
  if (exists(real_path)) return Error::from_errno(EEXIST, "mkdir " + real_path.string());
  add(real_path.string(), Entry{});
  return ok();
}

Result<fs::path> MemoryFileTree::read_link(const fs::path& real_path) const {
  const std::string key = follow(real_path, false);
  const auto it = key.empty() ? entries_.end() : entries_.find(key);
  if (it == entries_.end()) return Error::from_errno(ENOENT, "readlink " + real_path.string());
  if (it->second.kind != Entry::Kind::Link) {
    return Error::from_errno(EINVAL, "readlink " + real_path.string());
  }
  return fs::path(it->second.content);
}

}  // namespace roced::fuzz
