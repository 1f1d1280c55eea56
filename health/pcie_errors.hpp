// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the NIC counts of its PCIe link itself (MPCNT's PCIe performance group, `ethtool -S`):
// the link's transitions to recovery for signal integrity errors, and how much of the last
// second its outbound reads and writes stalled for lack of credits (kernel
// Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst). A marginal slot
// or riser retrains the link over and over before it trains down for good.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "finding/finding.hpp"
#include "health/counter_window.hpp"

namespace roced::health {

struct PcieCounters {
  // rx: recoveries for framing and CRC errors this end saw; tx: those the other end started.
  // 32-bit (en_stats.c pcie_perf_stats_desc, MLX5E_READ_CTR32_BE).
  std::optional<uint64_t> rx_signal_integrity, tx_signal_integrity;
  // The share (0-100) of the last second stalled, and the seconds it was above 30 %.
  std::optional<uint64_t> stalled_read_percent, stalled_write_percent;
  std::optional<uint64_t> stalled_read_seconds, stalled_write_seconds;
};
PcieCounters pcie_counters(std::span<const std::string> names, std::span<const uint64_t> values);

// Recoveries over the last hour, rx and tx each in its own window (each is a 32-bit counter).
inline CounterWindow signal_integrity_window() {
  return CounterWindow(std::chrono::hours(1), CounterWidth::bits32);
}

// Any recovery within the hour that the readings saw happen (the counts from before roced's first
// reading are the boot's and the card's history): a finding. Empty when the NIC has no such
// counters (a driver or firmware without MPCNT's PCIe group): nothing to judge, not a fault.
std::optional<finding::Finding> judge_signal_integrity(const std::string& netdev,
                                                       const CounterWindow& rx,
                                                       const CounterWindow& tx);

inline constexpr finding::Kind kPcieSignalIntegrity{
    "pcie_signal_integrity_errors", finding::Severity::Warning, "health",
    "The NIC's PCIe link went into recovery for signal integrity errors (framing or CRC errors, "
    "or the other end asking) within the last hour: each recovery stalls the NIC's DMA, and a "
    "link that keeps recovering often trains down to fewer lanes or a lower speed.",
    "`ethtool -S <netdev>` (its rx_ and tx_pci_signal_integrity) shows whether it still climbs. "
    "NVIDIA's "
    "advice: move the card to another slot to rule out a bad one, and run the latest firmware "
    "and server BIOS. Drain the node if it climbs quickly."};

}  // namespace roced::health
