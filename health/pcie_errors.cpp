// SPDX-License-Identifier: Apache-2.0
#include "health/pcie_errors.hpp"

#include <chrono>

namespace roced::health {

PcieCounters pcie_counters(std::span<const std::string> names, std::span<const uint64_t> values) {
  PcieCounters out;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    const std::string& name = names[i];
    if (name == "rx_pci_signal_integrity") out.rx_signal_integrity = values[i];
    if (name == "tx_pci_signal_integrity") out.tx_signal_integrity = values[i];
    if (name == "outbound_pci_stalled_rd") out.stalled_read_percent = values[i];
    if (name == "outbound_pci_stalled_wr") out.stalled_write_percent = values[i];
    if (name == "outbound_pci_stalled_rd_events") out.stalled_read_seconds = values[i];
    if (name == "outbound_pci_stalled_wr_events") out.stalled_write_seconds = values[i];
  }
  return out;
}

std::optional<finding::Finding> judge_signal_integrity(const std::string& netdev,
                                                       const CounterWindow& rx,
                                                       const CounterWindow& tx) {
  const uint64_t here = rx.total();
  const uint64_t there = tx.total();
  if (here + there == 0) return std::nullopt;
  const auto minutes =
      std::chrono::duration_cast<std::chrono::minutes>(std::max(rx.covered(), tx.covered()));
  return finding::make(kPcieSignalIntegrity, netdev,
                       std::to_string(here + there) + " PCIe link recoveries in the last " +
                           std::to_string(std::max<int64_t>(minutes.count(), 1)) + " min (" +
                           std::to_string(here) + " for errors the NIC saw, " +
                           std::to_string(there) + " the other end started)",
                       "none", "recovering");
}

}  // namespace roced::health
