// SPDX-License-Identifier: Apache-2.0
#pragma once
// Monotonic 64-bit totals from raw counter readings. mlx5's RDMA Q counters (out_of_sequence,
// packet_seq_err, req_*/resp_* errors, ...) are 32-bit in firmware and wrap at 2^32
// (counters.c: mlx5_ib_query_q_counters); the congestion counters (np_cnp_sent,
// rp_cnp_handled, ...) are 64-bit (lag/lag.c: mlx5_lag_query_cong_counters). Of the ethtool
// statistics, the ones ethtool/ethtool_names.hpp lists (kMlx5Counters32) are 32-bit.
//
// Each reading advances the total by util/counter_step.hpp's step (wrap or reset, one rule for
// every counter difference roced takes); a reset's step is what the counter counted since it
// restarted, and resets() goes up. Either way the total never goes backwards, which is what a
// Prometheus counter needs.

#include <cstdint>
#include <optional>
#include <string_view>

#include "util/counter_step.hpp"

namespace roced::telemetry {

using ::roced::CounterWidth;

// The width of an mlx5 hw_counters file by name: the congestion counters and
// rx_icrc_encapsulated are 64-bit; every other (Q counter) is 32-bit.
CounterWidth hw_counter_width(std::string_view name);

class CounterAccumulator {
 public:
  explicit CounterAccumulator(CounterWidth width) : width_(width) {}

  // Takes the next raw reading and returns the running total. The first reading is the
  // baseline: the total starts at it (the counter's own value), not at zero. `reading_reset`: a
  // 64-bit counter read with this one went down (counter_step).
  uint64_t feed(uint64_t raw, bool reading_reset = false);

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
