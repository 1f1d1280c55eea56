#include "daemon/storms/storm_log.hpp"

#include <chrono>
#include <string>
#include <type_traits>
#include <variant>

namespace roced::storms {

namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

std::string ms(watchdog::Clock::duration duration) {
  return std::to_string(duration_cast<milliseconds>(duration).count()) + " ms";
}

std::string count(const std::optional<uint64_t>& value) {
  return value ? std::to_string(*value) : "n/a";
}

std::string evidence(const watchdog::StormEvidence& poll) {
  const bool rx = poll.direction == watchdog::Direction::rx;
  const std::string dir = rx ? "rx" : "tx";
  const std::string other = rx ? "tx" : "rx";
  const std::string p = std::to_string(poll.priority);
  return dir + "_prio" + p + "_pause_duration +" + count(poll.pause_duration_us) + " us in " +
         std::to_string(duration_cast<std::chrono::microseconds>(poll.interval).count()) + " us, " +
         dir + "_prio" + p + "_pause +" + count(poll.pause_frames) + ", " + other + "_prio" + p +
         "_packets +" + count(poll.opposite_packets);
}

}  // namespace

std::string describe(const watchdog::PortStormEvent& event) {
  const std::string where =
      "priority " + std::to_string(event.priority) + " " +
      (event.direction == watchdog::Direction::rx ? "RX (the switch pauses us)"
                                                  : "TX (we pause the switch)");
  return std::visit(
      [&](const auto& e) -> std::string {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, watchdog::StormDetected>) {
          return "PFC storm on " + where + ": paused for " + ms(e.accumulated) + " over " +
                 std::to_string(e.stormed_polls) + " polls" +
                 (e.recurrence ? " (recurred soon after the last one)" : "") +
                 "; last poll: " + evidence(e.evidence);
        } else if constexpr (std::is_same_v<E, watchdog::RemediationVerified>) {
          return "PFC storm on " + where + ": the remediation holds (" + std::to_string(e.polls) +
                 " polls since)";
        } else if constexpr (std::is_same_v<E, watchdog::RemediationFailed>) {
          return "PFC storm on " + where + ": the remediation did not stop it (" +
                 std::to_string(e.stormed_polls) + " of " + std::to_string(e.polls) +
                 " polls still stormed); last poll: " + evidence(e.evidence);
        } else {
          return "PFC storm on " + where + " ended: it lasted " + ms(e.storm_duration) + ", then " +
                 ms(e.restoration_time) + " without a pause frame";
        }
      },
      event.event);
}

}  // namespace roced::storms
