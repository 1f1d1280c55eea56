// SPDX-License-Identifier: Apache-2.0
#include "daemon/service/signals.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace roced::service {

SignalFd::SignalFd(std::initializer_list<int> signals) {
  sigset_t mask;
  sigemptyset(&mask);
  for (int signal : signals) sigaddset(&mask, signal);
  if (const int error = pthread_sigmask(SIG_BLOCK, &mask, nullptr); error != 0) {
    throw std::runtime_error(std::string("pthread_sigmask: ") + std::strerror(error));
  }
  fd_ = ::signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd_ < 0) throw std::runtime_error(std::string("signalfd: ") + std::strerror(errno));
}

SignalFd::~SignalFd() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<int> SignalFd::take() {
  signalfd_siginfo info{};
  for (;;) {
    const ssize_t got = ::read(fd_, &info, sizeof(info));
    if (got == static_cast<ssize_t>(sizeof(info))) return static_cast<int>(info.ssi_signo);
    if (got < 0 && errno == EINTR) continue;
    return std::nullopt;  // EAGAIN: nothing pending
  }
}

}  // namespace roced::service
