// SPDX-License-Identifier: Apache-2.0
// roced's EthtoolClient::set_pause against a running roce-sim, read back by unmodified ethtool(8)
// through the shim (`ethtool -a`: its ioctl fallback, ETHTOOL_GPAUSEPARAM), and a PFC mask set by
// unmodified iproute2 `dcb` turning global pause off as mlx5 does (port.c mlx5_set_port_pfc): an
// independent check of the ioctl's layout and of the model, beside the shell cross-checks.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "ethtool/ethtool.hpp"
#include "sim/transport/simulated_system.hpp"
#include "sim_exec.hpp"
#include "sim_node.hpp"

namespace roced {
namespace {

class EthtoolPauseCrosscheck : public test::SimNode {
 protected:
  void SetUp() override {
    test::SimNode::SetUp();
    system_ = roce_sim::simulated_system(dir_);
  }
  // `ethtool -a DEV`: "RX:\t\ton" and the like, one line per flag.
  std::string shown(const std::string& netdev) {
    const auto result = test::sim_exec(dir_, {"ethtool", "-a", netdev});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.out;
  }
  static std::string expected(const std::string& netdev, bool rx, bool tx) {
    return "Pause parameters for " + netdev + ":\nAutonegotiate:\toff\nRX:\t\t" +
           (rx ? "on" : "off") + "\nTX:\t\t" + (tx ? "on" : "off") + "\n\n";
  }
  System system_;
};

TEST_F(EthtoolPauseCrosscheck, EthtoolReadsBackWhatSetPauseWroteAndDcbPfcTurnsItOff) {
  EthtoolClient ethtool(system_);
  EXPECT_EQ(shown("lan2"), expected("lan2", true, true));  // a fresh mlx5 port
  ASSERT_TRUE(ethtool.set_pause("lan2", PauseParams{false, false, false}));
  EXPECT_EQ(shown("lan2"), expected("lan2", false, false));
  ASSERT_TRUE(ethtool.set_pause("lan2", PauseParams{false, true, false}));
  EXPECT_EQ(shown("lan2"), expected("lan2", true, false));
  ASSERT_TRUE(ethtool.set_pause("lan2", PauseParams{false, true, true}));
  EXPECT_EQ(shown("lan2"), expected("lan2", true, true));
  EXPECT_EQ(shown("lan3"), expected("lan3", true, true));

  const auto dcb = test::sim_exec(dir_, {"dcb", "pfc", "set", "dev", "lan2", "prio-pfc", "3:on"});
  ASSERT_EQ(dcb.exit_code, 0) << dcb.err;
  EXPECT_EQ(shown("lan2"), expected("lan2", false, false));
  EXPECT_EQ(ethtool.pause("lan2").value(), (PauseParams{false, false, false}));
  EXPECT_EQ(shown("lan3"), expected("lan3", true, true));  // only the port whose mask changed
}

// `ethtool -A` through the shim, read back by roced: the other direction of the same ioctls.
TEST_F(EthtoolPauseCrosscheck, SetPauseReadsBackWhatEthtoolWroteAndAutonegIsRefused) {
  EthtoolClient ethtool(system_);
  const auto off = test::sim_exec(dir_, {"ethtool", "-A", "lan4", "rx", "off", "tx", "off"});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(ethtool.pause("lan4").value(), (PauseParams{false, false, false}));
  const auto tx = test::sim_exec(dir_, {"ethtool", "-A", "lan4", "tx", "on"});
  ASSERT_EQ(tx.exit_code, 0) << tx.err;
  EXPECT_EQ(ethtool.pause("lan4").value(), (PauseParams{false, false, true}));
  const auto autoneg = test::sim_exec(dir_, {"ethtool", "-A", "lan4", "autoneg", "on"});
  EXPECT_NE(autoneg.exit_code, 0);
  EXPECT_NE(autoneg.err.find("Invalid argument"), std::string::npos) << autoneg.err;
  EXPECT_EQ(ethtool.set_pause("lan4", PauseParams{true, false, true}).error().code, EINVAL);
}

}  // namespace
}  // namespace roced
