// SPDX-License-Identifier: Apache-2.0
// The applier on both driver flavours roce-sim models: mainline mlx5 (the default node) and
// NVIDIA's own tree (the OFED node: a cable length of 0 refused, the cable length used by the
// firmware's buffers, u16 rate caps). Plan, apply and read back; a failed step rolled back; host
// buffers with their headroom recomputed at link speed. What differs between the flavours is the
// model's; the same assertions must hold on both.
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

namespace roced::apply {
namespace {

using Outcome = PortResult::Outcome;

struct Flavour {
  std::string name;
  std::string node_file;  // empty: the embedded default node
  std::string netdev;
};

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

TEST_P(Flavours, HostBuffersAreAppliedWithTheHeadroomRecomputed) {
  config::BufferProfile buffers;
  buffers.prio2buffer = {0, 0, 0, 1, 0, 0, 0, 0};
  buffers.buffer_size = {262144, 393216, 0, 0, 0, 0, 0, 0};
  want.buffers = buffers;
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(result.headroom.rfind("recomputed", 0), 0u) << result.headroom;
  EXPECT_TRUE(pending().empty());
}

INSTANTIATE_TEST_SUITE_P(
    Mlx5, Flavours,
    ::testing::Values(Flavour{"mainline", "", "lan2"},
                      Flavour{"nvidia", ROCED_SIM_NODES "/dual-port-ofed.yaml", "ens1f0np0"}),
    [](const ::testing::TestParamInfo<Flavour>& flavour) { return flavour.param.name; });

}  // namespace
}  // namespace roced::apply
