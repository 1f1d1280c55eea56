// SPDX-License-Identifier: Apache-2.0
// ethtool netlink's standard statistics (ETHTOOL_MSG_STATS_GET) against roce-sim's node: the MAC
// control frame counts (eth-ctrl) and the symbol errors (eth-phy) are the same hardware counters
// as ethtool -S's, at one firmware command a group.
#include "ethtool/mac_control.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ethtool/ethtool.hpp"
#include "ethtool/standard_stats.hpp"
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

// The eth-phy group (en_stats.c mlx5e_stats_eth_phy_get): SymbolErrorDuringCarrier is the 802.3
// PPCNT group's symbol error counter, which ethtool -S names rx_symbol_err_phy; one PPCNT a read.
TEST_F(MacControl, TheEthPhyGroupIsTheSymbolErrorCounterOfEthtoolS) {
  node_->change([](roce_sim::Node& node) { node.find("lan3")->counters().rx_symbol_err_phy = 77; });
  StandardStatsReader reader(system_, ETHTOOL_STATS_ETH_PHY);
  const std::vector<std::string> ports = {"lan3"};
  ASSERT_TRUE(reader.read(ports, std::chrono::seconds(1))[0].ok());  // the family looked up
  const uint64_t access_before = commands("lan3", "ACCESS_REG");
  const auto groups = reader.read(ports, std::chrono::seconds(1));
  ASSERT_TRUE(groups[0].ok()) << groups[0].error().message;
  EXPECT_EQ(commands("lan3", "ACCESS_REG") - access_before, 1u);
  EXPECT_EQ(*groups[0], (StandardCounters{{ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR, 77}}));
  EXPECT_EQ(groups[0]->at(ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR),
            ethtool_stat("lan3", "rx_symbol_err_phy"));
}

TEST_F(MacControl, WithoutGenericNetlinkTheReaderIsUnavailable) {
  System without;
  MacControlReader reader(without);
  EXPECT_FALSE(reader.available());
}

}  // namespace
}  // namespace roced
