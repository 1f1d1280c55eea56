// SPDX-License-Identifier: Apache-2.0
#pragma once
// A clock that moves only when the test says so (advance), for roced's loops and the in-process
// node: a wait ends when what it waits for is ready or when advance() has carried the clock past
// its deadline, whatever the real time. Threads keep running on their own; only their timers are
// the test's. Listeners see every step, so a scenario plays in step with the daemon's clock.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>

#include "util/time_source.hpp"

namespace roce_sim {

class SimulatedTime final : public roced::TimeSource {
 public:
  using Listener = std::function<void(std::chrono::nanoseconds step)>;

  // Starts at the real clocks' readings, so times look like the process's own.
  SimulatedTime();

  TimePoint now() const override;
  WallTime wall_now() const override;
  bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                  TimePoint deadline, const std::function<bool()>& ready) override;
  void sleep_until(TimePoint deadline) override;
  int poll_until(std::span<pollfd> fds, TimePoint deadline) override;

  // Moves the clock on by `step`; listeners run (in the caller's thread, in the order added),
  // then every wait whose deadline has come is woken.
  void advance(std::chrono::nanoseconds step);
  // Moves the clock on by `step` at a time, giving the other threads a millisecond of real time
  // after each step, until `done()`; gives up (false) after `patience` of real time, which only a
  // hang can exhaust. The clock runs ahead of a slow machine, never behind it: a test using this
  // asserts what happens and in which order, not how soon.
  bool advance_until(const std::function<bool()>& done, std::chrono::nanoseconds step,
                     std::chrono::milliseconds patience = std::chrono::seconds(60));

  int listen(Listener listener);  // an id for unlisten
  void unlisten(int id);

 private:
  mutable std::mutex mutex_;  // the clock and the waits; never held while a listener runs
  std::condition_variable sleepers_;
  std::chrono::nanoseconds elapsed_{0};
  const TimePoint start_;
  const WallTime wall_start_;
  std::set<std::condition_variable*> waits_;

  std::mutex listeners_mutex_;  // one advance at a time, and the listeners
  std::map<int, Listener> listeners_;
  int next_listener_ = 1;
};

}  // namespace roce_sim
