// SPDX-License-Identifier: Apache-2.0
#pragma once
// One poll's storm evidence for one lossless priority and direction of a port, read from two
// consecutive readings of that port's counters.
//
//   RX storm (the switch pauses us): rx_prio{p}_pause_duration grew by >= 99 % of the interval
//     and tx_prio{p}_packets did not move.
//   TX storm (we pause the switch): tx_prio{p}_pause_duration grew by >= 99 % of the interval
//     and rx_prio{p}_packets did not move.
//
// The interval is measured between the readings, never the nominal poll: a late poll must not turn
// congestion into a storm (SONiC's watchdog on Mellanox switches did). It is judged at its
// shortest: each reading took its snapshot somewhere within its read time, so the counters may span
// up to half of both read times less than the readings' midpoints do; a 10 ms poll has only 100 us
// of slack in 1 %. 95 % paused while still sending is congestion, not a storm. A poll that cannot
// be judged (a needed counter absent, any counter read here lower than before = driver reload or a
// wrap, an interval <= 0) is `unknown`: the detector never counts it toward detection. Slow reads
// only widen the bounds (the shortest span shrinks, and the rule is taken against it); a poll is
// unknown for its timing only when less than half its interval is certain, unless traffic crossed
// the other way (then it is healthy whatever the timing).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "util/enum_names.hpp"
#include "watchdog/pause_counters.hpp"

namespace roced::watchdog {

enum class PollVerdict { stormed, healthy, unknown };
enum class UnknownReason {
  none,
  missing_counter,  // absent from either reading (mlx5 lists pause counters only with PFC on)
  counter_reset,    // lower than in the previous reading: a driver reload, or a wrap
  bad_interval,     // the later reading is not later
  slow_read,        // the reads blur more than half the interval: nothing left to judge
  other_port,       // the two readings are of different netdevs
  link_down,        // no carrier at either reading: quiet counters say nothing of the storm
};
inline constexpr auto kVerdictNames = enum_names<PollVerdict>({{PollVerdict::stormed, "stormed"},
                                                               {PollVerdict::healthy, "healthy"},
                                                               {PollVerdict::unknown, "unknown"}});
static_assert(kVerdictNames.covers<PollVerdict::unknown>(), "name every PollVerdict");
inline constexpr auto kReasonNames = enum_names<UnknownReason>({
    {UnknownReason::none, "none"},
    {UnknownReason::missing_counter, "missing counter"},
    {UnknownReason::counter_reset, "counter reset"},
    {UnknownReason::bad_interval, "interval not positive"},
    {UnknownReason::slow_read, "counters read too slowly for the interval"},
    {UnknownReason::other_port, "samples of different ports"},
    {UnknownReason::link_down, "the link is down"},
});
static_assert(kReasonNames.covers<UnknownReason::link_down>(), "name every UnknownReason");

struct StormEvidence {
  int priority = 0;
  Direction direction = Direction::rx;
  Clock::time_point at;          // the later reading's time: when the poll happened
  Clock::duration interval{0};   // measured: later.at - earlier.at
  Clock::duration shortest{0};   // the least time the counters can have spanned
  Clock::time_point earlier_at;  // the earlier reading's time
  // The span at its shortest: the earlier snapshot at its latest, this one at its earliest
  // (later_earliest - earlier_latest == shortest). Storm ages and quiet times are measured on it,
  // so neither is ever longer than the counters allow.
  Clock::time_point earlier_latest;
  Clock::time_point later_earliest;
  // The span at its longest (earlier snapshot at its earliest, this one at its latest): no pause
  // measured over it can have lasted longer.
  Clock::duration longest{0};
  PollVerdict verdict = PollVerdict::unknown;
  UnknownReason unknown_reason = UnknownReason::none;
  std::string unknown_counter;  // the absent or reset counter, for the log

  // Deltas over the interval; empty when the counter is absent from either reading or reset.
  std::optional<uint64_t> pause_duration_us;  // {dir}_prio{p}_pause_duration
  std::optional<uint64_t> pause_frames;       // {dir}_prio{p}_pause
  // With PFC off on the priority: its own frames as dcbnl getpfc counts them (dcb_pause_frames).
  std::optional<uint64_t> dcb_pause_frames;
  std::optional<uint64_t> port_pause_frames;  // {dir}_pause_ctrl_phy: every priority of the port
  std::optional<uint64_t> opposite_packets;   // {other dir}_prio{p}_packets
  // TX only: what the stalled receive side dropped on the priority (rx_prio{p}_discards). Once
  // the NIC no longer pauses (PFC off, or its stall prevention gave up) the drops are the storm's
  // trace: a TX storm is not over while they go on.
  std::optional<uint64_t> receive_discards;
  // TX only, and only where the firmware has them (device-wide, no priority).
  std::optional<uint64_t> storm_warning_events;  // tx_pause_storm_warning_events
  std::optional<uint64_t> storm_error_events;    // tx_pause_storm_error_events
};

StormEvidence read_storm_evidence(const PauseCounters& earlier, const PauseCounters& later,
                                  int priority, Direction direction);

// Pause frames received (rx) or sent (tx) this poll, as the restoration clock needs them: the
// priority's own counter while mlx5 lists it (PFC on), else its count as dcbnl getpfc reports it,
// else the port's MAC count, which counts every priority's frames (a storm on another priority
// would keep this one lossy). Empty when none is known.
std::optional<uint64_t> restoration_pause_frames(const StormEvidence& evidence);

// With PFC off on the priority (its pause counters unlisted, as after disable-pfc), what one
// poll says of the storm's signal, from the priority's pause frames (getpfc's count, else the
// port's MAC count) and the packets the other way:
//   stopped       no pause frame, or packets cross the other way despite them;
//   still_paused  TX: we still send pause frames while nothing arrives on the priority;
//   nothing_sent  RX: pause frames still arrive (PFC off does not stop the switch sending them,
//                 the NIC only ignores them) and the port sent nothing on the priority. A port
//                 with nothing to send looks exactly like one whose transmit is still stalled:
//                 the counters cannot tell the two apart.
// Empty when the counters needed are not there.
enum class WithoutPfc { stopped, still_paused, nothing_sent };
std::optional<WithoutPfc> storm_without_pfc(const StormEvidence& evidence);

// Whether `paused_us` covers at least 99 % of `interval` (exact integer arithmetic).
bool covers_99_percent(uint64_t paused_us, Clock::duration interval);

std::string_view verdict_name(PollVerdict verdict);  // "stormed", "healthy", "unknown"
std::string_view reason_name(UnknownReason reason);  // "missing counter", ...

}  // namespace roced::watchdog
