// SPDX-License-Identifier: Apache-2.0
#include "daemon/watchdog/storm_log.hpp"

#include <chrono>

namespace roced::watchdog {

namespace {

std::string count(const std::optional<uint64_t>& value) {
  return value ? std::to_string(*value) : "n/a";
}

}  // namespace

std::string storm_place(int priority, watchdog::Direction direction) {
  return "priority " + std::to_string(priority) + " " +
         (direction == watchdog::Direction::rx ? "RX (the switch pauses us)"
                                               : "TX (we pause the switch)");
}

std::string ms_text(watchdog::Clock::duration duration) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(duration).count()) +
         " ms";
}

std::string evidence_text(const watchdog::StormEvidence& poll) {
  const bool rx = poll.direction == watchdog::Direction::rx;
  const std::string dir = rx ? "rx" : "tx";
  const std::string other = rx ? "tx" : "rx";
  const std::string p = std::to_string(poll.priority);
  std::string text;
  if (poll.pause_duration_us) {
    text = dir + "_prio" + p + "_pause_duration +" + count(poll.pause_duration_us) + " us in " +
           std::to_string(
               std::chrono::duration_cast<std::chrono::microseconds>(poll.interval).count()) +
           " us, " + dir + "_prio" + p + "_pause +" + count(poll.pause_frames);
  } else {
    // PFC off on the priority: mlx5 lists no pause counters for it; the MAC still counts.
    text = dir + "_pause_ctrl_phy +" + count(poll.port_pause_frames) + " in " +
           std::to_string(
               std::chrono::duration_cast<std::chrono::microseconds>(poll.interval).count()) +
           " us";
  }
  text += ", " + other + "_prio" + p + "_packets +" + count(poll.opposite_packets);
  if (poll.storm_error_events && *poll.storm_error_events > 0) {
    text += ", tx_pause_storm_error_events +" + count(poll.storm_error_events);
  }
  if (poll.verdict == watchdog::PollVerdict::unknown) {
    text += " (" + std::string(watchdog::reason_name(poll.unknown_reason)) +
            (poll.unknown_counter.empty() ? "" : ": " + poll.unknown_counter) + ")";
  }
  return text;
}

}  // namespace roced::watchdog
