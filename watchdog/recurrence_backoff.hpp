// SPDX-License-Identifier: Apache-2.0
#pragma once
// Restoration backoff for a storm that keeps coming back. Restoring too early into a storm that
// resumes costs two more actions (with disable-pfc on mlx5: two link flaps), so:
//
//   a storm detected within 2 x the restoration time last used after its restoration is a
//   recurrence: its restoration time doubles (capped); a storm detected later than that starts
//   again from the configured restoration time.
//
// The window grows with the restoration time in effect, so a storm recurring at a steady period
// keeps the longer restoration until it stays away for twice that long.

#include <chrono>
#include <optional>

namespace roced::watchdog {

class RecurrenceBackoff {
 public:
  using Clock = std::chrono::steady_clock;

  // `cap` below `base` is raised to `base`: the backoff never shortens the configured time.
  RecurrenceBackoff(Clock::duration base, Clock::duration cap);

  // A storm was detected at `at`: returns the restoration time for it.
  Clock::duration on_detected(Clock::time_point at);
  // That storm was declared restored at `at`.
  void on_restored(Clock::time_point at);

  // New settings: the next storm's restoration time starts from `base` (or stays backed off,
  // within the new cap, if the last storm was a recurrence).
  void reconfigure(Clock::duration base, Clock::duration cap);

  Clock::duration current() const { return current_; }
  bool last_was_recurrence() const { return last_was_recurrence_; }

 private:
  Clock::duration base_;
  Clock::duration cap_;
  Clock::duration current_;
  std::optional<Clock::time_point> restored_at_;
  bool last_was_recurrence_ = false;
};

}  // namespace roced::watchdog
