// SPDX-License-Identifier: Apache-2.0
#include "sim/transport/mapped_file_tree.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <utility>

namespace roce_sim {

MappedFileTree::MappedFileTree(std::vector<Mapping> mappings, std::filesystem::path fallback_root)
    : mappings_(std::move(mappings)), fallback_root_(std::move(fallback_root)) {
  for (auto& mapping : mappings_) mapping.real_prefix = mapping.real_prefix.lexically_normal();
  std::sort(mappings_.begin(), mappings_.end(), [](const Mapping& a, const Mapping& b) {
    return a.real_prefix.string().size() > b.real_prefix.string().size();
  });
}

namespace {

// An absolute path without ".", ".." or empty components: its string is already normal, so the
// prefix can be matched as text (std::filesystem's lexical functions cost microseconds a call,
// and a scrape resolves hundreds of counter paths).
bool is_plain_absolute(const std::string& path) {
  if (path.empty() || path.front() != '/') return false;
  if (path.find("//") != std::string::npos || path.find("/./") != std::string::npos ||
      path.find("/../") != std::string::npos) {
    return false;
  }
  return !path.ends_with("/.") && !path.ends_with("/..") &&
         (path.size() == 1 || path.back() != '/');
}

// debugfs_locked_down (fs/debugfs/file.c): a file whose mode has any bit beyond 0444 is refused
// when security_locked_down(LOCKDOWN_DEBUGFS), which the integrity level already includes.
bool locked_down(const MappedFileTree& tree, const std::filesystem::path& real_path) {
  if (real_path.native().rfind("/sys/kernel/debug/", 0) != 0) return false;
  auto level = tree.LocalFileTree::read("/sys/kernel/security/lockdown");
  if (!level || level->find("[none]") != std::string::npos) return false;
  struct stat st {};
  if (::stat(tree.resolve(real_path).c_str(), &st) != 0) return false;  // open's own error
  return (st.st_mode & 07777 & ~0444) != 0;
}

}  // namespace

roced::Result<std::string> MappedFileTree::read(const std::filesystem::path& real_path) const {
  if (locked_down(*this, real_path)) {
    return roced::Error::from_errno(EPERM, "read " + real_path.string());
  }
  return LocalFileTree::read(real_path);
}

std::vector<roced::Result<std::string>> MappedFileTree::read_each(
    const std::filesystem::path& real_dir, const std::vector<std::string>& names) const {
  // debugfs: file by file, each under the lockdown rule.
  if (real_dir.native().rfind("/sys/kernel/debug", 0) == 0) {
    return FileTree::read_each(real_dir, names);
  }
  return LocalFileTree::read_each(real_dir, names);
}

roced::Result<void> MappedFileTree::write(const std::filesystem::path& real_path,
                                          const std::string& text) {
  if (locked_down(*this, real_path)) {
    return roced::Error::from_errno(EPERM, "write " + real_path.string());
  }
  return LocalFileTree::write(real_path, text);
}

std::filesystem::path MappedFileTree::resolve(const std::filesystem::path& real_path) const {
  if (const std::string& text = real_path.native(); is_plain_absolute(text)) {
    for (const auto& mapping : mappings_) {
      const std::string& prefix = mapping.real_prefix.native();
      if (text == prefix) return mapping.target;
      if (text.size() > prefix.size() && text.compare(0, prefix.size(), prefix) == 0 &&
          (text[prefix.size()] == '/' || prefix == "/")) {
        return mapping.target.native() + (prefix == "/" ? text : text.substr(prefix.size()));
      }
    }
    return fallback_root_.native() + text;
  }
  const std::filesystem::path normal = real_path.lexically_normal();
  for (const auto& mapping : mappings_) {
    const std::filesystem::path rest = normal.lexically_relative(mapping.real_prefix);
    if (rest.empty() || *rest.begin() == "..") continue;
    return rest == "." ? mapping.target : mapping.target / rest;
  }
  return fallback_root_ / normal.relative_path();
}

}  // namespace roce_sim
