// SPDX-License-Identifier: Apache-2.0
#include "os/node_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string_view>

namespace roced {

namespace {

// "pid 1234\nbus yes\n", as take() writes it; anything else reads as an unknown holder.
LockHolder parse_holder(std::string_view text) {
  LockHolder holder;
  constexpr std::string_view kPid = "pid ";
  if (text.substr(0, kPid.size()) == kPid) {
    const char* begin = text.data() + kPid.size();
    std::from_chars(begin, text.data() + text.size(), holder.pid);
  }
  holder.on_bus = text.find("\nbus yes\n") != std::string_view::npos;
  return holder;
}

std::string read_all(int fd) {
  std::string text;
  char buffer[128];
  off_t offset = 0;
  for (ssize_t got; (got = ::pread(fd, buffer, sizeof buffer, offset)) > 0; offset += got) {
    text.append(buffer, static_cast<size_t>(got));
    if (text.size() > 4096) break;  // not ours
  }
  return text;
}

}  // namespace

std::filesystem::path node_lock_path(const std::optional<std::string>& sim_dir) {
  const std::filesystem::path real = "/run/roced/roced.lock";
  if (!sim_dir) return real;
  return std::filesystem::path(*sim_dir) / real.relative_path();
}

Result<NodeLock> NodeLock::take(const std::filesystem::path& path, bool on_bus) {
  std::error_code ignored;
  std::filesystem::create_directories(path.parent_path(), ignored);  // open() says what failed
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (fd.get() < 0) return Error::from_errno(errno, "open " + path.string());
  // Readable by everyone whatever the umask (the unit's is 0077): rocectl asks it as any user.
  (void)::fchmod(fd.get(), 0644);
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK) return Error::from_errno(err, "flock " + path.string());
    const LockHolder holder = parse_holder(read_all(fd.get()));
    return Error{EWOULDBLOCK, "another roced (pid " + std::to_string(holder.pid) +
                                  ") already runs for this node: it holds " + path.string()};
  }
  const std::string text =
      "pid " + std::to_string(::getpid()) + "\nbus " + (on_bus ? "yes" : "no") + "\n";
  if (::ftruncate(fd.get(), 0) != 0 ||
      ::pwrite(fd.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    return Error::from_errno(errno, "write " + path.string());
  }
  return NodeLock(std::move(fd));
}

std::optional<LockHolder> lock_holder(const std::filesystem::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) return std::nullopt;
  // A shared lock is refused only while someone holds the exclusive one; ours goes with the fd.
  if (::flock(fd.get(), LOCK_SH | LOCK_NB) == 0) return std::nullopt;
  if (errno != EWOULDBLOCK) return std::nullopt;
  return parse_holder(read_all(fd.get()));
}

}  // namespace roced
