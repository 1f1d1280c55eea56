// SPDX-License-Identifier: Apache-2.0
#include "telemetry/wrap.hpp"

#include <array>

namespace roced::telemetry {

CounterWidth hw_counter_width(std::string_view name) {
  // drivers/infiniband/hw/mlx5/counters.c: congestion and PPCNT counters are read as 64-bit,
  // Q counters as 32-bit.
  static constexpr std::array<std::string_view, 5> k64bit = {
      "np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored",
      "rx_icrc_encapsulated"};
  for (const auto wide : k64bit) {
    if (name == wide) return CounterWidth::bits64;
  }
  return CounterWidth::bits32;
}

uint64_t CounterAccumulator::feed(uint64_t raw, bool reading_reset) {
  if (!last_) {
    total_ = raw;
  } else {
    const CounterStep step = counter_step(*last_, raw, width_, reading_reset);
    total_ += step.delta;
    if (step.change == CounterChange::wrapped) ++wraps_;
    if (step.change == CounterChange::reset) ++resets_;
  }
  last_ = raw;
  return total_;
}

}  // namespace roced::telemetry
