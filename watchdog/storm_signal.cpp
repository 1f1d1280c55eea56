// SPDX-License-Identifier: Apache-2.0
#include "watchdog/storm_signal.hpp"

#include "util/counter_step.hpp"

namespace roced::watchdog {

namespace {

Direction opposite(Direction direction) {
  return direction == Direction::rx ? Direction::tx : Direction::rx;
}

std::string counter_name(Direction direction, int priority, std::string_view what) {
  return std::string(roced::direction_name(direction)) + "_prio" + std::to_string(priority) + "_" +
         std::string(what);
}

// Reads one counter's delta and records the first reason the poll cannot be judged. Names are
// only built for the log when something is wrong: this runs for every watched priority each poll.
class DeltaReader {
 public:
  explicit DeltaReader(StormEvidence& evidence) : evidence_(evidence) {}

  // `required`: an absent counter makes the poll unknown. Optional ones are reported when there.
  // A decrease makes the poll unknown either way: the pause counters are PPCNT's 64-bit ones
  // (en_stats.c pport_per_prio_pfc_stats_desc, MLX5E_READ_CTR64_BE), so by
  // util/counter_step.hpp's rule it is a reset (a driver reload) and no delta across it can be
  // trusted.
  template <class Name>
  std::optional<uint64_t> delta(const std::optional<uint64_t>& before,
                                const std::optional<uint64_t>& after, bool required, Name name) {
    if (!before || !after) {
      if (required) mark(UnknownReason::missing_counter, name());
      return std::nullopt;
    }
    const CounterStep step = counter_step(*before, *after, CounterWidth::bits64);
    if (step.change != CounterChange::advanced) {
      mark(UnknownReason::counter_reset, name());
      return std::nullopt;
    }
    return step.delta;
  }

  // The first reason stays, but for a slow read: that only loosens the timing, and whatever
  // else is wrong with the poll (a reset, above all, which must end a storm run) says more.
  void mark(UnknownReason reason, std::string counter) {
    if (evidence_.unknown_reason != UnknownReason::none &&
        evidence_.unknown_reason != UnknownReason::slow_read) {
      return;
    }
    evidence_.unknown_reason = reason;
    evidence_.unknown_counter = std::move(counter);
  }

 private:
  StormEvidence& evidence_;
};

}  // namespace

bool covers_99_percent(uint64_t paused_us, Clock::duration interval) {
  if (interval <= Clock::duration::zero()) return false;
  const auto interval_ns =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(interval).count());
  // floor(0.99 x interval), without overflowing for any interval.
  const uint64_t needed_ns = interval_ns / 100 * 99 + interval_ns % 100 * 99 / 100;
  if (paused_us > needed_ns / 1000) return true;  // also keeps the product below from overflowing
  return paused_us * 1000 >= needed_ns;
}

StormEvidence read_storm_evidence(const PauseCounters& earlier, const PauseCounters& later,
                                  int priority, Direction direction) {
  StormEvidence evidence;
  evidence.priority = priority;
  evidence.direction = direction;
  evidence.at = later.at;
  evidence.earlier_at = earlier.at;
  evidence.interval = later.at - earlier.at;
  evidence.earlier_latest = earlier.at + earlier.read_time / 2;
  evidence.later_earliest = later.at - later.read_time / 2;
  evidence.shortest = evidence.later_earliest - evidence.earlier_latest;
  evidence.longest = evidence.interval + (earlier.read_time + later.read_time) / 2;

  DeltaReader reader(evidence);
  // First: while the link trains (after disable-pfc's own flap, say) no pause can arrive, so a
  // quiet poll is no sign that the storm ended.
  if (earlier.carrier == false || later.carrier == false) {
    reader.mark(UnknownReason::link_down, later.netdev);
  }
  if (earlier.netdev != later.netdev) reader.mark(UnknownReason::other_port, later.netdev);
  // A slow read widens the span the snapshots may be apart (shortest..longest) and the 99 % rule
  // is taken against the shortest, so the poll is still judged; only reads that leave less than
  // half the interval certain say too little to judge.
  if (evidence.interval <= Clock::duration::zero()) {
    reader.mark(UnknownReason::bad_interval, "");
  } else if (evidence.shortest * 2 < evidence.interval) {
    reader.mark(UnknownReason::slow_read, "");
  }

  const DirectionCounters& before = earlier.of(priority, direction);
  const DirectionCounters& after = later.of(priority, direction);
  const Direction other = opposite(direction);
  evidence.pause_duration_us =
      reader.delta(before.pause_duration_us, after.pause_duration_us, true,
                   [&] { return counter_name(direction, priority, "pause_duration"); });
  evidence.opposite_packets =
      reader.delta(earlier.of(priority, other).packets, later.of(priority, other).packets, true,
                   [&] { return counter_name(other, priority, "packets"); });
  // Frames matter for restoration, not for the verdict (the duration is the storm's measure).
  evidence.pause_frames = reader.delta(before.pause_frames, after.pause_frames, false,
                                       [&] { return counter_name(direction, priority, "pause"); });
  evidence.dcb_pause_frames =
      reader.delta(before.dcb_pause_frames, after.dcb_pause_frames, false,
                   [&] { return counter_name(direction, priority, "pause (dcbnl getpfc)"); });
  const auto d = static_cast<size_t>(direction);
  evidence.port_pause_frames = reader.delta(
      earlier.mac_pause_frames[d], later.mac_pause_frames[d], false,
      [&] { return std::string(roced::direction_name(direction)) + "_pause_ctrl_phy"; });
  if (direction == Direction::tx) {
    evidence.receive_discards = reader.delta(
        earlier.of(priority, Direction::rx).discards, later.of(priority, Direction::rx).discards,
        false, [&] { return counter_name(Direction::rx, priority, "discards"); });
    // The NIC's stall-prevention events: they exist only with firmware support and stall
    // prevention on, and they are device-wide (no priority). The error event means the NIC has
    // stopped pausing on its own: the detector takes it as a TX storm the NIC saw first.
    evidence.storm_warning_events =
        reader.delta(earlier.storm_warning_events, later.storm_warning_events, false,
                     [] { return std::string("tx_pause_storm_warning_events"); });
    evidence.storm_error_events =
        reader.delta(earlier.storm_error_events, later.storm_error_events, false,
                     [] { return std::string("tx_pause_storm_error_events"); });
  }

  if (evidence.unknown_reason == UnknownReason::slow_read && evidence.opposite_packets &&
      *evidence.opposite_packets > 0 && evidence.pause_duration_us) {
    // The reads' timing is too loose for the 1 % rule, but traffic crossed: no storm, for sure.
    evidence.verdict = PollVerdict::healthy;
  } else if (evidence.unknown_reason != UnknownReason::none) {
    evidence.verdict = PollVerdict::unknown;
  } else if (covers_99_percent(*evidence.pause_duration_us, evidence.shortest) &&
             *evidence.opposite_packets == 0) {
    evidence.verdict = PollVerdict::stormed;
  } else {
    evidence.verdict = PollVerdict::healthy;
  }
  return evidence;
}

std::optional<uint64_t> restoration_pause_frames(const StormEvidence& evidence) {
  if (evidence.unknown_reason == UnknownReason::counter_reset ||
      evidence.unknown_reason == UnknownReason::bad_interval ||
      evidence.unknown_reason == UnknownReason::other_port ||
      evidence.unknown_reason == UnknownReason::link_down) {
    return std::nullopt;  // a reset, no time, or no link: the deltas prove nothing
  }
  if (evidence.pause_frames) return evidence.pause_frames;
  return evidence.dcb_pause_frames ? evidence.dcb_pause_frames : evidence.port_pause_frames;
}

std::optional<WithoutPfc> storm_without_pfc(const StormEvidence& evidence) {
  const auto& frames =
      evidence.dcb_pause_frames ? evidence.dcb_pause_frames : evidence.port_pause_frames;
  if (evidence.pause_duration_us || !frames || !evidence.opposite_packets) return std::nullopt;
  if (*frames == 0 || *evidence.opposite_packets > 0) return WithoutPfc::stopped;
  return evidence.direction == Direction::rx ? WithoutPfc::nothing_sent : WithoutPfc::still_paused;
}

std::string_view verdict_name(PollVerdict verdict) { return kVerdictNames.name(verdict); }

std::string_view reason_name(UnknownReason reason) {
  return kReasonNames.name(reason, "samples of different ports");
}

}  // namespace roced::watchdog
