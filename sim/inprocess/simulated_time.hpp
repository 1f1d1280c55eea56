// SPDX-License-Identifier: Apache-2.0
#pragma once
// A clock that moves only when the test says so (advance), for roced's loops and the in-process
// node, after Envoy's SimulatedTimeSystem: a wait ends when what it waits for is ready or when
// advance() has carried the clock past its deadline, whatever the real time. Threads keep running
// on their own; only their timers are the test's. advance() returns once every thread whose timer
// fell due has dealt with it and waits again (or has ended), however long that takes in real
// time, so a loop that polls every 10 ms polls at every 10 ms of the clock however slow the
// machine. Listeners see every step, so a scenario plays in step with the daemon's clock.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "util/time_source.hpp"

namespace roce_sim {

class SimulatedTime final : public roced::TimeSource {
 public:
  using Listener = std::function<void(std::chrono::nanoseconds step)>;

  // Starts at the real clocks' readings, so times look like the process's own.
  SimulatedTime();
  ~SimulatedTime() override;
  SimulatedTime(const SimulatedTime&) = delete;
  SimulatedTime& operator=(const SimulatedTime&) = delete;

  TimePoint now() const override;
  WallTime wall_now() const override;
  bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                  TimePoint deadline, const std::function<bool()>& ready) override;
  void wait(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
            const std::function<bool()>& ready) override;
  void sleep_until(TimePoint deadline) override;
  int poll_until(std::span<pollfd> fds, TimePoint deadline) override;
  // What charge_cpu() added, whichever thread asks.
  std::chrono::nanoseconds thread_cpu_time() const override {
    return std::chrono::nanoseconds(cpu_ns_.load());
  }
  void charge_cpu(std::chrono::nanoseconds used) { cpu_ns_ += used.count(); }
  std::thread start_thread(std::function<void()> body) override;

  // Moves the clock on by `step`: listeners run (in the caller's thread, in the order added),
  // every wait is woken to look at the clock, and the call returns once each thread whose
  // deadline came is waiting again or has ended, however long that takes in real time (only
  // after kHangPatience, which only a hang exhausts, does the clock run ahead of it).
  void advance(std::chrono::nanoseconds step);
  // The wall clock jumps by `step` (an NTP step, an operator's `date`); the monotonic one does not.
  void step_wall(std::chrono::nanoseconds step);
  // Moves the clock on by `step` at a time until `done()`; before each step it lets every thread
  // that has waited on this clock finish what it is doing (a notification, a request: what no
  // timer drives) and wait again or end, so the clock runs at most a step ahead of the threads.
  // Gives up (false) after `patience` of real time for the whole call: an event that never comes
  // fails there. A hang of one step is caught sooner (kHangPatience). The default leaves room for
  // a busy machine under ASan, where 4.9 s of simulated time in 1 ms steps took over 60 s.
  bool advance_until(const std::function<bool()>& done, std::chrono::nanoseconds step,
                     std::chrono::milliseconds patience = std::chrono::seconds(240));
  // Until `count` waits at least are under way on this clock (for a test that must not move it
  // before a thread it started waits); false after `patience` of real time.
  bool until_waiting(size_t count, std::chrono::milliseconds patience = kHangPatience);

  int listen(Listener listener);  // an id for unlisten
  void unlisten(int id);

  // How long advance() and advance_until() wait in real time for a thread to wait again or end
  // before they give up on it: a thread that takes longer hangs, however busy the machine.
  static constexpr std::chrono::milliseconds kHangPatience{60000};

 private:
  struct Waiter {
    std::thread::id thread;
    TimePoint deadline;
    std::condition_variable* wake;  // null for sleep and poll, which look every kRecheck
    int wake_fd = -1;               // poll's eventfd: an advance wakes its poll at once
  };
  // A waiter's registration, from the moment it checks the clock until it returns.
  class Registration;
  // What a thread's exit tells this clock, for as long as it exists (threads may outlive it).
  struct Exits;
  // Has the calling thread tell `exits` when it ends.
  static void tell_at_exit(const std::shared_ptr<Exits>& exits);
  void thread_ended(std::thread::id thread);
  using Due = std::map<std::thread::id, uint64_t>;  // thread -> its registration that came due

  TimePoint now_locked() const;
  Due due_locked() const;
  // Until each thread of `due` has registered again or ended, or kHangPatience.
  void settle(const Due& due);
  // Until every thread known to wait on this clock waits on it, or kHangPatience; those that do
  // not by then are forgotten until they wait again.
  void quiesce();
  bool waiting_locked(std::thread::id thread) const;

  std::atomic<int64_t> cpu_ns_{0};
  mutable std::mutex mutex_;         // the clock and the waiters; never held while a listener runs
  std::condition_variable changed_;  // the clock moved or a waiter came or went
  std::chrono::nanoseconds elapsed_{0};
  const TimePoint start_;
  const WallTime wall_start_;
  std::chrono::nanoseconds wall_steps_{0};
  std::map<uint64_t, Waiter> waiters_;  // by registration, in order
  uint64_t next_registration_ = 1;
  std::set<std::thread::id> known_;  // threads that have waited on this clock, until they end
  int starting_ = 0;  // threads from start_thread that have not yet made themselves known
  std::set<std::thread::id> ended_;  // threads that waited on this clock and have ended
  std::shared_ptr<Exits> exits_;

  std::mutex listeners_mutex_;  // one advance at a time, and the listeners
  std::map<int, Listener> listeners_;
  int next_listener_ = 1;
};

}  // namespace roce_sim
