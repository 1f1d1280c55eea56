// SPDX-License-Identifier: Apache-2.0
#pragma once
// A probe transport that is polled only after one of its fds was seen readable. An empty poll of
// a verbs transport still costs system calls (the event channels' reads; rxe's notify request is
// one more), and the probe loop wakes for every probe due, a thousand times a second and more at
// 16 ports: the loop opens the gate from poll(2)'s answer instead. A transport without fds (the
// tests' fabric) is polled every time.
#include <poll.h>

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "probe/transport.hpp"

namespace roced::probe_module {

class ReadyGate final : public probe::ProbeTransport {
 public:
  explicit ReadyGate(std::unique_ptr<probe::ProbeTransport> inner)
      : inner_(std::move(inner)), fds_(inner_->fds()) {}

  Result<void> post(const probe::Remote& to, const probe::MessageBytes& message,
                    uint32_t flow_label, uint64_t wr) override {
    return inner_->post(to, message, flow_label, wr);
  }
  void poll(std::vector<probe::Completion>& out) override {
    if (!ready_ && !fds_.empty()) return;
    ready_ = false;
    inner_->poll(out);
  }
  std::vector<int> fds() const override { return fds_; }
  bool device_timestamps() const override { return inner_->device_timestamps(); }

  void open() { ready_ = true; }
  // Opens the gate when poll(2) saw any of this transport's fds ready (or in error).
  void open_if_ready(std::span<const pollfd> polled) {
    for (const pollfd& entry : polled) {
      if (entry.revents != 0 && std::find(fds_.begin(), fds_.end(), entry.fd) != fds_.end()) {
        ready_ = true;
        return;
      }
    }
  }

 private:
  std::unique_ptr<probe::ProbeTransport> inner_;
  std::vector<int> fds_;  // a transport's fds are its channels': fixed for its life
  bool ready_ = true;     // the first turn polls
};

}  // namespace roced::probe_module
