// SPDX-License-Identifier: Apache-2.0
#include "watchdog/recurrence_backoff.hpp"

#include <algorithm>

namespace roced::watchdog {

RecurrenceBackoff::RecurrenceBackoff(Clock::duration base, Clock::duration cap)
    : base_(base), cap_(std::max(base, cap)), current_(base) {}

RecurrenceBackoff::Clock::duration RecurrenceBackoff::on_detected(Clock::time_point at) {
  last_was_recurrence_ = restored_at_ && at - *restored_at_ <= 2 * current_;
  // Halving the cap first keeps 2 x current_ from overflowing whatever the cap.
  current_ = last_was_recurrence_ ? (current_ >= cap_ / 2 ? cap_ : 2 * current_) : base_;
  restored_at_.reset();
  return current_;
}

void RecurrenceBackoff::on_restored(Clock::time_point at) { restored_at_ = at; }

void RecurrenceBackoff::reconfigure(Clock::duration base, Clock::duration cap) {
  base_ = base;
  cap_ = std::max(base, cap);
  current_ = std::clamp(current_, base_, cap_);
}

}  // namespace roced::watchdog
