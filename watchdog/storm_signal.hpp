#pragma once
// One poll's storm evidence for one lossless priority and direction of a port, read from two
// consecutive samples of that port.
//
//   RX storm (the switch pauses us): rx_prio{p}_pause_duration grew by >= 99 % of the measured
//     interval and tx_prio{p}_packets did not move.
//   TX storm (we pause the switch): tx_prio{p}_pause_duration grew by >= 99 % of the measured
//     interval and rx_prio{p}_packets did not move.
//
// The interval is the difference of the samples' `at`, never the nominal poll: a late poll must
// not turn congestion into a storm (SONiC issue 1535). 95 % paused while still sending is
// congestion, not a storm. A poll that cannot be judged (a needed counter absent, any counter read
// here lower than before = driver reload or reset, an interval <= 0) is `unknown`: the detector
// never counts it toward detection. mlx5's ethtool counters are 64-bit: a decrease is a reset,
// never a wrap.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "telemetry/ethtool_names.hpp"
#include "telemetry/sample.hpp"

namespace roced::watchdog {

using Clock = std::chrono::steady_clock;
using telemetry::Direction;  // rx: the peer pauses us; tx: we pause the peer

enum class PollVerdict { stormed, healthy, unknown };
enum class UnknownReason {
  none,
  missing_counter,  // absent from either sample (mlx5 lists pause counters only with PFC on)
  counter_reset,    // lower than in the previous sample
  bad_interval,     // the later sample is not later
  other_port,       // the two samples are of different netdevs
};

struct StormEvidence {
  int priority = 0;
  Direction direction = Direction::rx;
  Clock::time_point at;      // the later sample's time: when the poll happened
  Clock::duration interval;  // measured: later.at - earlier.at
  PollVerdict verdict = PollVerdict::unknown;
  UnknownReason unknown_reason = UnknownReason::none;
  std::string unknown_counter;  // the absent or reset counter, for the log

  // Deltas over the interval; empty when the counter is absent from either sample or reset.
  std::optional<uint64_t> pause_duration_us;  // {dir}_prio{p}_pause_duration
  std::optional<uint64_t> pause_frames;       // {dir}_prio{p}_pause
  std::optional<uint64_t> port_pause_frames;  // {dir}_pause_ctrl_phy: every priority of the port
  std::optional<uint64_t> opposite_packets;   // {other dir}_prio{p}_packets
  // TX only, and only where the firmware has them: reported, never required (storm_signal.cpp).
  std::optional<uint64_t> storm_warning_events;  // tx_pause_storm_warning_events
  std::optional<uint64_t> storm_error_events;    // tx_pause_storm_error_events
};

StormEvidence read_storm_evidence(const telemetry::PortSample& earlier,
                                  const telemetry::PortSample& later, int priority,
                                  Direction direction);

// Pause frames received (rx) or sent (tx) this poll, as the restoration clock needs them: the
// priority's own counter while mlx5 lists it (PFC on), else the port's MAC count, which still
// counts the frames after PFC was turned off on the priority. Empty when neither is known.
std::optional<uint64_t> restoration_pause_frames(const StormEvidence& evidence);

// Whether `paused_us` covers at least 99 % of `interval` (exact integer arithmetic).
bool covers_99_percent(uint64_t paused_us, Clock::duration interval);

std::string_view verdict_name(PollVerdict verdict);  // "stormed", "healthy", "unknown"
std::string_view reason_name(UnknownReason reason);  // "missing counter", ...

}  // namespace roced::watchdog
