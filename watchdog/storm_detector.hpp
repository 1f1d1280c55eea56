// SPDX-License-Identifier: Apache-2.0
#pragma once
// The storm state machine of one (port, priority, direction), fed one StormEvidence per poll.
//
// Watching: a run of consecutive stormed polls is a storm whose onset is the start of the run's
//   first poll, less the paused tail the pause-duration counter showed in the poll just before
//   (a storm rarely starts on a poll boundary; the counter says where it did). Detection once the
//   storm's age (now - onset) reaches detection_time, over at least two stormed polls. Any healthy
//   or unknown poll ends the run (a counter reset mid-storm must not complete a detection), but
//   for one whose reads were too slow to judge (more than half its interval uncertain) while
//   nothing crossed the other way: it is skipped.
//   TX only: the NIC's own stall-prevention error event in a poll that still paused, or right
//   after a stormed one, is a detection at once (by_nic): the NIC saw the storm and stopped
//   pausing, so the duration rule would never see it again.
// Storming (after StormDetected): the caller acts and calls on_action(t), or only alerts and
//   does not. Either way restoration is watched from the detection on:
//   - Restoration: StormRestored once restoration_time has passed since both the last pause (in
//     the storm's direction, placed where the counters put it: the end of the pause the priority's
//     duration counter measured in that poll, or, with PFC off, the priority's frame count (dcbnl
//     getpfc's, else the MAC's for every priority) times the storm's own frame interval) and the
//     last action. A stormed poll, or one whose frames cannot
//     be known (a reset, or no carrier: the link still training after the action's own flap),
//     counts as a pause at its end; so does, for a TX storm, one in which the stalled
//     receive side dropped packets on the priority (with PFC off, or after the NIC's stall
//     prevention gave up, no pause frame is sent, but the storm is not over).
//   - Verification (only after on_action): the verify_polls-th counted poll after the action
//     decides: stormed -> RemediationFailed; else RemediationVerified if any counted poll showed
//     the signal gone, RemediationUnverified if none could tell. Counted = healthy, stormed, or,
//     with the priority's pause counters unlisted (PFC off on it, as after disable-pfc), what
//     storm_without_pfc makes of its getpfc count (else the port's MAC): stopped, still paused,
//     or (RX) nothing sent, which cannot tell. Other unknown polls (a reset, a bad interval) do
//     not count. A restoration before the verdict verifies.
// After StormRestored the detector watches again, from zero.

#include <chrono>
#include <optional>
#include <vector>

#include "watchdog/recurrence_backoff.hpp"
#include "watchdog/settings.hpp"
#include "watchdog/storm_events.hpp"
#include "watchdog/storm_signal.hpp"

namespace roced::watchdog {

struct DetectorSettings {
  Clock::duration detection_time = std::chrono::milliseconds(200);
  Clock::duration restoration_time = std::chrono::milliseconds(200);
  Clock::duration restoration_cap = std::chrono::seconds(60);  // backoff ceiling
  int verify_polls = 3;
};

DetectorSettings detector_settings(const WatchdogSettings& settings);

enum class StormState { watching, storming };

class StormDetector {
 public:
  explicit StormDetector(DetectorSettings settings);

  std::vector<StormEvent> feed(const StormEvidence& poll);

  // The caller remediated at `at`: verification starts (a new action replaces an open one).
  // Returns false, and changes nothing, when no storm is being handled.
  bool on_action(Clock::time_point at);

  // New settings, the state kept: a storm being handled keeps the restoration time it was
  // given at detection; detection_time and verify_polls apply from the next poll.
  void reconfigure(DetectorSettings settings);

  StormState state() const { return state_; }
  Clock::duration accumulated() const { return accumulated_; }
  int stormed_polls() const { return stormed_polls_; }
  Clock::duration restoration_time() const { return restoration_time_; }
  // The last pause seen in this direction (placed as for restoration), in any state; empty
  // before the first.
  std::optional<Clock::time_point> last_pause() const { return last_pause_; }

 private:
  struct Verification {
    Clock::time_point action_at;
    int polls = 0;
    int stormed_polls = 0;
    int stopped_polls = 0;  // showed the signal gone
  };

  void watch(const StormEvidence& poll, std::vector<StormEvent>& events);
  void detect(const StormEvidence& poll, Clock::time_point onset, bool by_nic,
              std::vector<StormEvent>& events);
  void verify(const StormEvidence& poll, std::vector<StormEvent>& events);
  void restore(const StormEvidence& poll, std::vector<StormEvent>& events);
  // Places this poll's pauses (if any) in last_pause_, and learns the storm's frame interval.
  void note_pauses(const StormEvidence& poll);

  DetectorSettings settings_;
  RecurrenceBackoff backoff_;
  StormState state_ = StormState::watching;
  Clock::duration accumulated_{0};
  int stormed_polls_ = 0;
  Clock::time_point onset_;         // of the current run (or storm, once detected)
  Clock::duration lead_in_{0};      // paused tail of the last healthy poll
  Clock::time_point restore_from_;  // the last action: the restoration clock starts no earlier
  Clock::duration restoration_time_;
  std::optional<Clock::time_point> last_pause_;
  std::optional<Clock::duration> frame_interval_;  // pause / frames while both were listed
  bool paused_to_end_ = false;                     // the last poll paused until its end
  std::optional<Verification> verification_;
};

}  // namespace roced::watchdog
