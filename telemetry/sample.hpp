// SPDX-License-Identifier: Apache-2.0
#pragma once
// One port's reading at one instant: the single sampling result that feeds both the Prometheus
// exporter and the storm watchdog, so the two never disagree about what the NIC said.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roced::telemetry {

// How one source of a sample went: for the exporter's per-collector health metrics.
struct SourceOutcome {
  bool ok = true;
  std::chrono::nanoseconds took{0};
};

struct PortSample {
  std::string netdev;
  std::string rdma_device;  // empty when the port has no RDMA device
  int rdma_port = 0;
  std::string driver;
  std::string pci;
  std::string firmware;  // ethtool driver info; empty when it could not be read
  // The driver tree roced judges the port by (driver/detect.hpp), and the version it judged on;
  // empty with the firmware.
  std::string driver_tree;
  std::string driver_tree_version;
  std::chrono::steady_clock::time_point at;

  // Counters by their kernel names. A counter the NIC does not have is absent, not zero.
  // `ethtool -S` names (names re-read each sample): raw, but for the 32-bit ones
  // (ethtool_counter_width), which NodeSampler turns into 64-bit totals (wraps carried over).
  std::map<std::string, uint64_t> ethtool;
  // How old the ethtool values were when sampled: zero when read for this sample, the reading's
  // age when a recent one (the storm poller's) was served instead.
  std::chrono::steady_clock::duration ethtool_age{0};
  std::map<std::string, uint64_t> rdma;  // hw_counters file names, raw (32-bit ones may wrap)
  // How old the RDMA counters were when sampled: zero when read for this sample, else the age of
  // the background reading served instead.
  std::chrono::steady_clock::duration rdma_age{0};
  // The hw_counters as monotonic 64-bit totals (wraps carried over); filled by NodeSampler, which
  // sees the sequence of samples.
  std::map<std::string, uint64_t> rdma_totals;
  uint64_t counter_wraps = 0;   // since roced started, this port
  uint64_t counter_resets = 0;  // likewise

  bool link_known = false;  // false when the link read failed: link_up/mtu then mean nothing
  bool link_up = false;     // admin up and carrier (IFF_UP && IFF_LOWER_UP)
  uint32_t mtu = 0;
  // The negotiated speed in Mb/s (sysfs speed); absent without carrier, when mlx5 answers -1.
  std::optional<uint32_t> speed_mbps;

  // The RoCE v2 GID index of `gid_family` on this netdev; absent when it has none (or no RDMA).
  std::string gid_family = "ipv4";
  std::optional<int> rocev2_gid_index;
  std::optional<int> expected_gid_index;  // roce.gid_index, when the config sets one

  // Per source ("ethtool", "rdma", "link", "gid"): read, and how long it took.
  std::map<std::string, SourceOutcome> sources;
  // One line per source that could not be read ("ethtool stats: ...", "link: ..."); that source's
  // fields stay empty and the other sources are still sampled.
  std::vector<std::string> errors;
};

}  // namespace roced::telemetry
