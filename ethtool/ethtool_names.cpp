// SPDX-License-Identifier: Apache-2.0
#include "ethtool/ethtool_names.hpp"

#include <array>

namespace roced {

namespace {

struct Known {
  std::string_view what;
  CounterUnit unit;
};

// en_stats.c pport_per_prio_traffic_stats_desc, pport_per_prio_pfc_stats_desc and the
// per-priority buffer congestion counters.
constexpr std::array<Known, 9> kPerPriority = {{
    {"bytes", CounterUnit::bytes},
    {"packets", CounterUnit::count},
    {"discards", CounterUnit::count},
    {"pause", CounterUnit::count},
    {"pause_duration", CounterUnit::microseconds},
    {"pause_transition", CounterUnit::count},
    {"buf_discard", CounterUnit::count},
    {"cong_discard", CounterUnit::count},
    {"marked", CounterUnit::count},
}};

// Port-level names that matter for lossless: PHY discards, the receive queues' drops for want of
// a buffer (the Q counter rx_out_of_buffer), the NIC's own pause-storm events (stall
// prevention), and link-level (global) pause when PFC is off.
constexpr std::array<Known, 8> kPortLevel = {{
    {"discards_phy", CounterUnit::count},
    {"out_of_buffer", CounterUnit::count},
    {"pause_ctrl_phy", CounterUnit::count},
    {"pause_storm_warning_events", CounterUnit::count},
    {"pause_storm_error_events", CounterUnit::count},
    {"global_pause", CounterUnit::count},
    {"global_pause_duration", CounterUnit::microseconds},
    {"global_pause_transition", CounterUnit::count},
}};

template <size_t N>
const Known* find(const std::array<Known, N>& table, std::string_view what) {
  for (const auto& known : table) {
    if (known.what == what) return &known;
  }
  return nullptr;
}

}  // namespace

std::string_view direction_name(Direction direction) {
  return direction == Direction::rx ? "rx" : "tx";
}

std::optional<EthtoolCounterName> parse_ethtool_name(std::string_view name) {
  Direction direction;
  if (name.starts_with("rx_")) {
    direction = Direction::rx;
  } else if (name.starts_with("tx_")) {
    direction = Direction::tx;
  } else {
    return std::nullopt;
  }
  const std::string_view rest = name.substr(3);

  if (const Known* known = find(kPortLevel, rest)) {
    return EthtoolCounterName{std::string(known->what), std::nullopt, direction, known->unit};
  }

  // "prio<N>_<what>" with one digit 0..7: the kernel prints %d for 8 priorities, so "prio03"
  // or "prio8" is not one of its names.
  constexpr std::string_view kPrio = "prio";
  if (!rest.starts_with(kPrio) || rest.size() < kPrio.size() + 3) return std::nullopt;
  const char digit = rest[kPrio.size()];
  if (digit < '0' || digit > '7' || rest[kPrio.size() + 1] != '_') return std::nullopt;
  const Known* known = find(kPerPriority, rest.substr(kPrio.size() + 2));
  if (known == nullptr) return std::nullopt;
  return EthtoolCounterName{std::string(known->what), digit - '0', direction, known->unit};
}

}  // namespace roced
