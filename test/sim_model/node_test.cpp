// SPDX-License-Identifier: Apache-2.0
// The simulated node: interface indexes, driver unbind/rebind, injected errors and events.
#include "sim/model/node.hpp"

#include <gtest/gtest.h>

#include <cerrno>

#include "test/sim_model/test_ports.hpp"

namespace roce_sim {
namespace {

TEST(Node, IfindexesStartAt2AndStayStable) {
  Node node = test::two_port_node();
  EXPECT_EQ(node.ifindex("lan2"), 2);
  EXPECT_EQ(node.ifindex("lan3"), 3);
  EXPECT_EQ(node.ifindex("lan9"), 0);
  ASSERT_NE(node.find(3), nullptr);
  EXPECT_EQ(node.find(3)->netdev(), "lan3");
  EXPECT_EQ(node.find("lan2")->rdma().name(), "mlx5_0");
  EXPECT_EQ(node.ports().size(), 2u);
  EXPECT_TRUE(node.take_events().empty());
}

TEST(Node, ReloadRestartsTheEthtoolCountersFromCountersStart) {
  auto spec = test::cx7_port("lan2", "mlx5_0", "192.168.2.10/24");
  spec.counters_start = 18'446'744'073'709'000'000u;
  Node node({spec});
  const auto tx_bytes = [&] {
    const auto stats = node.find("lan2")->stats();
    for (const auto& [name, value] : stats) {
      if (name == "tx_bytes") return value;
    }
    return uint64_t{0};
  };
  EXPECT_EQ(tx_bytes(), spec.counters_start);
  node.find("lan2")->counters().tx_bytes = 1'000'000;  // past 2^64 in the ethtool view
  EXPECT_EQ(tx_bytes(), 448'384u);                     // 2^64 - 18446744073709000000 = 551616
  node.unbind("lan2");
  node.rebind("lan2");
  EXPECT_EQ(node.find("lan2")->counters().tx_bytes, 0u);
  EXPECT_EQ(tx_bytes(), spec.counters_start);
}

TEST(Node, UnbindRemovesAndRebindComesBackWithDefaultsAndANewIfindex) {
  Node node = test::two_port_node();
  Port* lan2 = node.find("lan2");
  ieee_pfc pfc{};
  pfc.pfc_en = 0x08;
  ASSERT_EQ(lan2->ieee_setpfc(pfc), 0);
  ASSERT_EQ(lan2->set_mtu(9000), 0);

  node.unbind("lan2");
  EXPECT_EQ(node.find("lan2"), nullptr);
  EXPECT_EQ(node.find(2), nullptr);
  EXPECT_EQ(node.ifindex("lan2"), 0);
  EXPECT_EQ(node.ports().size(), 1u);
  auto events = node.take_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, NodeEvent::Kind::LinkRemoved);
  EXPECT_EQ(events[0].netdev, "lan2");
  EXPECT_EQ(events[0].ifindex, 2);

  node.rebind("lan2");
  Port* again = node.find("lan2");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(node.ifindex("lan2"), 4);
  EXPECT_EQ(node.ifindex("lan3"), 3);
  EXPECT_EQ(again->pfc_enabled(), 0);
  EXPECT_EQ(again->mtu(), 1500u);
  events = node.take_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, NodeEvent::Kind::LinkAdded);
  EXPECT_EQ(events[0].ifindex, 4);
}

TEST(Node, EmptyNameReloadsEveryPort) {
  Node node = test::two_port_node();
  node.unbind("");
  EXPECT_TRUE(node.ports().empty());
  node.rebind("");
  EXPECT_EQ(node.ifindex("lan2"), 4);
  EXPECT_EQ(node.ifindex("lan3"), 5);
  EXPECT_EQ(node.take_events().size(), 4u);
}

TEST(Node, InjectedErrorsAreConsumedOneByOnePerNetdev) {
  Node node = test::two_port_node();
  node.inject_set_errors("lan2", EBUSY, 2);
  EXPECT_EQ(node.take_injected_error("lan3"), 0);
  EXPECT_EQ(node.take_injected_error("lan2"), -EBUSY);
  EXPECT_EQ(node.take_injected_error("lan2"), -EBUSY);
  EXPECT_EQ(node.take_injected_error("lan2"), 0);
  node.inject_set_errors("lan3", -EIO, 1);  // either sign is taken as the errno
  EXPECT_EQ(node.take_injected_error("lan3"), -EIO);
}

TEST(Node, NotesBecomeEventsWithTheCurrentIfindex) {
  Node node = test::two_port_node();
  node.note_dcb_changed("lan3", DCB_CMD_IEEE_SET);
  node.note_link_changed("lan2");
  node.note_link_changed("nope");
  const auto events = node.take_events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, NodeEvent::Kind::DcbChanged);
  EXPECT_EQ(events[0].ifindex, 3);
  EXPECT_EQ(events[1].kind, NodeEvent::Kind::LinkChanged);
  EXPECT_EQ(events[1].netdev, "lan2");
  EXPECT_TRUE(node.take_events().empty());
}

}  // namespace
}  // namespace roce_sim
