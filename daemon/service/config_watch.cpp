// SPDX-License-Identifier: Apache-2.0
#include "daemon/service/config_watch.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <utility>

namespace roced::service {

namespace fs = std::filesystem;

namespace {

// A file written in place counts once it is closed; every other way of replacing it ends in a
// name appearing or going in the directory.
constexpr uint32_t kEvents =
    IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB;

}  // namespace

Result<ConfigWatch> ConfigWatch::open(const fs::path& config_path) {
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return Error::from_errno(errno, "inotify_init1");
  std::error_code ec;
  ConfigWatch watch(fd, fs::absolute(config_path, ec));
  if (::inotify_add_watch(fd, watch.path_.parent_path().c_str(), kEvents) < 0) {
    return Error::from_errno(errno, "inotify_add_watch " + watch.path_.parent_path().string());
  }
  watch.watch_directories();
  watch.content_ = watch.read_content();
  return watch;
}

ConfigWatch::ConfigWatch(int fd, fs::path path) : fd_(fd), path_(std::move(path)) {}

ConfigWatch::ConfigWatch(ConfigWatch&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      content_(std::move(other.content_)) {}

ConfigWatch::~ConfigWatch() {
  if (fd_ >= 0) ::close(fd_);
}

void ConfigWatch::watch_directories() {
  // The target's directory too: a ConfigMap's file is a symlink into a "..<timestamp>" directory
  // that the next update replaces, so it is looked up again after every event. A directory
  // already watched keeps its watch; a removed one drops its own.
  std::error_code ec;
  const fs::path target = fs::canonical(path_, ec);
  if (!ec && target.parent_path() != path_.parent_path()) {
    (void)::inotify_add_watch(fd_, target.parent_path().c_str(), kEvents);
  }
}

std::optional<std::string> ConfigWatch::read_content() const {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool ConfigWatch::changed() {
  alignas(inotify_event) std::array<char, 4096> events{};
  while (::read(fd_, events.data(), events.size()) > 0) {
  }
  watch_directories();
  auto now = read_content();
  // A file that is gone for a moment (between an unlink and a rename) is not a change: the
  // rename's own event comes next.
  if (!now || now == content_) return false;
  content_ = std::move(now);
  return true;
}

}  // namespace roced::service
