// SPDX-License-Identifier: Apache-2.0
#pragma once
// Tries something again in its own thread, waiting longer after each failure (doubling up to a
// ceiling), until it succeeds or the retry is destroyed: what a daemon does with an endpoint
// whose address another process still holds, rather than going on without it for good.
#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "util/stop_signal.hpp"
#include "util/time_source.hpp"

namespace roced {

class BackoffRetry {
 public:
  struct Delays {
    std::chrono::milliseconds first{std::chrono::seconds(1)};
    std::chrono::milliseconds most{std::chrono::minutes(1)};
  };
  // Returns true when it succeeded; else false, with `error` saying why.
  using Attempt = std::function<bool(std::string& error)>;
  // Told after every failed try, with how many tries failed so far and the next delay.
  using Failed =
      std::function<void(int failures, const std::string& error, std::chrono::milliseconds next)>;

  // The first try is `delays.first` from now: the caller has just failed once itself.
  BackoffRetry(TimeSource& time, Delays delays, Attempt attempt, Failed failed)
      : time_(time),
        delays_(delays),
        attempt_(std::move(attempt)),
        failed_(std::move(failed)),
        first_try_(time.now() + delays.first),
        thread_(time.start_thread([this] { run(); })) {}
  // Stops waiting (a try under way finishes first) and joins.
  ~BackoffRetry() {
    stop_.raise();
    thread_.join();
  }
  BackoffRetry(const BackoffRetry&) = delete;
  BackoffRetry& operator=(const BackoffRetry&) = delete;

 private:
  void run() {
    std::chrono::milliseconds delay = delays_.first;
    // Counted from construction, not from when this thread first runs.
    auto next_try = first_try_;
    for (int failures = 1; stop_.pause_until(time_, next_try); ++failures) {
      std::string error;
      if (attempt_(error)) return;
      delay = std::min(delay * 2, delays_.most);
      next_try = time_.now() + delay;
      if (failed_) failed_(failures, error, delay);
    }
  }

  TimeSource& time_;
  const Delays delays_;
  Attempt attempt_;
  Failed failed_;
  StopSignal stop_;
  const TimeSource::TimePoint first_try_;
  std::thread thread_;  // last: starts once everything it uses exists
};

}  // namespace roced
