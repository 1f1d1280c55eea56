// SPDX-License-Identifier: Apache-2.0
#include "daemon/health/reporter_watch.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "daemon/log/log.hpp"

namespace roced::health {

namespace {

constexpr std::chrono::seconds kHoldOff{1};

}  // namespace

ReporterWatch::ReporterWatch(const System& system, TimeSource& time, Changed changed)
    : events_(system), time_(time), changed_(std::move(changed)) {
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (auto joined = events_.open(); !joined) {
    spdlog::info("health: devlink notifications not heard ({}); reporters are read every interval",
                 joined.error().message);
    return;
  }
  if (stop_fd_ < 0) {
    spdlog::warn("health: no eventfd ({}); devlink notifications not heard", std::strerror(errno));
    events_.close();
    return;
  }
  thread_ = time_.start_thread([this] { run(); });
}

ReporterWatch::~ReporterWatch() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t put = ::write(stop_fd_, &one, sizeof one);
    thread_.join();
  }
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void ReporterWatch::run() {
  while (events_.fd() >= 0) {
    std::array<pollfd, 2> fds = {pollfd{stop_fd_, POLLIN, 0}, pollfd{events_.fd(), POLLIN, 0}};
    if (time_.poll_until(fds, TimeSource::TimePoint::max()) < 0 && errno != EINTR) {
      spdlog::warn("health: devlink notifications no longer heard: poll: {}", std::strerror(errno));
      return;
    }
    if ((fds[0].revents & POLLIN) != 0) return;
    const auto events = events_.drain();
    for (const HealthReporterEvent& event : events) changed_(event);
    if (events_.lost()) {
      spdlog::warn("health: devlink notifications were lost; reading every reporter now");
      changed_(HealthReporterEvent{});
      if (auto joined = events_.open(); !joined) {
        spdlog::warn("health: devlink notifications no longer heard: {}", joined.error().message);
        return;  // the interval's readings stand
      }
    } else if (events.empty()) {
      continue;
    }
    // A reporter in an error loop reports many times a second: what comes within the hold-off
    // waits in the socket and is read as one.
    std::array<pollfd, 1> stop = {pollfd{stop_fd_, POLLIN, 0}};
    if (time_.poll_until(stop, time_.now() + kHoldOff) > 0) return;
  }
}

}  // namespace roced::health
