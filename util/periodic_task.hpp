// SPDX-License-Identifier: Apache-2.0
#pragma once
// Does something at once and then every interval, in its own thread, until destroyed: what keeps
// a reading fresh in the background so that the request that serves it need not wait for it.
// Each run is timed from the previous run's start, so the interval is a rate, not a gap. An
// event may ask for a run sooner (trigger); the interval's runs keep their times.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "util/time_source.hpp"

namespace roced {

class PeriodicTask {
 public:
  PeriodicTask(TimeSource& time, std::chrono::nanoseconds interval, std::function<void()> task)
      : time_(time),
        interval_(interval),
        task_(std::move(task)),
        first_run_(time.now()),
        thread_(time.start_thread([this] { run(); })) {}
  // Stops waiting (a run under way finishes first) and joins.
  ~PeriodicTask() {
    {
      const std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  // One run as soon as the thread is free: at once while it waits, after the run under way.
  // The caller keeps the task alive until it returns: the notice is given under the lock.
  void trigger() {
    const std::lock_guard lock(mutex_);
    triggered_ = true;
    wake_.notify_all();
  }

 private:
  void run() {
    // Counted from construction, not from when this thread first runs.
    auto next_run = first_run_;
    for (;;) {
      if (time_.now() >= next_run) next_run += interval_;  // this run is the interval's
      task_();
      // A run longer than the interval: the next starts now, the missed ones are not made up.
      if (next_run < time_.now()) next_run = time_.now();
      std::unique_lock lock(mutex_);
      time_.wait_until(lock, wake_, next_run, [this] { return stopped_ || triggered_; });
      if (stopped_) return;
      triggered_ = false;
    }
  }

  TimeSource& time_;
  const std::chrono::nanoseconds interval_;
  std::function<void()> task_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false;
  bool triggered_ = false;
  const TimeSource::TimePoint first_run_;
  std::thread thread_;  // last: starts once everything it uses exists
};

}  // namespace roced
