// SPDX-License-Identifier: Apache-2.0
// The applier on every mlx5 driver tree roce-sim models: Debian's 6.1 (the default node) and
// 6.12, MLNX_OFED, and nic-kernel (cable length and buffer ownership asked of the firmware, which
// roced cannot tell from what the host shows). Plan, apply and read back; a failed step rolled
// back; host buffers where the driver leaves them to the host, and what roced can say of their
// headroom; rate caps the tree would not program as asked; PFC off and on again.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "daemon/apply/applier.hpp"
#include "daemon/apply/port_device.hpp"
#include "daemon/plan/plan.hpp"
#include "in_process_node.hpp"
#include "port/discovery.hpp"
#include "scripted_device.hpp"
#include "stepping_time.hpp"
#include "test/support/build_paths.hpp"

namespace roced::apply {
namespace {

using Outcome = PortResult::Outcome;

// What roced says of the headroom after it sized the buffers and changed PFC.
enum class Headroom {
  Recomputed,     // the driver's manual flag: setpfc again at link speed recomputes it
  CannotTell,     // the driver asks the firmware's buffer ownership, which roced cannot read
  DriverManaged,  // roced leaves the buffers to the driver and the firmware
};

struct Flavour {
  std::string name;
  std::string node_file;  // empty: the embedded default node
  std::string netdev;
  Headroom headroom;
};
void PrintTo(const Flavour& flavour, std::ostream* os) { *os << flavour.name; }

class Flavours : public test::InProcessNode, public ::testing::WithParamInterface<Flavour> {
 protected:
  std::string node_file() const override { return GetParam().node_file; }

  void SetUp() override {
    test::InProcessNode::SetUp();
    options.first_backoff = std::chrono::milliseconds(0);
    options.time = &clock_;
    auto found = describe_netdev(*system_.files, GetParam().netdev);
    ASSERT_TRUE(found.ok()) << found.error().message;
    port_ = *found;
    device = std::make_unique<test::ScriptedDevice>(system_port_device(system_, port_));
  }
  void TearDown() override {
    device.reset();
    test::InProcessNode::TearDown();
  }

  PortStatus observe() { return plan::replan_port(system_, port_, want).observed; }
  PortResult apply() {
    return apply_port_on(*device, plan::plan_port(port_, want, observe()), options);
  }
  std::vector<plan::Change> pending() { return plan::plan_port(port_, want, observe()).changes; }

  config::Profile want = config::default_profile();
  test::SteppingTime clock_{time_};
  ApplyOptions options;
  DiscoveredPort port_;
  std::unique_ptr<test::ScriptedDevice> device;
};

TEST_P(Flavours, TheLosslessProfileIsAppliedAndReadsBack) {
  ASSERT_FALSE(pending().empty());
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_TRUE(pending().empty());
}

TEST_P(Flavours, AFailedStepPutsEveryFeatureBack) {
  const PortStatus before = observe();
  device->answers["set_rdma_cm_tos"] = {EIO};  // the last step
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::RolledBack) << result.error;
  const PortStatus after = observe();
  EXPECT_EQ(*after.dcbx.value, *before.dcbx.value);
  EXPECT_EQ(*after.dscp_apps.value, *before.dscp_apps.value);
  EXPECT_EQ(*after.ets.value, *before.ets.value);
  EXPECT_EQ(*after.pfc.value, *before.pfc.value);
  EXPECT_EQ(after.link.value->mtu, before.link.value->mtu);
}

// Where the driver leaves host-written buffers alone, roced sizes them and has the headroom
// recomputed at link speed. NVIDIA's driver resizes them itself on PFC and cable changes and
// fails a PFC change on them while the link retrains: roced reports the buffers as the driver's,
// leaves them to the firmware and applies everything else.
TEST_P(Flavours, HostBuffersOnlyWhereTheDriverLeavesThemToTheHost) {
  config::BufferProfile buffers;
  buffers.prio2buffer = {0, 0, 0, 1, 0, 0, 0, 0};
  buffers.buffer_size = {262144, 393216, 0, 0, 0, 0, 0, 0};
  want.buffers = buffers;
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_TRUE(pending().empty());
  bool host_owned = false;
  node_->inspect(
      [&](roce_sim::Node& node) { host_owned = node.find(GetParam().netdev)->buffers_manual(); });
  if (GetParam().headroom == Headroom::Recomputed) {
    EXPECT_EQ(result.headroom.rfind("recomputed", 0), 0u) << result.headroom;
    EXPECT_TRUE(host_owned);
    return;
  }
  if (GetParam().headroom == Headroom::CannotTell) {
    EXPECT_EQ(result.headroom.rfind("cannot tell", 0), 0u) << result.headroom;
    EXPECT_TRUE(host_owned);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].id, "headroom_unknown");
    return;
  }
  EXPECT_TRUE(result.headroom.empty()) << result.headroom;
  EXPECT_FALSE(host_owned);
  ASSERT_EQ(result.unsupported.size(), 1u);
  EXPECT_EQ(result.unsupported[0].setting, settings::Setting::Buffers);
  EXPECT_EQ(result.unsupported[0].kind, settings::Lacking::DriverManaged);
}

// A rate cap above 255 Gbit/s: MLNX_OFED and Debian's 6.1.115 would wrap it (300 Gbit/s becomes
// 44), Debian's 6.12.117 refuses it, and a tree roced cannot tell is not trusted with it. Refused
// before anything is written, on every tree; 200 Gbit/s goes in and reads back.
TEST_P(Flavours, ARateCapTheTreeWouldNotProgramAsAskedIsRefused) {
  std::array<uint32_t, 8> caps{};
  caps[7] = 300000;  // Mbit/s
  want.maxrate_mbps = caps;
  const PortResult refused = apply();
  ASSERT_EQ(refused.unsupported.size(), 1u) << refused.error;
  EXPECT_EQ(refused.unsupported[0].setting, settings::Setting::Maxrate);
  EXPECT_EQ(refused.unsupported[0].kind, settings::Lacking::OutOfRange);
  EXPECT_NE(observe().maxrate.value->tc_kbps[7], 44000000u) << "wrapped";
  caps[7] = 200000;
  want.maxrate_mbps = caps;
  const PortResult applied = apply();
  EXPECT_EQ(applied.outcome, Outcome::Applied) << applied.error;
  EXPECT_TRUE(applied.unsupported.empty());
  EXPECT_EQ(observe().maxrate.value->tc_kbps[7], 200000000u);
}

// The storm watchdog's remedy and its restoration are PFC changes: on both drivers they go
// through with roced's profile, and the port reads back as configured afterwards.
TEST_P(Flavours, PfcOffAndBackKeepsThePortAsConfigured) {
  config::BufferProfile buffers;
  buffers.prio2buffer = {0, 0, 0, 1, 0, 0, 0, 0};
  buffers.buffer_size = {262144, 393216, 0, 0, 0, 0, 0, 0};
  want.buffers = buffers;
  ASSERT_EQ(apply().outcome, Outcome::Applied);
  const uint8_t lossless = want.pfc_priorities;
  want.pfc_priorities = 0;
  EXPECT_EQ(apply().outcome, Outcome::Applied);
  time_.advance(std::chrono::seconds(5));  // link training
  want.pfc_priorities = lossless;
  const PortResult back = apply();
  EXPECT_EQ(back.outcome, Outcome::Applied) << back.error;
  EXPECT_TRUE(pending().empty());
}

// Buffers set by hand (priority 3 on an empty buffer): the driver sets the new PFC mask and
// flaps the link, then fails sizing the buffers (mainline: -ENOMEM for the empty buffer; NVIDIA's
// driver: -EINVAL, the link speed unknown while it retrains). The mask is in: roced undoes it,
// and the port reads as before. Debian's 6.12 on firmware without PCAM buffer_ownership sizes
// nothing after a PFC change, so there the change goes through.
TEST_P(Flavours, APfcChangeTheDriverFailsAfterSettingTheMaskIsUndone) {
  node_->change([&](roce_sim::Node& node) {
    auto* port = node.find(GetParam().netdev);
    dcbnl_buffer buffer{};
    ASSERT_EQ(port->dcbnl_getbuffer(buffer), 0);
    buffer.prio2buffer[3] = 2;
    ASSERT_EQ(port->dcbnl_setbuffer(buffer), 0);
  });
  const PortStatus before = observe();
  ASSERT_NE(before.pfc.value->enabled_mask, want.pfc_priorities);
  const PortResult result = apply();
  if (GetParam().headroom == Headroom::CannotTell) {
    EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
    EXPECT_EQ(observe().pfc.value->enabled_mask, want.pfc_priorities);
    return;
  }
  EXPECT_EQ(result.outcome, Outcome::RolledBack) << result.error;
  EXPECT_EQ(result.error.rfind("pfc.priorities: ", 0), 0u) << result.error;
  EXPECT_EQ(observe().pfc.value->enabled_mask, before.pfc.value->enabled_mask);
}

// mainline's debugfs np_cnp_prio puts the firmware's cnp_prio_mode to 0 with the priority (cong.c
// mlx5_ib_set_cc_param_mask_val); MLNX_OFED's ecn/roce_np/cnp_802p_prio writes the priority alone
// and shows no mode. There the priority reads back, yet whether CNPs use it cannot be told.
TEST_P(Flavours, ACnpPriorityIsClaimedOnlyWhereTheModeGoesWithIt) {
  ASSERT_EQ(apply().outcome, Outcome::Applied);
  uint64_t mode = 99;
  node_->inspect([&](roce_sim::Node& node) {
    mode = node.find(GetParam().netdev)->ecn().params.at("np_cnp_prio_mode");
  });
  const auto plan = plan::plan_port(port_, want, observe());
  EXPECT_TRUE(plan.changes.empty());
  const auto unconfirmed =
      std::count_if(plan.findings.begin(), plan.findings.end(),
                    [](const auto& f) { return f.id == "cnp_priority_unconfirmed"; });
  const bool ofed = GetParam().name == "mlnx_ofed";
  EXPECT_EQ(mode, ofed ? 1u : 0u);
  EXPECT_EQ(unconfirmed, ofed ? 1 : 0);
}

INSTANTIATE_TEST_SUITE_P(
    Mlx5, Flavours,
    ::testing::Values(Flavour{"debian_6_1", "", "lan2", Headroom::Recomputed},
                      Flavour{"debian_6_12",
                              std::string(ROCED_SIM_NODES) + "/dual-port-debian-6.12.yaml",
                              "ens1f0np0", Headroom::CannotTell},
                      Flavour{"mlnx_ofed", std::string(ROCED_SIM_NODES) + "/dual-port-ofed.yaml",
                              "ens1f0np0", Headroom::Recomputed},
                      Flavour{"nic_kernel",
                              std::string(ROCED_SIM_NODES) + "/dual-port-nic-kernel.yaml",
                              "ens1f0np0", Headroom::DriverManaged}),
    [](const ::testing::TestParamInfo<Flavour>& flavour) { return flavour.param.name; });

}  // namespace
}  // namespace roced::apply
