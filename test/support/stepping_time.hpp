// SPDX-License-Identifier: Apache-2.0
#pragma once
// A clock for a test whose code under test runs in the test's own thread (the applier): a sleep
// or timed wait on it moves the SimulatedTime on to its deadline, and with it the in-process
// node (links that train, the scenario), as if the wait had passed. Nothing waits for real.
#include <poll.h>

#include "sim/inprocess/simulated_time.hpp"
#include "util/time_source.hpp"

namespace roced::test {

class SteppingTime final : public TimeSource {
 public:
  explicit SteppingTime(roce_sim::SimulatedTime& time) : time_(time) {}

  TimePoint now() const override { return time_.now(); }
  WallTime wall_now() const override { return time_.wall_now(); }
  std::chrono::nanoseconds thread_cpu_time() const override { return time_.thread_cpu_time(); }
  bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                  TimePoint deadline, const std::function<bool()>& ready) override {
    (void)wake;
    if (ready()) return true;
    lock.unlock();
    sleep_until(deadline);
    lock.lock();
    return ready();
  }
  void wait(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
            const std::function<bool()>& ready) override {
    wake.wait(lock, ready);  // nothing in this thread can make it ready: another thread must
  }
  void sleep_until(TimePoint deadline) override {
    if (deadline > time_.now()) time_.advance(deadline - time_.now());
  }
  int poll_until(std::span<pollfd> fds, TimePoint deadline) override {
    const int ready = ::poll(fds.data(), fds.size(), 0);
    if (ready != 0) return ready;
    sleep_until(deadline);
    return 0;
  }

 private:
  roce_sim::SimulatedTime& time_;
};

}  // namespace roced::test
