// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where the daemon's loops read the time and wait for it. roced runs on the real clocks; tests
// run the same loops on a clock they advance themselves (sim/inprocess/simulated_time.hpp, after
// Envoy's SimulatedTimeSystem), so retry backoff, the drift timer and event settling are checked
// against the time the test says has passed, never against how fast the machine happens to be.
#include <poll.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>
#include <span>
#include <thread>

namespace roced {

class TimeSource {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using WallTime = std::chrono::system_clock::time_point;

  virtual ~TimeSource() = default;

  virtual TimePoint now() const = 0;      // monotonic: deadlines and intervals
  virtual WallTime wall_now() const = 0;  // for people: "last checked at"
  // Waits on `wake`, whose mutex `lock` holds, until `ready()` or until `deadline` on this clock;
  // returns ready(). A notify of `wake` wakes it as with std::condition_variable::wait_until.
  virtual bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                          TimePoint deadline, const std::function<bool()>& ready) = 0;
  // Waits on `wake` until `ready()`, however long: what no timer ends.
  virtual void wait(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                    const std::function<bool()>& ready) = 0;
  virtual void sleep_until(TimePoint deadline) = 0;
  // poll(2) until one of `fds` is ready or `deadline` on this clock: poll's answer (0 at the
  // deadline, -1 with errno). TimePoint::max() is no deadline.
  virtual int poll_until(std::span<pollfd> fds, TimePoint deadline) = 0;
  // The CPU time the calling thread has used (what a poll budget counts). A simulated clock
  // reports what the test charged, so that a busy machine changes nothing.
  virtual std::chrono::nanoseconds thread_cpu_time() const = 0;
  // A thread running `body`. A simulated clock counts it as busy from its first instruction, so
  // that it does not move on before the thread has waited on it or ended.
  virtual std::thread start_thread(std::function<void()> body) {
    return std::thread(std::move(body));
  }

  bool wait_for(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                std::chrono::nanoseconds timeout, const std::function<bool()>& ready) {
    return wait_until(lock, wake, now() + timeout, ready);
  }
  void sleep_for(std::chrono::nanoseconds duration) { sleep_until(now() + duration); }
  // A point on the monotonic clock as wall-clock time.
  WallTime to_wall(TimePoint when) const {
    return wall_now() + std::chrono::duration_cast<WallTime::duration>(when - now());
  }
};

class RealTime final : public TimeSource {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
  WallTime wall_now() const override { return std::chrono::system_clock::now(); }
  bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                  TimePoint deadline, const std::function<bool()>& ready) override {
    return wake.wait_until(lock, deadline, ready);
  }
  void wait(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
            const std::function<bool()>& ready) override {
    wake.wait(lock, ready);
  }
  void sleep_until(TimePoint deadline) override { std::this_thread::sleep_until(deadline); }
  // TimePoint::max(): no deadline, as poll's -1.
  int poll_until(std::span<pollfd> fds, TimePoint deadline) override {
    if (deadline == TimePoint::max()) return ::poll(fds.data(), fds.size(), -1);
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now()).count();
    const auto bounded = std::clamp<decltype(left)>(left, 0, std::numeric_limits<int>::max());
    return ::poll(fds.data(), fds.size(), static_cast<int>(bounded));
  }
  std::chrono::nanoseconds thread_cpu_time() const override {
    timespec used{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used);
    return std::chrono::seconds(used.tv_sec) + std::chrono::nanoseconds(used.tv_nsec);
  }
};

// The process's real clocks.
inline TimeSource& real_time() {
  static RealTime clocks;
  return clocks;
}

}  // namespace roced
