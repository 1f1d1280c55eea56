// SPDX-License-Identifier: Apache-2.0
// The in-process node answers roced as the roce-sim server does: a plan, an apply that the model
// holds before apply_plan returns, the notifications a DCB set raises, file writes taken at once.
#include "in_process_node.hpp"

#include <gtest/gtest.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <span>
#include <string>
#include <thread>

#include "daemon/apply/applier.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "ethtool/ethtool.hpp"
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

namespace roced {
namespace {

// Firmware commands cost time: a statistics read waits for the 34 commands mlx5e_stats_update
// issues (sim/model/firmware_commands.hpp), on the node's clock, and they are counted where mlx5
// counts them (debugfs mlx5/<pci>/commands/<NAME>/{n,average}).
class FirmwareCost : public test::InProcessNode {
 protected:
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.firmware_command_us = 20;
  }
};

TEST_F(FirmwareCost, AStatisticsReadWaitsForItsFirmwareCommandsAndCountsThem) {
  StatsReader reader(system_, "lan2");
  ASSERT_TRUE(reader.names().ok());
  auto call = reader.values_call();
  ASSERT_TRUE(call.ok()) << call.error().message;
  std::atomic<bool> done{false};
  std::thread read([&] {
    system_.ethtool->call_batch(std::span(&*call, 1));
    done = true;
  });
  while (!done) time_.advance(std::chrono::microseconds(50));
  read.join();
  ASSERT_TRUE(call->result.ok()) << call->result.error().message;
  // At least the commands' time (the test's clock steps may overshoot it; the exact charge is
  // in the statistics below).
  EXPECT_GE(call->answered - call->issued, std::chrono::microseconds(34 * 20));
  const std::string commands = "/sys/kernel/debug/mlx5/0000:17:00.0/commands/";
  auto text = [&](const std::string& path) {
    auto read_back = system_.files->read(commands + path);
    return read_back.ok() ? *read_back : "(" + read_back.error().message + ")";
  };
  EXPECT_EQ(text("ACCESS_REG/n"), "31\n");
  EXPECT_EQ(text("ACCESS_REG/average"), "20000\n");
  EXPECT_EQ(text("QUERY_VPORT_COUNTER/n"), "1\n");
}

}  // namespace
}  // namespace roced
