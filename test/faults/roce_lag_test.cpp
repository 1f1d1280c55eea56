// SPDX-License-Identifier: Apache-2.0
// A RoCE LAG under a running roced (sim/nodes/roce-lag.yaml: bond0 over lan2 and lan3, one RDMA
// device mlx5_bond_0): a slave whose link goes down, has its PFC switched off by another tool,
// and comes back is put right like any port while the bond stays up on the other slave; the
// exporter has each slave's link and the bond's RDMA counters without reading statistics a bond
// does not have; a later change reaches the slaves and writes nothing to the bond.
#include <algorithm>
#include <cstdlib>

#include "fault_harness.hpp"
#include "test/support/build_paths.hpp"

namespace roced::test {
namespace {

class RoceLagUnderFault : public RocedUnderFault {
 protected:
  std::string node_file() const override { return std::string(ROCED_SIM_NODES) + "/roce-lag.yaml"; }
  void SetUp() override {
    RocedUnderFault::SetUp();
    if (HasFatalFailure()) return;
    std::string config = fault_config();
    config.replace(config.find("[lan2, lan3, lan4, lan5]"), 24, "[\"*\"]");
    write_file(config_, config);
  }
  // bond0 and the four ports, each in sync.
  bool lag_in_sync() const {
    const Json all = status();
    if (all.is_null() || all.at("ports").size() != kPorts.size() + 1) return false;
    return std::all_of(all.at("ports").begin(), all.at("ports").end(),
                       [](const Json& port) { return port.at("condition") == "in-sync"; });
  }
  // roce_link_up of `netdev`, whatever its device labels; nullopt when not exported.
  std::optional<double> link_up(const std::string& netdev) const {
    const std::string text = scrape();
    const std::string head = "roce_link_up{netdev=\"" + netdev + "\"";
    const size_t at = text.find("\n" + head);
    if (at == std::string::npos) return std::nullopt;
    const size_t space = text.find("} ", at);
    if (space == std::string::npos) return std::nullopt;
    return std::strtod(text.c_str() + space + 2, nullptr);
  }
};

TEST_F(RoceLagUnderFault, ASlaveDownAndBackIsCheckedAgainAndTheBondStaysUp) {
  start_roced();
  ASSERT_TRUE(eventually([&] { return lag_in_sync(); })) << status().dump(2) << log();
  EXPECT_EQ(read_port("lan3").at("pfc"), read_port("lan2").at("pfc"));

  // The switch side of lan3 goes away for a while; meanwhile PFC on lan3 is switched off by a
  // tool that bypasses roced.
  ASSERT_EQ(inject("events:\n"
                   "  - {at: 0s, kind: link_flap, port: lan3, down_for: 4s}\n")
                .exit_code,
            0);
  ASSERT_TRUE(eventually(
      [&] { return read_file(dir_ / "sys/class/net/lan3/bonding_slave/mii_status") == "down\n"; }));
  exec({"dcb", "pfc", "set", "dev", "lan3", "prio-pfc", "3:off"});
  EXPECT_EQ(read_file(dir_ / "sys/class/net/bond0/carrier"), "1\n");

  // Back: lan3 as wanted again, both slaves alike, every port in sync.
  ASSERT_TRUE(eventually(
      [&] { return read_file(dir_ / "sys/class/net/lan3/bonding_slave/mii_status") == "up\n"; }));
  ASSERT_TRUE(eventually([&] {
    return lag_in_sync() && read_port("lan3").at("pfc") == read_port("lan2").at("pfc");
  })) << describe(read_port("lan3"))
      << status().dump(2) << log();
  EXPECT_TRUE(contains(read_port("lan3").at("pfc"), "3:on")) << describe(read_port("lan3"));
  EXPECT_GT(read_writes(dir_)["bond0"], 0u);  // its MTU, rdma_cm and DCQCN knobs

  // Metrics: each slave's link and the bond's, the bond's RDMA counters; the bond has no
  // ethtool statistics, and roced does not complain that it cannot read them.
  ASSERT_TRUE(eventually([&] { return link_up("lan3") == 1.0; })) << scrape();
  EXPECT_EQ(link_up("bond0"), 1.0) << scrape();
  EXPECT_TRUE(contains(scrape(), "roce_cnp_sent_total{netdev=\"bond0\",device=\"mlx5_bond_0\""))
      << scrape();
  EXPECT_FALSE(contains(log(), "bond0: metrics: cannot read")) << log();

  // A later change reaches both slaves and nothing is written to the bond for it.
  const uint64_t bond_writes = read_writes(dir_)["bond0"];
  std::string later = fault_config(25);
  later.replace(later.find("[lan2, lan3, lan4, lan5]"), 24, "[\"*\"]");
  write_file(config_, later);
  ASSERT_EQ(::kill(pid_, SIGHUP), 0);
  for (const std::string netdev : {"lan2", "lan3"}) {
    EXPECT_TRUE(eventually([&] { return contains(read_port(netdev)["pfc"], "delay 25"); }))
        << netdev << "\n"
        << log();
  }
  EXPECT_EQ(read_writes(dir_)["bond0"], bond_writes);
}

}  // namespace
}  // namespace roced::test
