// SPDX-License-Identifier: Apache-2.0
#pragma once
// Sampling one port: ethtool statistics, RDMA hw_counters, link state and the RoCE v2 GID index,
// each source read independently so one failure does not hide the others.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "link/link.hpp"
#include "os/system.hpp"
#include "port/discovery.hpp"
#include "sampling/port_stats.hpp"
#include "telemetry/sample.hpp"

namespace roced::telemetry {

struct SampleOptions {
  std::string gid_family = "ipv4";  // whose RoCE v2 GID index to find: "ipv4" | "ipv6"
  bool firmware = true;             // read the firmware version (ethtool driver info)
  bool gid = true;                  // read the GID table (else rocev2_gid_index stays empty)
  bool read_rdma = true;            // read hw_counters (the storm watchdog's polls do not)
  bool read_link = true;            // read the link (likewise)
  // The link as a node-wide RTM_GETLINK dump found it (one request for every port instead of
  // one each); read per port when absent.
  std::optional<LinkInfo> link;
  // The hw_counters names a listing found earlier; listed afresh when absent.
  const std::vector<std::string>* hw_counter_names = nullptr;
  // Which of a fresh listing's counters to read (all when null): a real mlx5 port has some 40,
  // of which the metrics use about 20, and each is a file to open on every scrape.
  bool (*keep_hw_counter)(std::string_view name) = nullptr;
  // A recent statistics reading of the port (sampling::StatsPoller's): served instead of a read
  // of its own (through the same sampling::PortStats, names afresh).
  const sampling::StatsReading* stats = nullptr;
  // Which of that reading's values to copy into the sample, by index (all when null).
  const std::vector<size_t>* stats_kept = nullptr;
  // The port's RDMA counters as RDMA netlink answered them for the whole node (NodeSampler), and
  // that answer's share of the time: used instead of the hw_counters files when they were read.
  const Result<std::map<std::string, uint64_t>>* rdma_counters = nullptr;
  std::chrono::steady_clock::duration rdma_took{};
};

PortSample sample_port(System& system, const DiscoveredPort& port,
                       const SampleOptions& options = {});

}  // namespace roced::telemetry
