#include "watchdog/storm_detector.hpp"

#include <algorithm>

namespace roced::watchdog {

DetectorSettings detector_settings(const WatchdogSettings& settings) {
  DetectorSettings detector;
  detector.detection_time = settings.detection_time;
  detector.restoration_time = settings.restoration_time;
  detector.verify_polls = settings.verify_polls;
  return detector;
}

StormDetector::StormDetector(DetectorSettings settings)
    : settings_(settings),
      backoff_(settings.restoration_time, settings.restoration_cap),
      restoration_time_(settings.restoration_time) {}

std::vector<StormEvent> StormDetector::feed(const StormEvidence& poll) {
  std::vector<StormEvent> events;
  if (state_ == StormState::watching) {
    watch(poll, events);
  } else {
    verify(poll, events);
    restore(poll, events);
  }
  return events;
}

bool StormDetector::on_action(Clock::time_point at) {
  if (state_ != StormState::storming) return false;
  verification_ = Verification{at, 0, 0};
  // The action itself (a PFC change flaps an mlx5 link) starts a new quiet period.
  quiet_since_ = std::max(quiet_since_, at);
  return true;
}

void StormDetector::watch(const StormEvidence& poll, std::vector<StormEvent>& events) {
  if (poll.verdict != PollVerdict::stormed) {
    accumulated_ = Clock::duration::zero();
    stormed_polls_ = 0;
    return;
  }
  if (stormed_polls_ == 0) began_ = poll.at - poll.interval;
  accumulated_ += poll.interval;
  ++stormed_polls_;
  if (accumulated_ < settings_.detection_time || stormed_polls_ < 2) return;

  state_ = StormState::storming;
  restoration_time_ = backoff_.on_detected(poll.at);
  quiet_since_ = poll.at;
  verification_.reset();
  events.push_back(StormDetected{poll.at, accumulated_, stormed_polls_, began_, restoration_time_,
                                 backoff_.last_was_recurrence(), poll});
}

void StormDetector::verify(const StormEvidence& poll, std::vector<StormEvent>& events) {
  if (!verification_ || poll.at <= verification_->action_at) return;
  // No pause duration listed for the priority = PFC off on it (mlx5): nothing pauses it any more.
  const bool judged =
      poll.verdict != PollVerdict::unknown ||
      (poll.unknown_reason == UnknownReason::missing_counter && !poll.pause_duration_us);
  if (!judged) return;
  ++verification_->polls;
  if (poll.verdict == PollVerdict::stormed) ++verification_->stormed_polls;
  if (verification_->polls < settings_.verify_polls) return;

  if (poll.verdict == PollVerdict::stormed) {
    events.push_back(RemediationFailed{poll.at, verification_->action_at, verification_->polls,
                                       verification_->stormed_polls, poll});
  } else {
    events.push_back(RemediationVerified{poll.at, verification_->action_at, verification_->polls});
  }
  verification_.reset();
}

void StormDetector::restore(const StormEvidence& poll, std::vector<StormEvent>& events) {
  const auto frames = restoration_pause_frames(poll);
  if (poll.verdict == PollVerdict::stormed || !frames || *frames > 0) {
    quiet_since_ = std::max(quiet_since_, poll.at);
    return;
  }
  if (poll.at - quiet_since_ < restoration_time_) return;

  if (verification_) {  // quiet for the whole restoration time: the action worked
    events.push_back(RemediationVerified{poll.at, verification_->action_at, verification_->polls});
    verification_.reset();
  }
  events.push_back(StormRestored{poll.at, poll.at - began_, restoration_time_});
  backoff_.on_restored(poll.at);
  state_ = StormState::watching;
  accumulated_ = Clock::duration::zero();
  stormed_polls_ = 0;
}

}  // namespace roced::watchdog
