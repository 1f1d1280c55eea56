// SPDX-License-Identifier: Apache-2.0
#include "telemetry/wrap.hpp"

#include <array>

namespace roced::telemetry {

namespace {
constexpr uint64_t kTwoTo32 = uint64_t{1} << 32;
// A 32-bit counter that drops from its upper half wrapped; from lower down it was reset.
constexpr uint64_t kTwoTo31 = uint64_t{1} << 31;
}  // namespace

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

uint64_t CounterAccumulator::feed(uint64_t raw) {
  if (!last_) {
    total_ = raw;
  } else if (raw >= *last_) {
    total_ += raw - *last_;
  } else if (width_ == CounterWidth::bits32 && *last_ >= kTwoTo31 && *last_ < kTwoTo32 &&
             raw < kTwoTo32) {
    total_ += raw + kTwoTo32 - *last_;
    ++wraps_;
  } else {
    total_ += raw;
    ++resets_;
  }
  last_ = raw;
  return total_;
}

}  // namespace roced::telemetry
