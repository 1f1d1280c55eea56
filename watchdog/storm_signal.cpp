#include "watchdog/storm_signal.hpp"

namespace roced::watchdog {

namespace {

using telemetry::PortSample;

std::string prio_counter(Direction direction, int priority, std::string_view what) {
  return std::string(telemetry::direction_name(direction)) + "_prio" + std::to_string(priority) +
         "_" + std::string(what);
}

Direction opposite(Direction direction) {
  return direction == Direction::rx ? Direction::tx : Direction::rx;
}

// Reads one counter's delta and records the first reason the poll cannot be judged.
class DeltaReader {
 public:
  DeltaReader(const PortSample& earlier, const PortSample& later, StormEvidence& evidence)
      : earlier_(earlier), later_(later), evidence_(evidence) {}

  // `required`: an absent counter makes the poll unknown. Optional ones are reported when there.
  // A reset makes the poll unknown either way: both samples straddle a driver reload.
  std::optional<uint64_t> delta(const std::string& name, bool required) {
    const auto before = earlier_.ethtool.find(name);
    const auto after = later_.ethtool.find(name);
    if (before == earlier_.ethtool.end() || after == later_.ethtool.end()) {
      if (required) mark(UnknownReason::missing_counter, name);
      return std::nullopt;
    }
    if (after->second < before->second) {
      mark(UnknownReason::counter_reset, name);
      return std::nullopt;
    }
    return after->second - before->second;
  }

  void mark(UnknownReason reason, const std::string& counter) {
    if (evidence_.unknown_reason != UnknownReason::none) return;
    evidence_.unknown_reason = reason;
    evidence_.unknown_counter = counter;
  }

 private:
  const PortSample& earlier_;
  const PortSample& later_;
  StormEvidence& evidence_;
};

}  // namespace

bool covers_99_percent(uint64_t paused_us, Clock::duration interval) {
  const auto interval_ns =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(interval).count());
  // floor(0.99 x interval), without overflowing for any interval.
  const uint64_t needed_ns = interval_ns / 100 * 99 + interval_ns % 100 * 99 / 100;
  if (paused_us > needed_ns / 1000) return true;  // also keeps the product below from overflowing
  return paused_us * 1000 >= needed_ns;
}

StormEvidence read_storm_evidence(const PortSample& earlier, const PortSample& later, int priority,
                                  Direction direction) {
  StormEvidence evidence;
  evidence.priority = priority;
  evidence.direction = direction;
  evidence.at = later.at;
  evidence.interval = later.at - earlier.at;

  DeltaReader reader(earlier, later, evidence);
  if (earlier.netdev != later.netdev) reader.mark(UnknownReason::other_port, later.netdev);
  if (evidence.interval <= Clock::duration::zero()) reader.mark(UnknownReason::bad_interval, "");

  evidence.pause_duration_us =
      reader.delta(prio_counter(direction, priority, "pause_duration"), true);
  evidence.opposite_packets =
      reader.delta(prio_counter(opposite(direction), priority, "packets"), true);
  // Frames matter for restoration, not for the verdict (the duration is the storm's measure).
  evidence.pause_frames = reader.delta(prio_counter(direction, priority, "pause"), false);
  evidence.port_pause_frames =
      reader.delta(std::string(telemetry::direction_name(direction)) + "_pause_ctrl_phy", false);
  if (direction == Direction::tx) {
    // The NIC's stall-prevention events are evidence we report, neither required nor sufficient:
    // they exist only with firmware support and stall prevention on, the warning fires at 85 % of
    // the timeout (firmware default 8 s: far later than our detection), they are device-wide (no
    // priority), and the error event means the NIC has already stopped pausing, which the
    // duration rule sees by itself.
    evidence.storm_warning_events = reader.delta("tx_pause_storm_warning_events", false);
    evidence.storm_error_events = reader.delta("tx_pause_storm_error_events", false);
  }

  if (evidence.unknown_reason != UnknownReason::none) {
    evidence.verdict = PollVerdict::unknown;
  } else if (covers_99_percent(*evidence.pause_duration_us, evidence.interval) &&
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
      evidence.unknown_reason == UnknownReason::other_port) {
    return std::nullopt;  // the deltas span a reset or no time: they prove nothing
  }
  return evidence.pause_frames ? evidence.pause_frames : evidence.port_pause_frames;
}

std::string_view verdict_name(PollVerdict verdict) {
  switch (verdict) {
    case PollVerdict::stormed:
      return "stormed";
    case PollVerdict::healthy:
      return "healthy";
    case PollVerdict::unknown:
      break;
  }
  return "unknown";
}

std::string_view reason_name(UnknownReason reason) {
  switch (reason) {
    case UnknownReason::none:
      return "none";
    case UnknownReason::missing_counter:
      return "missing counter";
    case UnknownReason::counter_reset:
      return "counter reset";
    case UnknownReason::bad_interval:
      return "interval not positive";
    case UnknownReason::other_port:
      break;
  }
  return "samples of different ports";
}

}  // namespace roced::watchdog
