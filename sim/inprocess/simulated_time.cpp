// SPDX-License-Identifier: Apache-2.0
#include "sim/inprocess/simulated_time.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace roce_sim {

namespace {

// A waiter that checked the clock just before an advance and had not yet begun to wait misses its
// notify; it looks again after this much real time. Only latency, never a wrong answer.
constexpr std::chrono::milliseconds kRecheck{5};
// What the other threads get after each step of advance_until, for what no timer drives.
constexpr std::chrono::milliseconds kReactionTime{1};

}  // namespace

struct SimulatedTime::Exits {
  std::mutex mutex;
  SimulatedTime* time = nullptr;  // null once the clock is gone
};

void SimulatedTime::tell_at_exit(const std::shared_ptr<Exits>& exits) {
  // Destroyed as the thread ends, after whatever it ran has returned.
  struct AtExit {
    std::vector<std::weak_ptr<Exits>> clocks;
    ~AtExit() {
      for (const auto& clock : clocks) {
        if (const auto exits = clock.lock()) {
          const std::lock_guard lock(exits->mutex);
          if (exits->time != nullptr) exits->time->thread_ended(std::this_thread::get_id());
        }
      }
    }
  };
  thread_local AtExit at_exit;
  std::erase_if(at_exit.clocks, [](const auto& clock) { return clock.expired(); });
  for (const auto& clock : at_exit.clocks) {
    if (clock.lock() == exits) return;
  }
  at_exit.clocks.push_back(exits);
}

void SimulatedTime::thread_ended(std::thread::id thread) {
  const std::lock_guard lock(mutex_);
  known_.erase(thread);
  ended_.insert(thread);
  changed_.notify_all();
}

class SimulatedTime::Registration {
 public:
  Registration(SimulatedTime& time, TimePoint deadline, std::condition_variable* wake,
               int wake_fd = -1)
      : time_(time) {
    const std::lock_guard lock(time_.mutex_);
    const std::thread::id self = std::this_thread::get_id();
    id_ = time_.next_registration_++;
    time_.waiters_.emplace(id_, Waiter{self, deadline, wake, wake_fd});
    time_.ended_.erase(self);  // an ended thread's id, taken by a new one
    if (time_.known_.insert(self).second) tell_at_exit(time_.exits_);
    time_.changed_.notify_all();
  }
  ~Registration() {
    const std::lock_guard lock(time_.mutex_);
    time_.waiters_.erase(id_);
    time_.changed_.notify_all();
  }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

 private:
  SimulatedTime& time_;
  uint64_t id_ = 0;
};

std::thread SimulatedTime::start_thread(std::function<void()> body) {
  {
    const std::lock_guard lock(mutex_);
    ++starting_;
  }
  return std::thread([this, body = std::move(body)] {
    {
      // Known from here: the clock waits for it to wait or end, as for one it woke.
      const std::lock_guard lock(mutex_);
      const std::thread::id self = std::this_thread::get_id();
      ended_.erase(self);
      if (known_.insert(self).second) tell_at_exit(exits_);
      --starting_;
      changed_.notify_all();
    }
    body();
  });
}

SimulatedTime::SimulatedTime()
    : start_(std::chrono::steady_clock::now()),
      wall_start_(std::chrono::system_clock::now()),
      exits_(std::make_shared<Exits>()) {
  exits_->time = this;
}

SimulatedTime::~SimulatedTime() {
  const std::lock_guard lock(exits_->mutex);  // after any thread that is telling it of its end
  exits_->time = nullptr;
}

SimulatedTime::TimePoint SimulatedTime::now_locked() const {
  return start_ + std::chrono::duration_cast<TimePoint::duration>(elapsed_);
}

SimulatedTime::TimePoint SimulatedTime::now() const {
  const std::lock_guard lock(mutex_);
  return now_locked();
}

SimulatedTime::WallTime SimulatedTime::wall_now() const {
  const std::lock_guard lock(mutex_);
  return wall_start_ + std::chrono::duration_cast<WallTime::duration>(elapsed_ + wall_steps_);
}

void SimulatedTime::step_wall(std::chrono::nanoseconds step) {
  const std::lock_guard lock(mutex_);
  wall_steps_ += step;
}

bool SimulatedTime::wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                               TimePoint deadline, const std::function<bool()>& ready) {
  const Registration registered(*this, deadline, &wake);
  while (!ready() && now() < deadline) wake.wait_for(lock, kRecheck);
  return ready();
}

void SimulatedTime::wait(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                         const std::function<bool()>& ready) {
  const Registration registered(*this, TimePoint::max(), &wake);
  wake.wait(lock, ready);
}

void SimulatedTime::sleep_until(TimePoint deadline) {
  const Registration registered(*this, deadline, nullptr);
  std::unique_lock lock(mutex_);
  while (now_locked() < deadline) changed_.wait_for(lock, kRecheck);
}

namespace {

// The calling thread's eventfd, which an advance writes to wake its poll_until; closed when the
// thread ends.
class PollWake {
 public:
  PollWake() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~PollWake() {
    if (fd_ >= 0) ::close(fd_);
  }
  PollWake(const PollWake&) = delete;
  PollWake& operator=(const PollWake&) = delete;
  int fd() const { return fd_; }
  void drain() const {
    eventfd_t count = 0;
    (void)::eventfd_read(fd_, &count);
  }

 private:
  int fd_;
};

}  // namespace

int SimulatedTime::poll_until(std::span<pollfd> fds, TimePoint deadline) {
  thread_local const PollWake wake;
  // The caller's descriptors and, last, the clock's: an advance ends the poll at once rather than
  // after kRecheck (kRecheck stays, in case the eventfd could not be made).
  std::vector<pollfd> all(fds.begin(), fds.end());
  all.push_back(pollfd{.fd = wake.fd(), .events = POLLIN, .revents = 0});
  const Registration registered(*this, deadline, nullptr, wake.fd());
  for (;;) {
    for (pollfd& fd : all) fd.revents = 0;
    int ready = ::poll(all.data(), all.size(), static_cast<int>(kRecheck.count()));
    if (ready > 0 && all.back().revents != 0) {
      wake.drain();
      --ready;
    }
    std::copy_n(all.begin(), fds.size(), fds.begin());
    if (ready != 0 || now() >= deadline) return ready;
  }
}

SimulatedTime::Due SimulatedTime::due_locked() const {
  Due due;
  const TimePoint now = now_locked();
  for (const auto& [id, waiter] : waiters_) {
    if (waiter.deadline <= now) due[waiter.thread] = std::max(due[waiter.thread], id);
  }
  return due;
}

void SimulatedTime::settle(const Due& due) {
  if (due.empty()) return;
  std::unique_lock lock(mutex_);
  const bool settled = changed_.wait_for(lock, kHangPatience, [&] {
    return std::all_of(due.begin(), due.end(), [&](const auto& thread_due) {
      return ended_.count(thread_due.first) != 0 ||
             std::any_of(
                 waiters_.upper_bound(thread_due.second), waiters_.end(),
                 [&](const auto& later) { return later.second.thread == thread_due.first; });
    });
  });
  if (!settled) {
    std::fprintf(stderr,
                 "SimulatedTime: a thread whose deadline came neither waits again nor "
                 "ended after %lld s: it hangs; the clock moves on without it\n",
                 static_cast<long long>(kHangPatience.count() / 1000));
  }
}

bool SimulatedTime::waiting_locked(std::thread::id thread) const {
  return std::any_of(waiters_.begin(), waiters_.end(),
                     [&](const auto& waiter) { return waiter.second.thread == thread; });
}

void SimulatedTime::quiesce() {
  const std::thread::id self = std::this_thread::get_id();  // the one moving the clock
  const auto settled = [&](std::thread::id thread) {
    return thread == self || waiting_locked(thread);
  };
  std::unique_lock lock(mutex_);
  const bool quiet = changed_.wait_for(lock, kHangPatience, [&] {
    return starting_ == 0 && std::all_of(known_.begin(), known_.end(), settled);
  });
  if (!quiet) {
    std::fprintf(stderr,
                 "SimulatedTime: a thread that waited on the clock neither waits again "
                 "nor ended after %lld s: it hangs; the clock moves on without it\n",
                 static_cast<long long>(kHangPatience.count() / 1000));
    std::erase_if(known_, [&](std::thread::id thread) { return !settled(thread); });
  }
}

bool SimulatedTime::until_waiting(size_t count, std::chrono::milliseconds patience) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, patience, [&] { return waiters_.size() >= count; });
}

void SimulatedTime::advance(std::chrono::nanoseconds step) {
  const std::lock_guard one_at_a_time(listeners_mutex_);
  {
    const std::lock_guard lock(mutex_);
    elapsed_ += step;
    // A single-threaded caller (the soak: a day of 10 ms steps) pays for nothing more.
    if (waiters_.empty() && listeners_.empty()) return;
  }
  for (auto& [id, listener] : listeners_) listener(step);
  Due due;
  {
    const std::lock_guard lock(mutex_);
    // A registered condition variable outlives its registration, which ends under mutex_.
    for (const auto& [id, waiter] : waiters_) {
      if (waiter.wake != nullptr) waiter.wake->notify_all();
      if (waiter.wake_fd >= 0) (void)::eventfd_write(waiter.wake_fd, 1);
    }
    changed_.notify_all();
    due = due_locked();
  }
  settle(due);
}

bool SimulatedTime::advance_until(const std::function<bool()>& done, std::chrono::nanoseconds step,
                                  std::chrono::milliseconds patience) {
  const auto give_up = std::chrono::steady_clock::now() + patience;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= give_up) return done();
    quiesce();
    if (done()) return true;
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
