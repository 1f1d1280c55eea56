// SPDX-License-Identifier: Apache-2.0
// EthtoolClient's pause parameters (ethtool/pause.cpp) against roce-sim's port model in the test's
// own process: the ioctl bytes are the ones the shim and the socket transport carry, and mlx5's
// answers come from the model (en_ethtool.c mlx5e_ethtool_get/set_pauseparam, port.c
// mlx5_set_port_pfc turning global pause off).
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "dcb/client.hpp"
#include "ethtool/ethtool.hpp"
#include "in_process_node.hpp"
#include "sim/model/port.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

constexpr PauseParams kOn{false, true, true};
constexpr PauseParams kOff{false, false, false};

class EthtoolPause : public test::InProcessNode {
 protected:
  bool lists(const std::string& ifname, const std::string& name) {
    auto counters = EthtoolClient(system_).stats(ifname);
    EXPECT_TRUE(counters) << counters.error().message;
    if (!counters) return false;
    return std::any_of(counters->begin(), counters->end(),
                       [&](const NamedCounter& counter) { return counter.name == name; });
  }
  PauseParams in_model(const std::string& netdev) {
    PauseParams seen;
    node_->inspect([&](roce_sim::Node& node) {
      const roce_sim::Port* port = node.find(netdev);
      ASSERT_NE(port, nullptr);
      seen = PauseParams{false, port->global_pause_rx(), port->global_pause_tx()};
    });
    return seen;
  }
};

TEST_F(EthtoolPause, AFreshPortPausesTheLinkBothWaysAndListsTheGlobalCounters) {
  EthtoolClient ethtool(system_);
  auto pause = ethtool.pause("lan2");
  ASSERT_TRUE(pause) << pause.error().message;
  EXPECT_EQ(*pause, kOn);
  for (const char* name : {"rx_global_pause", "rx_global_pause_duration", "tx_global_pause",
                           "tx_global_pause_duration", "rx_global_pause_transition"}) {
    EXPECT_TRUE(lists("lan2", name)) << name;
  }
}

TEST_F(EthtoolPause, SetPauseTurnsEachDirectionAndReadsBack) {
  EthtoolClient ethtool(system_);
  ASSERT_TRUE(ethtool.set_pause("lan2", kOff));
  EXPECT_EQ(ethtool.pause("lan2").value(), kOff);
  EXPECT_EQ(in_model("lan2"), kOff);
  EXPECT_FALSE(lists("lan2", "rx_global_pause"));
  const PauseParams rx_only{false, true, false};
  ASSERT_TRUE(ethtool.set_pause("lan2", rx_only));
  EXPECT_EQ(ethtool.pause("lan2").value(), rx_only);
  EXPECT_TRUE(lists("lan2", "tx_global_pause"));
  ASSERT_TRUE(ethtool.set_pause("lan2", kOn));
  EXPECT_EQ(ethtool.pause("lan2").value(), kOn);
  EXPECT_EQ(ethtool.pause("lan3").value(), kOn);  // another port: untouched
  EXPECT_EQ(node_->writes_total(), 3u);           // ETHTOOL_SPAUSEPARAM is a set command
}

TEST_F(EthtoolPause, APfcMaskWrittenThroughDcbTurnsItOffAndAnUnchangedOneDoesNot) {
  EthtoolClient ethtool(system_);
  dcb::DcbClient dcb(system_);
  dcb::Pfc pfc;
  pfc.enabled_mask = 0x00;  // what the port has: mlx5_set_port_pfc is not called
  ASSERT_TRUE(dcb.set_pfc("lan2", pfc));
  EXPECT_EQ(ethtool.pause("lan2").value(), kOn);
  pfc.enabled_mask = 0x08;
  ASSERT_TRUE(dcb.set_pfc("lan2", pfc));
  EXPECT_EQ(ethtool.pause("lan2").value(), kOff);
  EXPECT_FALSE(lists("lan2", "rx_global_pause"));
  // Global pause beside PFC, then PFC off: off again, not back to on.
  ASSERT_TRUE(ethtool.set_pause("lan2", kOn));
  EXPECT_EQ(dcb.get("lan2").value().pfc->enabled_mask, 0x08);  // the pause set left PFC alone
  pfc.enabled_mask = 0x00;
  ASSERT_TRUE(dcb.set_pfc("lan2", pfc));
  EXPECT_EQ(ethtool.pause("lan2").value(), kOff);
}

TEST_F(EthtoolPause, AutonegotiationIsRefusedWithTheKernelsEinval) {
  EthtoolClient ethtool(system_);
  auto refused = ethtool.set_pause("lan2", PauseParams{true, false, false});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, EINVAL);
  EXPECT_EQ(ethtool.pause("lan2").value(), kOn);
}

TEST_F(EthtoolPause, AnUnknownInterfaceIsEnodev) {
  EthtoolClient ethtool(system_);
  EXPECT_EQ(ethtool.pause("lan9").error().code, ENODEV);
  EXPECT_EQ(ethtool.set_pause("lan9", kOff).error().code, ENODEV);
}

TEST_F(EthtoolPause, AnInjectedErrorComesBackAsItsErrno) {
  node_->change([](roce_sim::Node& node) {
    node.inject_set_errors("lan2", EBUSY, 1, roce_sim::SetOp::GlobalPause);
  });
  EthtoolClient ethtool(system_);
  EXPECT_EQ(ethtool.set_pause("lan2", kOff).error().code, EBUSY);
  EXPECT_EQ(ethtool.pause("lan2").value(), kOn);
  EXPECT_TRUE(ethtool.set_pause("lan2", kOff));
}

class EthtoolPauseSriov : public EthtoolPause {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/eight-rail-sriov.yaml";
  }
  // Free firmware commands: a request then answers without the test moving the clock.
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.firmware_command_us = 0;
  }
};

TEST_F(EthtoolPauseSriov, AVfIsNoVportGroupManagerAndThePfKeepsItsPause) {
  EthtoolClient ethtool(system_);
  auto refused = ethtool.set_pause("rail0v0", kOff);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, EOPNOTSUPP);
  EXPECT_EQ(ethtool.pause("rail0v0").value(), kOff);  // the VF reads no port register
  EXPECT_EQ(ethtool.pause("rail0").value(), kOn);
}

}  // namespace
}  // namespace roced
