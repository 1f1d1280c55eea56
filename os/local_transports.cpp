// SPDX-License-Identifier: Apache-2.0
#include "os/local_transports.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace roced {

std::string ethtool_call_context(std::string_view ifname, std::span<const uint8_t> buffer) {
  uint32_t cmd = 0;
  if (buffer.size() >= sizeof(cmd)) std::memcpy(&cmd, buffer.data(), sizeof(cmd));
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%x", cmd);
  return std::string(ifname) + ": ethtool command " + hex;
}

// ---- ethtool ioctl, any ----

void EthtoolIoctl::call_batch(std::span<EthtoolCall> calls) {
  for (EthtoolCall& one : calls) {
    one.issued = std::chrono::steady_clock::now();
    one.result = call(std::string(one.ifname), one.buffer, one.in_len);
    one.answered = std::chrono::steady_clock::now();
  }
}

// ---- ethtool ioctl, kernel ----

Result<void> KernelEthtoolIoctl::call(const std::string& ifname, std::span<uint8_t> buffer,
                                      size_t /*in_len: the kernel reads what it needs*/) {
  if (ifname.size() >= IFNAMSIZ) return Error{EINVAL, ifname + ": interface name too long"};
  std::lock_guard lock(mutex_);
  if (!fd_.valid()) {
    fd_.reset(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd_.valid()) return Error::from_errno(errno, "ethtool: socket");
  }
  ifreq request{};
  std::memcpy(request.ifr_name, ifname.c_str(), ifname.size() + 1);
  request.ifr_data = reinterpret_cast<char*>(buffer.data());
  if (::ioctl(fd_.get(), SIOCETHTOOL, &request) < 0) {
    return Error::from_errno(errno, ethtool_call_context(ifname, buffer));
  }
  return ok();
}

// ---- files ----

// The kernel's own paths: nothing to map.
std::filesystem::path LocalFileTree::resolve(const std::filesystem::path& real_path) const {
  return real_path;
}

namespace {

// The whole file: sysfs hands an attribute over in one read, the second read sees its end.
Result<std::string> read_all(int fd, const std::filesystem::path& real_path) {
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno(errno, "read " + real_path.string());
    }
    if (got == 0) break;
    text.append(chunk, static_cast<size_t>(got));
  }
  return text;
}

}  // namespace

Result<std::string> LocalFileTree::read(const std::filesystem::path& real_path) const {
  UniqueFd fd(::open(resolve(real_path).c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno(errno, "read " + real_path.string());
  return read_all(fd.get(), real_path);
}

std::vector<Result<std::string>> LocalFileTree::read_each(
    const std::filesystem::path& real_dir, const std::vector<std::string>& names) const {
  UniqueFd dir(::open(resolve(real_dir).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return FileTree::read_each(real_dir, names);  // each with its own error
  std::vector<Result<std::string>> texts;
  texts.reserve(names.size());
  for (const auto& name : names) {
    if (name.empty() || name.find('/') != std::string::npos) {
      texts.push_back(read(real_dir / name));
      continue;
    }
    UniqueFd fd(::openat(dir.get(), name.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
      texts.push_back(Error::from_errno(errno, "read " + (real_dir / name).string()));
      continue;
    }
    // An attribute comes whole in the first read (seq_read_iter copies all that show() wrote, at
    // most a page): a short read is its end, and saves the read that would return 0.
    char chunk[4096];
    ssize_t got = -1;
    do {
      got = ::read(fd.get(), chunk, sizeof(chunk));
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
      texts.push_back(Error::from_errno(errno, "read " + (real_dir / name).string()));
    } else if (static_cast<size_t>(got) < sizeof(chunk)) {
      texts.push_back(std::string(chunk, static_cast<size_t>(got)));
    } else {
      auto rest = read_all(fd.get(), real_dir / name);
      texts.push_back(rest ? Result<std::string>(std::string(chunk, sizeof(chunk)) + *rest) : rest);
    }
  }
  return texts;
}

// Like echo > attribute: no O_CREAT (a missing sysfs attribute is ENOENT), one write() so the
// kernel's store() sees the whole value and its error comes back.
Result<void> LocalFileTree::write(const std::filesystem::path& real_path, const std::string& text) {
  const std::string context = "write " + real_path.string();
  UniqueFd fd(::open(resolve(real_path).c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno(errno, context);
  ssize_t written = 0;
  do {
    written = ::write(fd.get(), text.data(), text.size());
  } while (written < 0 && errno == EINTR);
  if (written < 0) return Error::from_errno(errno, context);
  if (static_cast<size_t>(written) != text.size()) return Error{EIO, context + ": short write"};
  return ok();
}

Result<std::vector<std::string>> LocalFileTree::list(const std::filesystem::path& real_path) const {
  const std::string context = "list " + real_path.string();
  DIR* dir = ::opendir(resolve(real_path).c_str());
  if (dir == nullptr) return Error::from_errno(errno, context);
  std::unique_ptr<DIR, int (*)(DIR*)> closer(dir, &::closedir);
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
    errno = 0;
  }
  if (errno != 0) return Error::from_errno(errno, context);
  std::sort(names.begin(), names.end());
  return names;
}

bool LocalFileTree::exists(const std::filesystem::path& real_path) const {
  struct stat info {};
  return ::lstat(resolve(real_path).c_str(), &info) == 0;
}

Result<void> LocalFileTree::make_dir(const std::filesystem::path& real_path) {
  if (::mkdir(resolve(real_path).c_str(), 0755) < 0) {
    return Error::from_errno(errno, "mkdir " + real_path.string());
  }
  return ok();
}

Result<std::filesystem::path> LocalFileTree::read_link(
    const std::filesystem::path& real_path) const {
  std::vector<char> target(256);
  for (;;) {
    const ssize_t got = ::readlink(resolve(real_path).c_str(), target.data(), target.size());
    if (got < 0) return Error::from_errno(errno, "readlink " + real_path.string());
    if (static_cast<size_t>(got) < target.size()) {
      return std::filesystem::path(std::string(target.data(), static_cast<size_t>(got)));
    }
    target.resize(target.size() * 2);
  }
}

}  // namespace roced
