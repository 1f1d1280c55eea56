#pragma once
// One port's reading at one instant: the single sampling result that feeds both the Prometheus
// exporter and the storm watchdog, so the two never disagree about what the NIC said.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace roced::telemetry {

struct PortSample {
  std::string netdev;
  std::string rdma_device;  // empty when the port has no RDMA device
  int rdma_port = 0;
  std::chrono::steady_clock::time_point at;

  // Raw counters by their kernel names. A counter the NIC does not have is absent, not zero.
  std::map<std::string, uint64_t> ethtool;  // `ethtool -S` names (names re-read each sample)
  std::map<std::string, uint64_t> rdma;     // hw_counters file names, raw (32-bit ones may wrap)

  bool link_known = false;  // false when the link read failed: link_up/mtu then mean nothing
  bool link_up = false;     // admin up and carrier (IFF_UP && IFF_LOWER_UP)
  uint32_t mtu = 0;

  // One line per source that could not be read ("ethtool stats: ...", "link: ..."); that source's
  // fields stay empty and the other sources are still sampled.
  std::vector<std::string> errors;
};

}  // namespace roced::telemetry
