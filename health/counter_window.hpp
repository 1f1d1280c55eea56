// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a NIC counter counted over a recent span of time, from successive readings of it: each
// step taken by the one rule of util/counter_step.hpp (a 32-bit counter may wrap; one that went
// down otherwise restarted). A step can be marked as roced's own doing (a PFC change retrains
// the link): it is kept apart and never counts toward a threshold.
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>

#include "util/counter_step.hpp"

namespace roced::health {

class CounterWindow {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  CounterWindow(std::chrono::seconds span, CounterWidth width) : span_(span), width_(width) {}

  // A reading taken `at`; `own`: what it counted since the reading before was roced's doing.
  void add(TimePoint at, uint64_t counter, bool own = false);
  // Counted a second over the interval since the reading before (0 for roced's own); empty until
  // there are two readings.
  std::optional<double> last_rate() const;
  // Counted within the span (or since the first reading, when that is younger), roced's own
  // apart; and how long that is.
  uint64_t total() const;
  uint64_t own_total() const;
  std::chrono::seconds covered() const;

  // What was counted between two readings, and when the second was taken.
  struct Step {
    TimePoint at;
    uint64_t counted;  // since the reading before
    double seconds;    // since the reading before
    bool own;
    bool operator==(const Step&) const = default;
  };
  // The steps within the span, oldest first: what survives a restart (health/history.hpp).
  const std::deque<Step>& steps() const { return steps_; }
  // Steps kept from before a restart, as if counted then; the next reading starts afresh, as
  // the counter's value at the restart is not known. Only into a window that has none yet.
  void restore(std::deque<Step> steps);
  // The next reading is of another counter counting the same events (another interface to it):
  // it starts afresh, and the steps so far stay.
  void rebase() { counter_.reset(); }

 private:
  std::chrono::seconds span_;
  CounterWidth width_;
  std::deque<Step> steps_;
  std::optional<uint64_t> counter_;
  TimePoint first_at_{};
  TimePoint last_at_{};
};

}  // namespace roced::health
