// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one rule for how a NIC counter moved between two readings, for every place roced takes a
// difference of counters (the storm watchdog's deltas, the statistics poller's log, the exporter's
// totals). Some mlx5 counters are 32-bit in firmware and wrap at 2^32 (which ones: the tables in
// ethtool/ethtool_names.hpp and telemetry/wrap.hpp, each citing its driver source); the others
// are 64-bit and never wrap in a NIC's life.
//
// A counter that did not go down advanced by the difference. One that went down:
//  - 64-bit (or a value that does not fit 32 bits): a reset to zero (a driver reload, a clear).
//  - 32-bit: a wrap (the difference mod 2^32) when its last value was in its upper half (>= 2^31)
//    and no 64-bit counter of the same reading went down; otherwise a reset. A reset zeroes the
//    counters together (a driver reload frees the queue counters and the software ones with it),
//    so a 64-bit one dropping beside it says reset; and no counter of these climbs 2^31 between
//    two readings seconds apart, so one dropping from its lower half was reset, not wrapped.
//    Counting a reset as a wrap would invent ~4 billion events.
// A reset's count since it is the new value (what the counter counted since it restarted).

#include <cstddef>
#include <cstdint>
#include <span>

namespace roced {

// `gauge`: no counter at all but the firmware's figure for a recent span (mlx5's
// outbound_pci_stalled_{rd,wr}, the share of the last second stalled): it goes up and down and is
// never differenced.
enum class CounterWidth : uint8_t { bits32, bits64, gauge };
enum class CounterChange : uint8_t { advanced, wrapped, reset };

struct CounterStep {
  CounterChange change = CounterChange::advanced;
  uint64_t delta = 0;  // events counted between the readings
  bool operator==(const CounterStep&) const = default;
};

// `reading_reset`: a 64-bit counter of the same reading went down (the whole reading restarted).
constexpr CounterStep counter_step(uint64_t before, uint64_t after, CounterWidth width,
                                   bool reading_reset = false) {
  constexpr uint64_t kTwoTo32 = uint64_t{1} << 32;
  constexpr uint64_t kTwoTo31 = uint64_t{1} << 31;
  if (width == CounterWidth::gauge) return {CounterChange::advanced, 0};
  if (after >= before) return {CounterChange::advanced, after - before};
  if (width == CounterWidth::bits32 && !reading_reset && before >= kTwoTo31 && before < kTwoTo32 &&
      after < kTwoTo32) {
    return {CounterChange::wrapped, after + kTwoTo32 - before};
  }
  return {CounterChange::reset, after};
}

// Whether a 64-bit counter went down between two readings of the same counters (the same
// names in the same order; `widths` has one entry per counter): the evidence counter_step takes.
constexpr bool reading_reset(std::span<const CounterWidth> widths, std::span<const uint64_t> before,
                             std::span<const uint64_t> after) {
  if (before.size() != after.size() || widths.size() != after.size()) return false;
  for (size_t i = 0; i < after.size(); ++i) {
    if (widths[i] == CounterWidth::bits64 && after[i] < before[i]) return true;
  }
  return false;
}

}  // namespace roced
