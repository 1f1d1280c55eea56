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

#include "util/counter_step.hpp"

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

// The `ethtool -S` names mlx5 reads as 32-bit firmware counters, which wrap at 2^32, by the group
// of drivers/net/ethernet/mellanox/mlx5/core/en_stats.c that fills them (Debian's 6.1.192
// source); the two gauges below are no counters, and every other mlx5 name is 64-bit.
// util/counter_step.hpp says how a difference of them is taken.
struct Counter32 {
  std::string_view name;
  std::string_view group;  // en_stats.c's descriptor table and the macro that reads it
};
inline constexpr Counter32 kMlx5Counters32[] = {
    // struct mlx5e_qcounter_stats holds u32s, read by MLX5E_READ_CTR32_CPU.
    {"rx_out_of_buffer", "q_stats_desc, MLX5E_READ_CTR32_CPU"},
    {"rx_if_down_packets", "drop_rq_stats_desc, MLX5E_READ_CTR32_CPU"},
    // QUERY_VNIC_ENV: only the steering discard is read as 64-bit.
    {"dev_internal_queue_oob", "vnic_env_stats_dev_oob_desc, MLX5E_READ_CTR32_BE"},
    {"rx_oversize_pkts_buffer", "vnic_env_stats_drop_desc, MLX5E_READ_CTR32_BE"},
    // MPCNT's PCIe performance group; outbound_pci_buffer_overflow is pcie_perf_stats_desc64,
    // read by MLX5E_READ_CTR64_BE: 64-bit.
    {"rx_pci_signal_integrity", "pcie_perf_stats_desc, MLX5E_READ_CTR32_BE"},
    {"tx_pci_signal_integrity", "pcie_perf_stats_desc, MLX5E_READ_CTR32_BE"},
    {"outbound_pci_stalled_rd_events", "pcie_perf_stall_stats_desc, MLX5E_READ_CTR32_BE"},
    {"outbound_pci_stalled_wr_events", "pcie_perf_stall_stats_desc, MLX5E_READ_CTR32_BE"},
    // PPCNT's physical layer group: the one field that is no big-endian 64-bit pair.
    {"link_down_events_phy", "mlx5e_grp_phy_fill_stats, MLX5_GET of link_down_events"},
};

// The `ethtool -S` names mlx5 fills with a figure, not a count (kernel
// Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst): the share (0-100)
// of the last second in which the NIC had outbound PCIe reads or writes it could not issue for
// lack of credits. They are 32-bit fields of MPCNT's PCIe group (pcie_perf_stall_stats_desc,
// MLX5E_READ_CTR32_BE) that go down as often as up.
inline constexpr std::string_view kMlx5Gauges[] = {"outbound_pci_stalled_rd",
                                                   "outbound_pci_stalled_wr"};

constexpr CounterWidth ethtool_counter_width(std::string_view name) {
  for (const auto gauge : kMlx5Gauges) {
    if (gauge == name) return CounterWidth::gauge;
  }
  for (const auto& narrow : kMlx5Counters32) {
    if (narrow.name == name) return CounterWidth::bits32;
  }
  return CounterWidth::bits64;
}

}  // namespace roced
