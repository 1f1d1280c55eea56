// SPDX-License-Identifier: Apache-2.0
#include "watchdog/storm_detector.hpp"

#include <algorithm>

namespace roced::watchdog {

namespace {

using std::chrono::microseconds;

// A counter delta in microseconds as a duration, at most `cap`.
Clock::duration capped_us(uint64_t us, Clock::duration cap) {
  const auto cap_us = std::chrono::duration_cast<microseconds>(cap).count();
  return std::min<Clock::duration>(microseconds(std::min<uint64_t>(us, cap_us)), cap);
}

}  // namespace

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
    if (state_ == StormState::watching) note_pauses(poll);
  } else {
    note_pauses(poll);
    verify(poll, events);
    restore(poll, events);
  }
  return events;
}

void StormDetector::reconfigure(DetectorSettings settings) {
  settings_ = settings;
  backoff_.reconfigure(settings.restoration_time, settings.restoration_cap);
}

bool StormDetector::on_action(Clock::time_point at) {
  if (state_ != StormState::storming) return false;
  verification_ = Verification{at, 0, 0};
  // The action itself (a PFC change flaps an mlx5 link) starts a new quiet period.
  restore_from_ = std::max(restore_from_, at);
  return true;
}

void StormDetector::note_pauses(const StormEvidence& poll) {
  if (poll.pause_duration_us && poll.pause_frames && *poll.pause_frames > 0 &&
      poll.verdict == PollVerdict::stormed) {
    frame_interval_ = microseconds(*poll.pause_duration_us) / *poll.pause_frames;
  }
  // Whether this poll's pausing ran to its end: only then does a pause in the next poll carry on
  // from that poll's start.
  const bool carried_over = paused_to_end_;
  paused_to_end_ =
      poll.verdict == PollVerdict::stormed ||
      (poll.pause_duration_us && covers_99_percent(*poll.pause_duration_us, poll.shortest));
  const auto frames = restoration_pause_frames(poll);
  // A TX storm whose pausing stopped (PFC off, the NIC's stall prevention) goes on while the
  // receive side drops: that is the storm too, and nothing tells where in the poll it was.
  if (poll.receive_discards.value_or(0) > 0) {
    const Clock::time_point latest = poll.at + (poll.at - poll.later_earliest);
    last_pause_ = last_pause_ ? std::max(*last_pause_, latest) : latest;
    return;
  }
  if (frames && *frames == 0 && poll.verdict != PollVerdict::stormed) return;
  // Where in the interval the last pause was, at the latest the readings allow. A storm that
  // ends mid-poll (the poll before paused to its end) pauses from its start: the paused time from
  // the earlier snapshot is where it stopped. A pause on its own may have been anywhere.
  Clock::time_point at = poll.at + (poll.at - poll.later_earliest);  // this snapshot's latest
  if (poll.verdict != PollVerdict::stormed && frames && carried_over) {
    if (poll.pause_duration_us) {
      at = std::min(at, poll.earlier_latest + capped_us(*poll.pause_duration_us, poll.interval));
    } else if (frame_interval_) {
      at = std::min(at, poll.earlier_latest + *frame_interval_ * static_cast<int64_t>(*frames));
    }
  }
  last_pause_ = last_pause_ ? std::max(*last_pause_, at) : at;
}

void StormDetector::watch(const StormEvidence& poll, std::vector<StormEvent>& events) {
  // Reads too slow to judge, with nothing crossing the other way: the storm may well go on. The
  // run neither counts nor ends here; its age is measured in time, so it still grows.
  if (poll.verdict == PollVerdict::unknown && poll.unknown_reason == UnknownReason::slow_read) {
    // Outside a run it may hold a storm's beginning: its paused time is the lead-in, as for a
    // healthy poll, or adds to it when it may have been paused throughout.
    if (stormed_polls_ == 0) {
      const uint64_t paused = poll.pause_duration_us.value_or(0);
      const Clock::duration tail = capped_us(paused, poll.longest);
      lead_in_ = covers_99_percent(paused, poll.shortest) ? lead_in_ + tail : tail;
    }
    return;
  }
  if (poll.verdict != PollVerdict::stormed) {
    const bool nic_event = poll.direction == Direction::tx && poll.storm_error_events &&
                           *poll.storm_error_events > 0 &&
                           (poll.pause_duration_us.value_or(0) > 0 || stormed_polls_ > 0);
    if (nic_event) {
      // The pause this poll saw ran from its start until the NIC gave up.
      detect(poll, stormed_polls_ > 0 ? onset_ : poll.earlier_latest - lead_in_, true, events);
      return;
    }
    accumulated_ = Clock::duration::zero();
    stormed_polls_ = 0;
    // A healthy poll's pause may be the start of a storm: its paused time, at most the interval,
    // is the lead-in a following stormed run begins with.
    // (Capped by the longest span the readings allow: after a stalled read the midpoints'
    // interval is shorter than what the counter measured.)
    lead_in_ = poll.verdict == PollVerdict::healthy && poll.pause_duration_us
                   ? capped_us(*poll.pause_duration_us, poll.longest)
                   : Clock::duration::zero();
    return;
  }
  // The onset at its latest, the poll at its earliest: the age is never more than the storm's.
  if (stormed_polls_ == 0) onset_ = poll.earlier_latest - lead_in_;
  accumulated_ += poll.interval;
  ++stormed_polls_;
  // The NIC gave up within this poll's last 1 %: the polls after it no longer pause, so this is
  // the detection (by the NIC) or there is none.
  if (poll.direction == Direction::tx && poll.storm_error_events.value_or(0) > 0) {
    detect(poll, onset_, true, events);
    return;
  }
  if (poll.later_earliest - onset_ < settings_.detection_time || stormed_polls_ < 2) return;
  detect(poll, onset_, false, events);
}

void StormDetector::detect(const StormEvidence& poll, Clock::time_point onset, bool by_nic,
                           std::vector<StormEvent>& events) {
  state_ = StormState::storming;
  onset_ = onset;
  restoration_time_ = backoff_.on_detected(poll.at);
  restore_from_ = poll.at;
  // Pausing until now, as far as anyone can tell; a NIC that gave up did so where its counter
  // stopped.
  last_pause_.reset();
  note_pauses(poll);
  if (!last_pause_) last_pause_ = poll.at;
  verification_.reset();
  events.push_back(StormDetected{poll.at, onset, poll.later_earliest - onset, accumulated_,
                                 stormed_polls_, by_nic, restoration_time_,
                                 backoff_.last_was_recurrence(), poll});
}

void StormDetector::verify(const StormEvidence& poll, std::vector<StormEvent>& events) {
  if (!verification_ || poll.at <= verification_->action_at) return;
  std::optional<WithoutPfc> seen;
  if (poll.verdict == PollVerdict::stormed) {
    seen = WithoutPfc::still_paused;
  } else if (poll.verdict == PollVerdict::healthy) {
    seen = WithoutPfc::stopped;
  } else if (poll.unknown_reason == UnknownReason::missing_counter) {
    // PFC off on the priority: mlx5 lists no pause counters for it; the MAC still tells.
    seen = storm_without_pfc(poll);
  }
  if (!seen) return;
  Verification& v = *verification_;
  ++v.polls;
  if (*seen == WithoutPfc::still_paused) ++v.stormed_polls;
  if (*seen == WithoutPfc::stopped) ++v.stopped_polls;
  if (v.polls < settings_.verify_polls) return;

  if (*seen == WithoutPfc::still_paused) {
    events.push_back(RemediationFailed{poll.at, v.action_at, v.polls, v.stormed_polls, poll});
  } else if (v.stopped_polls > 0) {
    events.push_back(RemediationVerified{poll.at, v.action_at, v.polls});
  } else {
    events.push_back(RemediationUnverified{poll.at, v.action_at, v.polls, poll});
  }
  verification_.reset();
}

void StormDetector::restore(const StormEvidence& poll, std::vector<StormEvent>& events) {
  const Clock::time_point quiet_since = std::max(restore_from_, *last_pause_);
  if (poll.later_earliest - quiet_since < restoration_time_) return;

  if (verification_) {  // quiet for the whole restoration time: the action worked
    events.push_back(RemediationVerified{poll.at, verification_->action_at, verification_->polls});
    verification_.reset();
  }
  events.push_back(StormRestored{poll.at, poll.interval, *last_pause_, *last_pause_ - onset_,
                                 restoration_time_});
  backoff_.on_restored(poll.at);
  state_ = StormState::watching;
  accumulated_ = Clock::duration::zero();
  stormed_polls_ = 0;
  lead_in_ = Clock::duration::zero();
}

}  // namespace roced::watchdog
