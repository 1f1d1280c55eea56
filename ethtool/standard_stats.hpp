// SPDX-License-Identifier: Apache-2.0
#pragma once
// One group of a port's standard statistics through ethtool netlink (ETHTOOL_MSG_STATS_GET;
// net/ethtool/stats.c): the IEEE 802.3 PHY, MAC and MAC control counters and RMON, under the
// same names on every driver that implements them. On mlx5 a group costs one firmware command
// (en_stats.c: one PPCNT read each) where an ETHTOOL_GSTATS costs some thirty.

#include <linux/ethtool_netlink.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "os/genl_family.hpp"
#include "os/system.hpp"

namespace roced {

// A group's counters by their attribute type within the group (ETHTOOL_A_STATS_ETH_CTRL_3_TX,
// ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR, ...); a counter the driver did not set is absent.
using StandardCounters = std::map<uint16_t, uint64_t>;

class StandardStatsReader {
 public:
  // `group`: ETHTOOL_STATS_ETH_PHY, ETHTOOL_STATS_ETH_CTRL, ...
  StandardStatsReader(const System& system, uint32_t group)
      : genl_(system, ETHTOOL_GENL_NAME, ETHTOOL_GENL_VERSION), group_(group) {}

  // False when the system has no NETLINK_GENERIC socket, or the kernel no ethtool family.
  bool available() const { return genl_.available(); }
  // Each port's counters of the group, all asked before the first answer is read; in the same
  // order. A driver without the group's op answers an empty group, not an error.
  std::vector<Result<StandardCounters>> read(std::span<const std::string> netdevs,
                                             std::chrono::milliseconds timeout);

 private:
  // Each port's kept request (made anew on a new socket), and its name for errors.
  Result<std::vector<nl_msg*>> prepare(std::span<const std::string> netdevs,
                                       std::vector<std::string>& contexts);

  struct Kept {
    NlMsgPtr request;
    std::string context;
  };
  GenlFamily genl_;
  uint32_t group_;
  std::map<std::string, Kept> kept_;   // made on connection_
  std::vector<std::string> contexts_;  // the last round's, reused
  uint64_t connection_ = 0;
  size_t largest_round_ = 0;
};

}  // namespace roced
