// SPDX-License-Identifier: Apache-2.0
// ethtool netlink's MAC control frame counts (ETHTOOL_MSG_STATS_GET, eth-ctrl) against roce-sim's
// node: the same hardware counters as ethtool -S tx/rx_mac_control_phy, at one firmware command.
#include "ethtool/mac_control.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ethtool/ethtool.hpp"
#include "in_process_node.hpp"

namespace roced {
namespace {

class MacControl : public test::InProcessNode {
 protected:
  uint64_t commands(const std::string& netdev, const std::string& name) {
    uint64_t n = 0;
    node_->inspect([&](roce_sim::Node& node) {
      const auto& all = node.find(netdev)->firmware_commands();
      if (auto it = all.find(name); it != all.end()) n = it->second.n;
    });
    return n;
  }
  uint64_t ethtool_stat(const std::string& netdev, const std::string& name) {
    auto stats = EthtoolClient(system_).stats(netdev);
    EXPECT_TRUE(stats.ok());
    for (const auto& counter : *stats) {
      if (counter.name == name) return counter.value;
    }
    ADD_FAILURE() << "no " << name;
    return 0;
  }
};

TEST_F(MacControl, CountsAreTheMacControlCountersOfEthtoolS) {
  node_->change([](roce_sim::Node& node) {
    node.find("lan3")->counters().rx_pause_ctrl_phy = 1234;
    node.find("lan3")->counters().tx_pause_ctrl_phy = 56;
  });
  MacControlReader reader(system_);
  ASSERT_TRUE(reader.available());
  const std::vector<std::string> ports = {"lan2", "lan3"};
  const auto counts = reader.read(ports, std::chrono::seconds(1));
  ASSERT_EQ(counts.size(), 2u);
  ASSERT_TRUE(counts[0].ok()) << counts[0].error().message;
  ASSERT_TRUE(counts[1].ok()) << counts[1].error().message;
  EXPECT_EQ(*counts[0], (MacControlFrames{0, 0}));
  EXPECT_EQ(counts[1]->received, 1234u);
  EXPECT_EQ(counts[1]->transmitted, 56u);
  EXPECT_EQ(counts[1]->received, ethtool_stat("lan3", "rx_mac_control_phy"));
  EXPECT_EQ(counts[1]->transmitted, ethtool_stat("lan3", "tx_mac_control_phy"));
}

// en_stats.c mlx5e_stats_eth_ctrl_get: one PPCNT (an ACCESS_REG) per read, where ETHTOOL_GSTATS
// also queries the vnic environment and the rest.
TEST_F(MacControl, AReadCostsOneFirmwareCommand) {
  MacControlReader reader(system_);
  const std::vector<std::string> ports = {"lan2"};
  ASSERT_TRUE(reader.read(ports, std::chrono::seconds(1))[0].ok());  // the family looked up
  const uint64_t access_before = commands("lan2", "ACCESS_REG");
  const uint64_t vnic_before = commands("lan2", "QUERY_VNIC_ENV");
  ASSERT_TRUE(reader.read(ports, std::chrono::seconds(1))[0].ok());
  EXPECT_EQ(commands("lan2", "ACCESS_REG") - access_before, 1u);
  EXPECT_EQ(commands("lan2", "QUERY_VNIC_ENV"), vnic_before);
}

TEST_F(MacControl, AnUnknownNetdevIsTheKernelsEnodev) {
  MacControlReader reader(system_);
  const std::vector<std::string> ports = {"nosuch", "lan2"};
  const auto counts = reader.read(ports, std::chrono::seconds(1));
  ASSERT_FALSE(counts[0].ok());
  EXPECT_EQ(counts[0].error().code, ENODEV);
  EXPECT_TRUE(counts[1].ok());
}

TEST_F(MacControl, WithoutGenericNetlinkTheReaderIsUnavailable) {
  System without;
  MacControlReader reader(without);
  EXPECT_FALSE(reader.available());
}

}  // namespace
}  // namespace roced
