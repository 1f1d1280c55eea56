// SPDX-License-Identifier: Apache-2.0
#pragma once
// The soak: roced's storm watchdog as the daemon builds it — StormLoop with
// its PortPollers, StormWatch and the Remediator — and the exporter's sampling and metric
// families, driven for simulated days on a virtual clock. The node is sim/model's default 4-port
// node in this process (ModelEthtool), advanced by one poll interval per round, with traffic on
// every port, congestion episodes that must not count, and PFC storms throughout: RX storms
// remediated with disable-pfc (the hold applied to the model), TX storms alerted (or caught by
// the NIC's stall prevention). At checkpoints between storms: memory, and every count compared.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace roced::load {

struct SoakOptions {
  std::chrono::seconds simulated{std::chrono::hours(24)};
  std::chrono::milliseconds poll{100};    // watchdog.poll_interval's default
  std::chrono::seconds storm_every{225};  // one storm on the node this often (per port: 4x)
  int checkpoints = 8;                    // evenly spaced, each at the first quiet moment
};

struct Checkpoint {
  std::chrono::seconds at{0};  // simulated time
  uint64_t rounds = 0;
  size_t heap_bytes = 0;  // mallinfo2: in use (uordblks + hblkhd)
  size_t rss_kib = 0;
  size_t storm_records = 0;  // the Remediator's entries (per port, priority, direction)
};

struct SoakReport {
  uint64_t rounds = 0;  // poll rounds over the 4 ports
  uint64_t storms = 0;  // injected
  uint64_t congestion_episodes = 0;
  // Per "lan3 rx": injected, and what roced's notices said.
  std::map<std::string, uint64_t> injected, detected, restored;
  uint64_t acted = 0, remediated = 0, unverified = 0, escalated = 0, holds_applied = 0,
           holds_released = 0;
  std::chrono::nanoseconds min_latency{0}, max_latency{0};  // detection, as roced measured it
  std::vector<Checkpoint> checkpoints;
  // Every exactness check that failed, with the values; empty when all held.
  std::vector<std::string> mismatches;
  uint64_t checks = 0;  // values compared
  double cpu_seconds = 0, wall_seconds = 0;
};

SoakReport run_soak(const SoakOptions& options);

}  // namespace roced::load
