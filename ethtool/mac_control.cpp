// SPDX-License-Identifier: Apache-2.0
#include "ethtool/mac_control.hpp"

#include <cerrno>

namespace roced {

std::vector<Result<MacControlFrames>> MacControlReader::read(std::span<const std::string> netdevs,
                                                             std::chrono::milliseconds timeout) {
  auto groups = stats_.read(netdevs, timeout);
  std::vector<Result<MacControlFrames>> results;
  results.reserve(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    if (!groups[i]) {
      results.push_back(groups[i].error());
      continue;
    }
    const auto transmitted = groups[i]->find(ETHTOOL_A_STATS_ETH_CTRL_3_TX);
    const auto received = groups[i]->find(ETHTOOL_A_STATS_ETH_CTRL_4_RX);
    if (transmitted == groups[i]->end() || received == groups[i]->end()) {
      results.push_back(
          Error{EOPNOTSUPP, netdevs[i] + ": the driver reports no MAC control frame counts"});
    } else {
      results.push_back(MacControlFrames{transmitted->second, received->second});
    }
  }
  return results;
}

}  // namespace roced
