// SPDX-License-Identifier: Apache-2.0
#pragma once
// SIGINT and SIGTERM raise a StopSignal instead of ending the process, for the commands that run
// until told to stop and must finish something first (qualify --write puts the port back;
// nccl-env --every ends its wait). The signals are blocked in every thread; one thread waits for
// them. This also makes SIGTERM stop the command as PID 1 of a container, where a signal with
// no handler is ignored.
#include <signal.h>

#include <atomic>
#include <iostream>
#include <string>
#include <thread>

#include "util/stop_signal.hpp"

namespace roced::cli {

class SignalsToStop {
 public:
  // `message` goes to stderr when a signal comes.
  SignalsToStop(StopSignal& stop, std::string message) : message_(std::move(message)) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    waiter_ = std::thread([this, &stop] {
      const timespec tick{0, 100 * 1000 * 1000};
      while (!done_) {
        if (sigtimedwait(&set_, nullptr, &tick) > 0) {
          std::cerr << "rocectl: " << message_ << "\n";
          stop.raise();
        }
      }
    });
  }
  ~SignalsToStop() {
    done_ = true;
    waiter_.join();
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SignalsToStop(const SignalsToStop&) = delete;
  SignalsToStop& operator=(const SignalsToStop&) = delete;

 private:
  const std::string message_;
  sigset_t set_{};
  sigset_t old_{};
  std::atomic<bool> done_{false};
  std::thread waiter_;
};

}  // namespace roced::cli
