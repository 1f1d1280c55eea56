// SPDX-License-Identifier: Apache-2.0
#pragma once
// Does something at once and then every interval, in its own thread, until destroyed: what keeps
// a reading fresh in the background so that the request that serves it need not wait for it.
// Each run is timed from the previous run's start, so the interval is a rate, not a gap.
#include <chrono>
#include <functional>
#include <thread>

#include "util/stop_signal.hpp"
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
    stop_.raise();
    thread_.join();
  }
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

 private:
  void run() {
    // Counted from construction, not from when this thread first runs.
    auto next_run = first_run_;
    do {
      task_();
      next_run += interval_;
      // A run longer than the interval: the next starts now, the missed ones are not made up.
      if (next_run < time_.now()) next_run = time_.now();
    } while (stop_.pause_until(time_, next_run));
  }

  TimeSource& time_;
  const std::chrono::nanoseconds interval_;
  std::function<void()> task_;
  StopSignal stop_;
  const TimeSource::TimePoint first_run_;
  std::thread thread_;  // last: starts once everything it uses exists
};

}  // namespace roced
