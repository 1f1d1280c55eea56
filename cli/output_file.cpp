// SPDX-License-Identifier: Apache-2.0
#include "cli/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace roced::cli {
namespace {

std::optional<std::string> read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

// NAME -> VALUE of the lines "NAME=VALUE" and "export NAME=VALUE"; other lines are left out.
std::map<std::string, std::string> variables_of(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("export ", 0) == 0) line.erase(0, 7);
    const size_t equals = line.find('=');
    if (equals == 0 || equals == std::string::npos) continue;
    const std::string name = line.substr(0, equals);
    const bool is_name = name.find_first_not_of(
                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
    if (is_name) out[name] = line.substr(equals + 1);
  }
  return out;
}

}  // namespace

Result<Written> write_if_changed(const std::string& path, const std::string& text) {
  if (const auto current = read_whole(path); current && *current == text) {
    return Written::Unchanged;
  }
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  // Hidden, and named after the file: a reader that lists the directory skips it, and one left
  // by a crash says whose it is.
  std::string name = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return Error::from_errno(errno, "cannot create a temporary file in " + dir.string());
  auto fail = [&](const std::string& what) -> Error {
    const int err = errno;
    ::close(fd);
    ::unlink(name.c_str());
    return Error::from_errno(err, what + " " + name);
  };
  // mkostemp makes it 0600; fchmod is not masked by the umask.
  if (::fchmod(fd, 0644) != 0) return fail("cannot chmod");
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("cannot write");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("cannot sync");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(name.c_str());
    return Error::from_errno(err, "cannot write " + name);
  }
  if (::rename(name.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(name.c_str());
    return Error::from_errno(err, "cannot rename " + name + " to " + path);
  }
  return Written::Changed;
}

std::string describe_change(const std::string& before, const std::string& after) {
  const auto old_values = variables_of(before);
  const auto new_values = variables_of(after);
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  for (const auto& [name, value] : new_values) {
    const auto old = old_values.find(name);
    if (old == old_values.end()) {
      add(name + " " + value + " (new)");
    } else if (old->second != value) {
      add(name + " " + old->second + " -> " + value);
    }
  }
  for (const auto& [name, value] : old_values) {
    if (new_values.count(name) == 0) add(name + " (gone)");
  }
  return out.empty() ? "content changed" : out;
}

void keep_written(TimeSource& time, const StopSignal& stop, std::chrono::nanoseconds every,
                  const std::string& path, const std::function<Rendering()>& render,
                  std::ostream& log) {
  bool first = true;
  std::string last_error;
  auto failed = [&](const std::string& error) {
    if (error != last_error) log << "rocectl: " << path << " left as it is: " << error << "\n";
    last_error = error;
  };
  auto next = time.now();
  for (;;) {
    const Rendering rendering = render();
    if (!rendering.text) {
      failed(rendering.error);
    } else {
      const auto before = read_whole(path);
      const auto written = write_if_changed(path, *rendering.text);
      if (!written) {
        failed(written.error().message);
      } else if (*written == Written::Changed) {
        log << "rocectl: " << path << (before ? " changed: " : " written: ")
            << describe_change(before.value_or(""), *rendering.text) << "\n";
        last_error.clear();
      } else {
        if (first || !last_error.empty()) log << "rocectl: " << path << " is up to date\n";
        last_error.clear();
      }
    }
    first = false;
    next += every;
    if (next < time.now()) next = time.now();  // a run longer than the interval: no catching up
    if (!stop.pause_until(time, next)) return;
  }
}

}  // namespace roced::cli
