// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a StormDetector reports, one poll at a time. Each is reported once per storm (the
// verification ones once per action); the caller logs, signals, counts and acts on them.

#include <chrono>
#include <variant>

#include "watchdog/storm_signal.hpp"

namespace roced::watchdog {

// The storm has lasted the detection time: act now (or alert).
struct StormDetected {
  Clock::time_point at;
  // When the storm began, as the counters place it: the start of the first stormed poll, less the
  // paused tail the pause-duration counter showed in the poll before it.
  Clock::time_point onset;
  Clock::duration latency;  // onset to this poll's snapshot at its earliest: the detection latency
  Clock::duration accumulated;  // measured time of the consecutive stormed polls
  int stormed_polls = 0;
  // TX only: the NIC's stall prevention reported the storm (tx_pause_storm_error_events) and has
  // already stopped pausing; detected on that event, whatever the detection time.
  bool by_nic = false;
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

// The verify_polls-th poll after the action could not tell whether it worked: an RX storm's
// pause frames still arrive (PFC off does not stop the switch sending them) and the port sent
// nothing on the priority in any poll since, as a port with nothing to send does. The action is in
// effect (read back); only its effect on the port's transmit is unknown. Not a failure.
struct RemediationUnverified {
  Clock::time_point at;
  Clock::time_point action_at;
  int polls = 0;
  StormEvidence evidence;  // the last of them
};

// No pause frame in the storm's direction for the restoration time: undo the action.
struct StormRestored {
  Clock::time_point at;
  Clock::duration interval{0};       // the restoring poll's measured interval
  Clock::time_point last_pause;      // the last pause as the counters place it
  Clock::duration storm_duration;    // from the detection's onset to the last pause
  Clock::duration restoration_time;  // the quiet time that was required
};

using StormEvent = std::variant<StormDetected, RemediationVerified, RemediationFailed,
                                RemediationUnverified, StormRestored>;

}  // namespace roced::watchdog
