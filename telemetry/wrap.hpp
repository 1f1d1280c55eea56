// SPDX-License-Identifier: Apache-2.0
#pragma once
// Monotonic 64-bit totals from raw counter readings. mlx5's RDMA Q counters (out_of_sequence,
// packet_seq_err, req_*/resp_* errors, ...) are 32-bit in firmware and wrap at 2^32
// (counters.c: mlx5_ib_query_q_counters); the congestion counters (np_cnp_sent,
// rp_cnp_handled, ...) are 64-bit (lag/lag.c: mlx5_lag_query_cong_counters).
//
// The rule when a raw reading is lower than the previous one:
//  - 32-bit counter whose last reading was in its upper half (>= 2^31): a wrap; the total
//    advances by raw + 2^32 - last.
//  - anything else (a 32-bit counter dropping from lower down, a 64-bit counter, a reading that
//    does not fit 32 bits): a reset to zero (a driver reload); the total advances by raw (what
//    the counter counted since it restarted), and resets() goes up. Counting a reset from a low
//    value as a wrap would invent ~4 billion events and spike every rate() graph; between two
//    samples seconds apart, an error counter cannot climb half of 2^32.
// Either way the total never goes backwards, which is what a Prometheus counter needs.

#include <cstdint>
#include <optional>
#include <string_view>

namespace roced::telemetry {

enum class CounterWidth { bits32, bits64 };

// The width of an mlx5 hw_counters file by name: the congestion counters and
// rx_icrc_encapsulated are 64-bit; every other (Q counter) is 32-bit.
CounterWidth hw_counter_width(std::string_view name);

class CounterAccumulator {
 public:
  explicit CounterAccumulator(CounterWidth width) : width_(width) {}

  // Takes the next raw reading and returns the running total. The first reading is the
  // baseline: the total starts at it (the counter's own value), not at zero.
  uint64_t feed(uint64_t raw);

  uint64_t total() const { return total_; }
  uint64_t wraps() const { return wraps_; }
  uint64_t resets() const { return resets_; }

 private:
  CounterWidth width_;
  std::optional<uint64_t> last_;
  uint64_t total_ = 0;
  uint64_t wraps_ = 0;
  uint64_t resets_ = 0;
};

}  // namespace roced::telemetry
