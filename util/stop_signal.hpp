// SPDX-License-Identifier: Apache-2.0
#pragma once
// A stop that reaches a thread while it waits on the clock: roced's stop must not wait out a
// link that trains for seconds, and a test that stops roced must not have to move its clock.
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "util/time_source.hpp"

namespace roced {

class StopSignal {
 public:
  void raise() {
    {
      const std::lock_guard lock(mutex_);
      raised_ = true;
    }
    wake_.notify_all();
  }
  bool raised() const {
    const std::lock_guard lock(mutex_);
    return raised_;
  }
  // Waits `duration` on `time`, less when raised meanwhile: whether the whole wait passed.
  bool pause(TimeSource& time, std::chrono::nanoseconds duration) const {
    std::unique_lock lock(mutex_);
    return !time.wait_for(lock, wake_, duration, [this] { return raised_; });
  }
  // The same until `deadline`: a deadline that stays put however long the caller took to get
  // here, where a duration counted from a second reading of the clock would move with it.
  bool pause_until(TimeSource& time, TimeSource::TimePoint deadline) const {
    std::unique_lock lock(mutex_);
    return !time.wait_until(lock, wake_, deadline, [this] { return raised_; });
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable wake_;
  bool raised_ = false;
};

}  // namespace roced
