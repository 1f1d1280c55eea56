// SPDX-License-Identifier: Apache-2.0
#pragma once
// mlx5 `ethtool -S` names -> (metric, priority, direction), so the exporter can put priority and
// direction in labels instead of in the metric name. Names follow the kernel's
// drivers/net/ethernet/mellanox/mlx5/core/en_stats.c: "<rx|tx>_prio<N>_<what>" per priority, and
// a few port-level "<rx|tx>_<what>" names. Anything else (per-channel "rx0_*", software
// counters, other drivers' names) is not parsed: the caller ignores it.

#include <optional>
#include <string>
#include <string_view>

namespace roced {

enum class Direction { rx, tx };
enum class CounterUnit { count, bytes, microseconds };

struct EthtoolCounterName {
  std::string metric;           // "pause", "pause_duration", "discards_phy", ...
  std::optional<int> priority;  // 0..7 for per-priority counters, empty for port-level ones
  Direction direction = Direction::rx;
  CounterUnit unit = CounterUnit::count;  // pause durations are in microseconds on mlx5

  bool operator==(const EthtoolCounterName&) const = default;
};

std::optional<EthtoolCounterName> parse_ethtool_name(std::string_view name);

std::string_view direction_name(Direction direction);  // "rx" / "tx"

}  // namespace roced
