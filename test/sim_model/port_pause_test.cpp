// SPDX-License-Identifier: Apache-2.0
// 802.3x global pause on the simulated port: ethtool's pause parameters (en_ethtool.c
// mlx5e_ethtool_get/set_pauseparam over port.c mlx5_query_port_pause / mlx5_set_port_pause), a PFC
// mask change turning it off (port.c mlx5_set_port_pfc) and its counters in the string set
// (en_stats.c mlx5e_grp_per_prio_pfc_fill_strings).
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include "sim/model/port.hpp"
#include "test/sim_model/test_ports.hpp"

namespace roce_sim {
namespace {

const std::vector<std::string> kGlobalNames = {"rx_global_pause", "rx_global_pause_duration",
                                               "tx_global_pause", "tx_global_pause_duration",
                                               "rx_global_pause_transition"};

PauseParam pause_of(const Port& port) {
  PauseParam pause{true, true, true};  // overwritten in full by a get that succeeds
  EXPECT_EQ(port.get_pauseparam(pause), 0);
  return pause;
}

PauseParam pause(bool rx, bool tx) { return PauseParam{false, rx, tx}; }

uint64_t access_regs(const Port& port) {
  const auto& commands = port.firmware_commands();
  const auto found = commands.find("ACCESS_REG");
  return found == commands.end() ? 0 : found->second.n;
}

TEST(PortGlobalPause, AFreshPortPausesBothDirectionsWithoutAutonegotiation) {
  Port port(test::cx7_port());
  const PauseParam fresh = pause_of(port);
  EXPECT_FALSE(fresh.autoneg);
  EXPECT_TRUE(fresh.rx);
  EXPECT_TRUE(fresh.tx);
  EXPECT_EQ(port.pfc_enabled(), 0);
}

TEST(PortGlobalPause, ItsCountersFollowThePriorityNamesAndPrecedeTheStallCounters) {
  Port port(test::cx7_port());
  const auto names = port.stat_names();
  ptrdiff_t at = test::position(names, "tx_prio7_packets");
  for (const auto& name : kGlobalNames) EXPECT_EQ(test::position(names, name), ++at) << name;
  EXPECT_EQ(test::position(names, "tx_pause_storm_warning_events"), at + 1);
  EXPECT_FALSE(test::has(names, "tx_global_pause_transition"));
}

TEST(PortGlobalPause, ItsValuesArePriorityZerosCounters) {
  Port port(test::cx7_port());
  PriorityCounters& prio0 = port.counters().prio[0];
  prio0.rx_pause = 11;
  prio0.rx_pause_duration_us = 12;
  prio0.tx_pause = 13;
  prio0.tx_pause_duration_us = 14;
  prio0.rx_pause_transition = 15;
  port.counters().prio[3].rx_pause = 99;
  const auto stats = port.stats();
  std::map<std::string, uint64_t> by_name(stats.begin(), stats.end());
  EXPECT_EQ(by_name["rx_global_pause"], 11u);
  EXPECT_EQ(by_name["rx_global_pause_duration"], 12u);
  EXPECT_EQ(by_name["tx_global_pause"], 13u);
  EXPECT_EQ(by_name["tx_global_pause_duration"], 14u);
  EXPECT_EQ(by_name["rx_global_pause_transition"], 15u);
  EXPECT_EQ(port.stat_values().size(), port.stat_names().size());
}

TEST(PortGlobalPause, SetTurnsEachDirectionAloneAndTheNamesGoWithTheLastOne) {
  Port port(test::cx7_port());
  const size_t with_global = port.stat_count();
  ASSERT_EQ(port.set_pauseparam(pause(false, true)), 0);
  EXPECT_FALSE(pause_of(port).rx);
  EXPECT_TRUE(pause_of(port).tx);
  EXPECT_EQ(port.stat_count(), with_global);  // rx | tx: still listed
  ASSERT_EQ(port.set_pauseparam(pause(false, false)), 0);
  EXPECT_FALSE(pause_of(port).tx);
  const auto names = port.stat_names();
  EXPECT_EQ(names.size(), with_global - kGlobalNames.size());
  for (const auto& name : kGlobalNames) EXPECT_FALSE(test::has(names, name)) << name;
  ASSERT_EQ(port.set_pauseparam(pause(true, true)), 0);
  EXPECT_EQ(port.stat_count(), with_global);
  EXPECT_EQ(port.link_toggles(), 0u);  // PFCC pause bits alone: no link toggle
}

TEST(PortGlobalPause, AutonegotiationIsEinvalAndChangesNothing) {
  Port port(test::cx7_port());
  ASSERT_EQ(port.set_pauseparam(pause(false, false)), 0);
  EXPECT_EQ(port.set_pauseparam(PauseParam{true, true, true}), -EINVAL);
  EXPECT_FALSE(pause_of(port).rx);
  EXPECT_FALSE(pause_of(port).tx);
}

TEST(PortGlobalPause, SettingItLeavesPfcAlone) {
  Port port(test::cx7_port());
  test::set_pfc(port, 0x08);
  ASSERT_EQ(port.set_pauseparam(pause(true, true)), 0);
  EXPECT_EQ(port.pfc_enabled(), 0x08);
  // Both groups listed: the priority's, then the global ones.
  const auto names = port.stat_names();
  EXPECT_EQ(test::position(names, "rx_global_pause"),
            test::position(names, "rx_prio3_pause_transition") + 1);
}

TEST(PortGlobalPause, EveryPfcMaskChangeTurnsItOffInBothDirections) {
  Port port(test::cx7_port());
  test::set_pfc(port, 0x08);
  EXPECT_FALSE(pause_of(port).rx);
  EXPECT_FALSE(pause_of(port).tx);
  EXPECT_FALSE(test::has(port.stat_names(), "rx_global_pause"));
  ASSERT_EQ(port.set_pauseparam(pause(true, true)), 0);
  test::set_pfc(port, 0x00);  // PFC off again: global pause does not come back with it
  EXPECT_FALSE(pause_of(port).rx);
  EXPECT_FALSE(pause_of(port).tx);
}

// mlx5e_dcbnl_ieee_setpfc calls mlx5_set_port_pfc only when the mask differs from the firmware's.
TEST(PortGlobalPause, AWriteOfTheUnchangedMaskLeavesIt) {
  Port port(test::cx7_port());
  test::set_pfc(port, 0x00);  // what a fresh port has
  EXPECT_TRUE(pause_of(port).rx);
  EXPECT_TRUE(pause_of(port).tx);
  test::set_pfc(port, 0x08);
  ASSERT_EQ(port.set_pauseparam(pause(true, false)), 0);
  test::set_pfc(port, 0x08);
  EXPECT_TRUE(pause_of(port).rx);
  EXPECT_EQ(port.link_toggles(), 1u);
}

TEST(PortGlobalPause, NvidiasTreeTurnsItOffTheSameWay) {
  auto spec = test::cx7_port();
  spec.flavour = DriverFlavour::NicKernel;
  spec.traits = traits_of(spec.flavour);
  Port port(spec);
  EXPECT_TRUE(pause_of(port).rx);
  test::set_pfc(port, 0x08);
  EXPECT_FALSE(pause_of(port).rx);
  EXPECT_FALSE(pause_of(port).tx);
}

TEST(PortGlobalPause, TheNodeFilesDefaultAndADriverReloadBringItBack) {
  auto spec = test::cx7_port();
  spec.firmware_global_pause = GlobalPause{true, false};
  Port port(spec);
  EXPECT_TRUE(pause_of(port).rx);
  EXPECT_FALSE(pause_of(port).tx);
  EXPECT_TRUE(test::has(port.stat_names(), "tx_global_pause"));  // rx alone lists all five
  ASSERT_EQ(port.set_pauseparam(pause(false, false)), 0);
  port.reset_to_firmware_defaults();
  EXPECT_TRUE(pause_of(port).rx);
  EXPECT_FALSE(pause_of(port).tx);
}

TEST(PortGlobalPause, AVfOrSfIsNoVportGroupManagerAndReadsNothing) {
  auto vf = test::cx7_port("lan2v0", "");
  vf.physfn = "0000:17:00.0";
  auto sf = test::cx7_port("lan2s0", "");
  sf.sf_of = "lan2";
  for (const PortSpec& spec : {vf, sf}) {
    SCOPED_TRACE(spec.netdev);
    Port port(spec);
    const PauseParam read = pause_of(port);
    EXPECT_FALSE(read.rx);
    EXPECT_FALSE(read.tx);
    EXPECT_EQ(port.set_pauseparam(pause(true, true)), -EOPNOTSUPP);
    EXPECT_EQ(port.set_pauseparam(PauseParam{true, false, false}), -EOPNOTSUPP);  // before autoneg
    EXPECT_FALSE(test::has(port.stat_names(), "rx_global_pause"));
  }
}

TEST(PortGlobalPause, RepresentorsAndStackedDevicesHaveNoPauseOps) {
  auto rep = test::cx7_port("lan2npf0vf0", "");
  rep.representor_of = "lan2";
  auto vlan = test::cx7_port("lan2.100", "");
  vlan.upper_of = "lan2";
  vlan.upper_kind = "vlan";
  auto bond = test::cx7_port("bond0", "");
  bond.bond_slaves = {"lan2", "lan3"};
  for (const PortSpec& spec : {rep, vlan, bond}) {
    SCOPED_TRACE(spec.netdev);
    Port port(spec);
    PauseParam read;
    EXPECT_EQ(port.get_pauseparam(read), -EOPNOTSUPP);
    EXPECT_EQ(port.set_pauseparam(pause(true, true)), -EOPNOTSUPP);
    EXPECT_EQ(access_regs(port), 0u);
  }
}

TEST(PortGlobalPause, EachGetAndSetIsOnePfccAccess) {
  Port port(test::cx7_port());
  pause_of(port);
  EXPECT_EQ(access_regs(port), 1u);
  ASSERT_EQ(port.set_pauseparam(pause(false, false)), 0);
  EXPECT_EQ(access_regs(port), 2u);
  ASSERT_EQ(port.set_pauseparam(PauseParam{true, false, false}), -EINVAL);
  EXPECT_EQ(access_regs(port), 2u);  // refused before mlx5_set_port_pause
}

}  // namespace
}  // namespace roce_sim
