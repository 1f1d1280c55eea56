// SPDX-License-Identifier: Apache-2.0
#pragma once
// SIGHUP, SIGTERM and SIGINT as readable events (signalfd), for the service's poll loop.
// The signals are blocked in the constructing thread, so construct it before any other thread
// starts: threads inherit the mask, and a signal left unblocked in one would kill the process
// or be lost to the fd.

#include <initializer_list>
#include <optional>

namespace roced::service {

class SignalFd {
 public:
  explicit SignalFd(std::initializer_list<int> signals);
  ~SignalFd();
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;

  int fd() const { return fd_; }
  // The next pending signal's number; nullopt when none is pending.
  std::optional<int> take();

 private:
  int fd_ = -1;
};

}  // namespace roced::service
