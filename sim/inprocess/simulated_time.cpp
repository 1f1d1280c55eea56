// SPDX-License-Identifier: Apache-2.0
#include "sim/inprocess/simulated_time.hpp"

#include <thread>

namespace roce_sim {

namespace {

// A waiter that checked the clock just before an advance and had not yet begun to wait misses its
// notify; it looks again after this much real time. Only latency, never a wrong answer.
constexpr std::chrono::milliseconds kRecheck{5};
// What the other threads get to react to one step of advance_until.
constexpr std::chrono::milliseconds kReactionTime{1};

}  // namespace

SimulatedTime::SimulatedTime()
    : start_(std::chrono::steady_clock::now()), wall_start_(std::chrono::system_clock::now()) {}

SimulatedTime::TimePoint SimulatedTime::now() const {
  const std::lock_guard lock(mutex_);
  return start_ + std::chrono::duration_cast<TimePoint::duration>(elapsed_);
}

SimulatedTime::WallTime SimulatedTime::wall_now() const {
  const std::lock_guard lock(mutex_);
  return wall_start_ + std::chrono::duration_cast<WallTime::duration>(elapsed_);
}

bool SimulatedTime::wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                               TimePoint deadline, const std::function<bool()>& ready) {
  {
    const std::lock_guard clock(mutex_);
    waits_.insert(&wake);
  }
  while (!ready() && now() < deadline) wake.wait_for(lock, kRecheck);
  {
    const std::lock_guard clock(mutex_);
    waits_.erase(&wake);
  }
  return ready();
}

void SimulatedTime::sleep_until(TimePoint deadline) {
  std::unique_lock lock(mutex_);
  while (start_ + std::chrono::duration_cast<TimePoint::duration>(elapsed_) < deadline) {
    sleepers_.wait_for(lock, kRecheck);
  }
}

int SimulatedTime::poll_until(std::span<pollfd> fds, TimePoint deadline) {
  for (;;) {
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(kRecheck.count()));
    if (ready != 0 || now() >= deadline) return ready;
  }
}

void SimulatedTime::advance(std::chrono::nanoseconds step) {
  const std::lock_guard one_at_a_time(listeners_mutex_);
  {
    const std::lock_guard lock(mutex_);
    elapsed_ += step;
  }
  for (auto& [id, listener] : listeners_) listener(step);
  const std::lock_guard lock(mutex_);
  // A registered condition variable outlives its registration, which ends under mutex_.
  for (std::condition_variable* wake : waits_) wake->notify_all();
  sleepers_.notify_all();
}

bool SimulatedTime::advance_until(const std::function<bool()>& done, std::chrono::nanoseconds step,
                                  std::chrono::milliseconds patience) {
  const auto give_up = std::chrono::steady_clock::now() + patience;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= give_up) return done();
    advance(step);
    std::this_thread::sleep_for(kReactionTime);
  }
  return true;
}

int SimulatedTime::listen(Listener listener) {
  const std::lock_guard lock(listeners_mutex_);
  listeners_.emplace(next_listener_, std::move(listener));
  return next_listener_++;
}

void SimulatedTime::unlisten(int id) {
  const std::lock_guard lock(listeners_mutex_);
  listeners_.erase(id);
}

}  // namespace roce_sim
