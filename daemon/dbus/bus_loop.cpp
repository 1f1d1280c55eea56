// SPDX-License-Identifier: Apache-2.0
// The bus thread: poll the connection's fd and the wake-up eventfd, dispatch, run posted work.
#include "daemon/dbus/bus_loop.hpp"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

#include "daemon/dbus/sdbus_compat.hpp"

namespace roced::dbus {

BusLoop::BusLoop(sdbus::IConnection& connection) : connection_(connection) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

BusLoop::~BusLoop() {
  stop();
  ::close(wake_fd_);
}

void BusLoop::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void BusLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  const uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(wake_fd_, &one, sizeof(one));
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  stopped_ = true;
  tasks_.clear();
}

void BusLoop::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    tasks_.push_back(std::move(task));
  }
  const uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(wake_fd_, &one, sizeof(one));
}

bool BusLoop::run_posted() {
  std::deque<std::function<void()>> batch;
  bool stopping = false;
  {
    std::lock_guard lock(mutex_);
    batch.swap(tasks_);
    stopping = stopping_;
  }
  for (auto& task : batch) {
    try {
      task();
    } catch (const std::exception& e) {
      spdlog::warn("D-Bus: {}", e.what());
    }
  }
  return !(stopping && batch.empty());
}

void BusLoop::run() {
  try {
    for (;;) {
      while (process_pending(connection_)) {
      }
      if (!run_posted()) break;
      // What the posted work sent is queued in sd-bus; the loop's next pass writes it out.
      while (process_pending(connection_)) {
      }
      const auto poll_data = connection_.getEventLoopPollData();
      pollfd fds[3] = {{poll_data.fd, poll_data.events, 0},
                       {wake_fd_, POLLIN, 0},
                       {wake_fd(poll_data), POLLIN, 0}};  // processing clears it
      if (::poll(fds, 3, poll_data.getPollTimeout()) < 0 && errno != EINTR) {
        throw std::system_error(errno, std::generic_category(), "poll");
      }
      if (fds[1].revents & POLLIN) {
        uint64_t count = 0;
        [[maybe_unused]] const auto got = ::read(wake_fd_, &count, sizeof(count));
      }
    }
  } catch (const std::exception& e) {
    // The bus went away (dbus-daemon restarted): the reconciler carries on without the API.
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
      tasks_.clear();
    }
    spdlog::error("D-Bus: the bus connection failed: {}", e.what());
    if (on_lost_) on_lost_(e.what());
    return;
  }
  std::lock_guard lock(mutex_);
  stopped_ = true;
  tasks_.clear();
}

}  // namespace roced::dbus
