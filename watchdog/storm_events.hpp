#pragma once
// What a StormDetector reports, one poll at a time. Each is reported once per storm (the
// verification ones once per action); the caller logs, signals, counts and acts on them.

#include <chrono>
#include <variant>

#include "watchdog/storm_signal.hpp"

namespace roced::watchdog {

// Stormed polls added up to the detection time: act now (or alert).
struct StormDetected {
  Clock::time_point at;
  Clock::duration accumulated;  // measured time of the consecutive stormed polls
  int stormed_polls = 0;
  Clock::time_point began;           // start of the first stormed poll's interval
  Clock::duration restoration_time;  // in effect for this storm (longer when it recurred)
  bool recurrence = false;           // detected soon after the previous one was restored
  StormEvidence evidence;            // the poll that completed the detection
};

// The verify_polls-th poll after the action no longer showed the storm signal (or the storm was
// restored before that).
struct RemediationVerified {
  Clock::time_point at;
  Clock::time_point action_at;
  int polls = 0;  // polls judged since the action
};

// The verify_polls-th poll after the action was still stormed: the action did not help. Escalate.
struct RemediationFailed {
  Clock::time_point at;
  Clock::time_point action_at;
  int polls = 0;
  int stormed_polls = 0;   // of those, stormed
  StormEvidence evidence;  // the last of them
};

// No pause frame in the storm's direction for the restoration time: undo the action.
struct StormRestored {
  Clock::time_point at;
  Clock::duration storm_duration;    // from `began` of the detection to now
  Clock::duration restoration_time;  // the quiet time that was required
};

using StormEvent =
    std::variant<StormDetected, RemediationVerified, RemediationFailed, StormRestored>;

}  // namespace roced::watchdog
