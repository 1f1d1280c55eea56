// SPDX-License-Identifier: Apache-2.0
// The in-process node answers roced as the roce-sim server does: a plan, an apply that the model
// holds before apply_plan returns, the notifications a DCB set raises, file writes taken at once.
#include "in_process_node.hpp"

#include <gtest/gtest.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "daemon/apply/applier.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "node_files.hpp"

namespace roced {
namespace {

class InProcess : public test::InProcessNode {
 protected:
  void SetUp() override {
    InProcessNode::SetUp();
    auto loaded = config::load_string(test::kLosslessConfig, "roced.yaml");
    ASSERT_TRUE(loaded.ok());
    config_ = *loaded.config;
  }

  config::Config config_;
};

TEST_F(InProcess, AnApplyIsInTheModelWhenItReturnsAndTheNextPlanIsEmpty) {
  const plan::Plan before = plan::make_plan(system_, config_);
  ASSERT_EQ(before.ports.size(), 4u);
  EXPECT_TRUE(before.has_changes());

  const auto result = apply::apply_plan(system_, before);
  EXPECT_TRUE(result.ok()) << apply::format_apply_text(result);
  node_->inspect([](roce_sim::Node& node) {
    roce_sim::Port* lan3 = node.find("lan3");
    ASSERT_NE(lan3, nullptr);
    EXPECT_EQ(lan3->pfc_enabled(), 0x08);             // written over dcbnl
    EXPECT_EQ(lan3->mtu(), 9000u);                    // over rtnetlink
    EXPECT_EQ(lan3->rdma().default_roce_tos(), 106);  // through the configfs file
  });
  EXPECT_FALSE(plan::make_plan(system_, config_).has_changes());
  EXPECT_GT(node_->writes_total(), 0u);
}

TEST_F(InProcess, ADcbSetReachesASocketInTheDcbGroupAndItsFdPollsReadable) {
  auto listener = system_.open_rtnl();
  ASSERT_TRUE(listener.ok());
  ASSERT_TRUE((*listener)->join_group(RTNLGRP_DCB).ok());
  pollfd idle{(*listener)->fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&idle, 1, 0), 0) << "nothing has happened yet";

  ASSERT_TRUE(apply::apply_plan(system_, plan::make_plan(system_, config_)).ok());
  pollfd ready{(*listener)->fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&ready, 1, 0), 1) << "dcbnl_notify went out with the set";
  auto datagram = (*listener)->receive(std::chrono::milliseconds(0));
  ASSERT_TRUE(datagram.ok());
  ASSERT_GE(datagram->size(), sizeof(nlmsghdr));
  nlmsghdr header{};
  std::memcpy(&header, datagram->data(), sizeof header);
  EXPECT_EQ(header.nlmsg_type, RTM_SETDCB);
}

TEST_F(InProcess, AForeignChangeIsSeenByTheNextPlan) {
  ASSERT_TRUE(apply::apply_plan(system_, plan::make_plan(system_, config_)).ok());
  node_->change([](roce_sim::Node& node) {
    ieee_pfc pfc{};
    ASSERT_EQ(node.find("lan4")->ieee_getpfc(pfc), 0);
    pfc.pfc_en = 0;
    ASSERT_EQ(node.find("lan4")->ieee_setpfc(pfc), 0);
  });
  const plan::Plan again = plan::make_plan(system_, config_);
  for (const auto& port : again.ports) {
    EXPECT_EQ(port.changes.empty(), port.port.netdev != "lan4") << port.port.netdev;
  }
}

}  // namespace
}  // namespace roced
