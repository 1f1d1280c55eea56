#pragma once
// The storm state machine of one (port, priority, direction), fed one StormEvidence per poll.
//
// Watching: stormed polls add their *measured* interval; detection when the sum reaches
//   detection_time over at least two polls. Any healthy or unknown poll resets the sum (a counter
//   reset mid-storm must not complete a detection).
// Storming (after StormDetected): the caller acts and calls on_action(t), or only alerts and
//   does not. Either way restoration is watched from the detection on:
//   - Restoration: StormRestored once restoration_time has passed, since both the last poll that
//     saw a pause frame in the storm's direction and the last action, with every poll in between
//     showing zero pause frames (restoration_pause_frames: the priority's own counter while mlx5
//     lists it, else the port's MAC count, which still sees the frames after disable-pfc). A
//     stormed poll or one whose frames cannot be known restarts the clock too.
//   - Verification (only after on_action): the verify_polls-th judged poll after the action
//     decides: stormed -> RemediationFailed, otherwise RemediationVerified. Judged = healthy,
//     stormed, or unknown because the priority's pause duration is not listed (on mlx5 that is
//     PFC off on the priority: the NIC then neither honours nor sends pauses on it). Other
//     unknown polls (a reset, a bad interval) do not count. A restoration before the verdict
//     verifies.
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

  StormState state() const { return state_; }
  Clock::duration accumulated() const { return accumulated_; }
  int stormed_polls() const { return stormed_polls_; }
  Clock::duration restoration_time() const { return restoration_time_; }

 private:
  struct Verification {
    Clock::time_point action_at;
    int polls = 0;
    int stormed_polls = 0;
  };

  void watch(const StormEvidence& poll, std::vector<StormEvent>& events);
  void verify(const StormEvidence& poll, std::vector<StormEvent>& events);
  void restore(const StormEvidence& poll, std::vector<StormEvent>& events);

  DetectorSettings settings_;
  RecurrenceBackoff backoff_;
  StormState state_ = StormState::watching;
  Clock::duration accumulated_{0};
  int stormed_polls_ = 0;
  Clock::time_point began_;
  Clock::duration restoration_time_;
  Clock::time_point quiet_since_;  // the restoration clock's start
  std::optional<Verification> verification_;
};

}  // namespace roced::watchdog
