// SPDX-License-Identifier: Apache-2.0
// RecurrenceBackoff: a storm back within 2 x the last restoration time doubles it, up to the cap.
#include "watchdog/recurrence_backoff.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace roced::watchdog {
namespace {

using std::chrono::milliseconds;
using Clock = RecurrenceBackoff::Clock;

struct Episode {
  int detected_ms;  // since the origin
  int restored_ms;
  int expected_restoration_ms;
  bool expected_recurrence;
};

TEST(RecurrenceBackoff, DoublesOnRecurrenceUpToTheCapAndResetsAfterAQuietSpell) {
  RecurrenceBackoff backoff(milliseconds(100), milliseconds(400));
  const Clock::time_point origin{};
  const std::vector<Episode> episodes = {
      {0, 1000, 100, false},     // first storm: the configured time
      {1200, 2000, 200, true},   // back 200 ms later: within 2 x 100 ms (the boundary counts)
      {2400, 3000, 400, true},   // back 400 ms later: within 2 x 200 ms
      {3100, 4000, 400, true},   // capped at 400 ms
      {4800, 5000, 400, true},   // 800 ms = 2 x 400 ms: still a recurrence
      {5801, 6000, 100, false},  // 801 ms later: a new storm, back to 100 ms
      {6201, 7000, 100, false},  // 201 ms after a 100 ms restoration: not a recurrence
  };
  for (const Episode& episode : episodes) {
    SCOPED_TRACE(episode.detected_ms);
    EXPECT_EQ(backoff.on_detected(origin + milliseconds(episode.detected_ms)),
              milliseconds(episode.expected_restoration_ms));
    EXPECT_EQ(backoff.last_was_recurrence(), episode.expected_recurrence);
    EXPECT_EQ(backoff.current(), milliseconds(episode.expected_restoration_ms));
    backoff.on_restored(origin + milliseconds(episode.restored_ms));
  }
}

TEST(RecurrenceBackoff, CapBelowTheBaseKeepsTheBase) {
  RecurrenceBackoff backoff(milliseconds(500), milliseconds(100));
  const Clock::time_point origin{};
  EXPECT_EQ(backoff.on_detected(origin), milliseconds(500));
  backoff.on_restored(origin + milliseconds(600));
  EXPECT_EQ(backoff.on_detected(origin + milliseconds(700)), milliseconds(500));
  EXPECT_TRUE(backoff.last_was_recurrence());
}

TEST(RecurrenceBackoff, DetectionWithoutARestorationInBetweenIsNotARecurrence) {
  RecurrenceBackoff backoff(milliseconds(100), milliseconds(1000));
  const Clock::time_point origin{};
  backoff.on_detected(origin);
  backoff.on_restored(origin + milliseconds(100));
  EXPECT_EQ(backoff.on_detected(origin + milliseconds(150)), milliseconds(200));
  // The restoration of that storm was never reported: nothing to measure a recurrence from.
  EXPECT_EQ(backoff.on_detected(origin + milliseconds(160)), milliseconds(100));
  EXPECT_FALSE(backoff.last_was_recurrence());
}

}  // namespace
}  // namespace roced::watchdog
