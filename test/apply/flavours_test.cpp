// SPDX-License-Identifier: Apache-2.0
// The applier on both driver flavours roce-sim models: mainline mlx5 (the default node) and
// NVIDIA's own tree (the OFED node: cable length and buffer ownership asked of the firmware,
// lossless buffers sized by the driver, u16 rate caps). Plan, apply and read back; a failed step
// rolled back; host buffers where the driver leaves them to the host; PFC off and on again. What
// differs between the flavours is the model's.
#include <gtest/gtest.h>

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

struct Flavour {
  std::string name;
  std::string node_file;  // empty: the embedded default node
  std::string netdev;
  bool host_buffers;  // the driver leaves host-written buffer sizes alone
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
  if (GetParam().host_buffers) {
    EXPECT_EQ(result.headroom.rfind("recomputed", 0), 0u) << result.headroom;
    EXPECT_TRUE(host_owned);
    return;
  }
  EXPECT_TRUE(result.headroom.empty()) << result.headroom;
  EXPECT_FALSE(host_owned);
  ASSERT_EQ(result.unsupported.size(), 1u);
  EXPECT_EQ(result.unsupported[0].setting, settings::Setting::Buffers);
  EXPECT_EQ(result.unsupported[0].kind, settings::Lacking::DriverManaged);
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
// and the port reads as before.
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
  EXPECT_EQ(result.outcome, Outcome::RolledBack) << result.error;
  EXPECT_EQ(result.error.rfind("pfc.priorities: ", 0), 0u) << result.error;
  EXPECT_EQ(observe().pfc.value->enabled_mask, before.pfc.value->enabled_mask);
}

INSTANTIATE_TEST_SUITE_P(
    Mlx5, Flavours,
    ::testing::Values(Flavour{"mainline", "", "lan2", true},
                      Flavour{"nvidia", std::string(ROCED_SIM_NODES) + "/dual-port-ofed.yaml",
                              "ens1f0np0", false}),
    [](const ::testing::TestParamInfo<Flavour>& flavour) { return flavour.param.name; });

}  // namespace
}  // namespace roced::apply
