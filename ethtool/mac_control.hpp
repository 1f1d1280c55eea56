// SPDX-License-Identifier: Apache-2.0
#pragma once
// A port's IEEE 802.3 MAC control frame counts through ethtool netlink (ETHTOOL_MSG_STATS_GET,
// group eth-ctrl; net/ethtool/stats.c): every PAUSE and PFC frame is a MAC control frame, so two
// readings with the same counts say no pause was sent or received in between. On mlx5 it costs
// one firmware command (en_stats.c mlx5e_stats_eth_ctrl_get: the 802.3 PPCNT group) where an
// ETHTOOL_GSTATS costs some thirty.

#include <linux/ethtool_netlink.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ethtool/standard_stats.hpp"
#include "os/system.hpp"

namespace roced {

struct MacControlFrames {
  uint64_t transmitted = 0;  // MACControlFramesTransmitted
  uint64_t received = 0;     // MACControlFramesReceived
  bool operator==(const MacControlFrames&) const = default;
};

class MacControlReader {
 public:
  explicit MacControlReader(const System& system) : stats_(system, ETHTOOL_STATS_ETH_CTRL) {}

  // False when the system has no NETLINK_GENERIC socket, or the kernel no ethtool family.
  bool available() const { return stats_.available(); }
  // Each port's counts, all asked before the first answer is read; in the same order. A port
  // whose driver sets none (no get_eth_ctrl_stats: a bond, a representor) is EOPNOTSUPP.
  std::vector<Result<MacControlFrames>> read(std::span<const std::string> netdevs,
                                             std::chrono::milliseconds timeout);

 private:
  StandardStatsReader stats_;
};

}  // namespace roced
