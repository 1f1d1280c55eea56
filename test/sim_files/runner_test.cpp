// SPDX-License-Identifier: Apache-2.0
// ScenarioRunner: events fire at their simulated instants and act on the node as scenarios say.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "sim/model/node_file.hpp"
#include "sim/model/scenario.hpp"

namespace roce_sim {
namespace {

using namespace std::chrono_literals;

Scenario scenario(const std::string& body) {
  return parse_scenario_yaml("name: test\n" + body, "test.yaml");
}

bool has_event(const std::vector<NodeEvent>& events, NodeEvent::Kind kind,
               const std::string& netdev) {
  return std::any_of(events.begin(), events.end(),
                     [&](const NodeEvent& e) { return e.kind == kind && e.netdev == netdev; });
}

TEST(Runner, FiresEventsAtTheirSimulatedTimes) {
  Node node(default_node());
  ScenarioRunner runner(node,
                        scenario("events:\n"
                                 "  - {at: 5s, kind: link_flap, port: lan2, down_for: 2s}\n"));
  EXPECT_DOUBLE_EQ(runner.clock_speed(), 1.0);
  for (int second = 1; second <= 4; ++second) {
    runner.advance(1s);
    EXPECT_TRUE(node.find("lan2")->carrier()) << "t=" << second;
  }
  EXPECT_TRUE(runner.take_log().empty());
  runner.advance(1s);  // t=5s
  EXPECT_EQ(runner.now(), 5s);
  EXPECT_FALSE(node.find("lan2")->carrier());
  EXPECT_EQ(runner.take_log(), std::vector<std::string>{"t=5.000s lan2: link down (peer) for 2s"});
  EXPECT_TRUE(has_event(node.take_events(), NodeEvent::Kind::LinkChanged, "lan2"));
  runner.advance(1999ms);
  EXPECT_FALSE(node.find("lan2")->carrier());
  EXPECT_FALSE(runner.finished());
  runner.advance(1ms);  // t=7s
  EXPECT_TRUE(node.find("lan2")->carrier());
  EXPECT_EQ(runner.take_log(), std::vector<std::string>{"t=7.000s lan2: link up (peer)"});
  EXPECT_TRUE(runner.finished());
}

TEST(Runner, OneLongStepStillSplitsAtEachEvent) {
  Node node(default_node());
  ScenarioRunner runner(node,
                        scenario("traffic:\n"
                                 "  - {port: lan2, priority: 3, direction: tx, rate: 8G, "
                                 "packet_size: 1000}\n"
                                 "events:\n"
                                 "  - {at: 5s, kind: link_flap, port: lan2, down_for: 2s}\n"));
  runner.advance(10s);
  // 8 of the 10 seconds with carrier, at 1e9 bytes/s.
  EXPECT_EQ(node.find("lan2")->counters().prio[3].tx_bytes, 8'000'000'000u);
  EXPECT_EQ(node.find("lan2")->counters().prio[3].tx_packets, 8'000'000u);
  const auto log = runner.take_log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "t=5.000s lan2: link down (peer) for 2s");
  EXPECT_EQ(log[1], "t=7.000s lan2: link up (peer)");
}

TEST(Runner, ClockSpeedAndDurationFromTheFile) {
  Node node(default_node());
  ScenarioRunner runner(node, scenario("clock: {speed: 20}\nduration: 3s\n"));
  EXPECT_DOUBLE_EQ(runner.clock_speed(), 20.0);
  runner.advance(2999ms);
  EXPECT_FALSE(runner.finished());
  runner.advance(1ms);
  EXPECT_TRUE(runner.finished());
}

TEST(Runner, DriverReloadRemovesThePortThenRestoresFirmwareDefaults) {
  Node node(default_node());
  Port* lan3 = node.find("lan3");
  ASSERT_NE(lan3, nullptr);
  const int old_ifindex = node.ifindex("lan3");
  ASSERT_EQ(lan3->set_mtu(9000), 0);
  ieee_pfc pfc{};
  pfc.pfc_en = 1 << 3;
  ASSERT_EQ(lan3->ieee_setpfc(pfc), 0);
  node.take_events();

  ScenarioRunner runner(node,
                        scenario("events:\n"
                                 "  - {at: 1s, kind: driver_reload, port: lan3, down_for: 3s}\n"));
  runner.advance(1s);
  EXPECT_EQ(node.find("lan3"), nullptr);
  EXPECT_EQ(node.ports().size(), 3u);
  EXPECT_TRUE(has_event(node.take_events(), NodeEvent::Kind::LinkRemoved, "lan3"));
  runner.advance(2999ms);
  EXPECT_EQ(node.find("lan3"), nullptr);
  runner.advance(1ms);
  Port* back = node.find("lan3");
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->mtu(), 1500u);
  ieee_pfc after{};
  ASSERT_EQ(back->ieee_getpfc(after), 0);
  EXPECT_EQ(after.pfc_en, 0);
  EXPECT_NE(node.ifindex("lan3"), old_ifindex);
  EXPECT_TRUE(has_event(node.take_events(), NodeEvent::Kind::LinkAdded, "lan3"));
  const auto log = runner.take_log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "t=1.000s lan3: driver unbound for 3s");
  EXPECT_EQ(log[1], "t=4.000s lan3: driver bound again: firmware defaults");
}

TEST(Runner, DriverReloadOfAllPorts) {
  Node node(default_node());
  ScenarioRunner runner(node,
                        scenario("events:\n"
                                 "  - {at: 0s, kind: driver_reload, port: all, down_for: 1s}\n"));
  runner.advance(0s);
  EXPECT_TRUE(node.ports().empty());
  runner.advance(1s);
  EXPECT_EQ(node.ports().size(), 4u);
}

TEST(Runner, ForeignToolChangesPfcAndTrustAndSaysSo) {
  Node node(default_node());
  node.take_events();
  ScenarioRunner runner(node, scenario("events:\n"
                                       "  - at: 2s\n"
                                       "    kind: foreign_tool\n"
                                       "    port: lan4\n"
                                       "    tool: mlnx_qos\n"
                                       "    set: {pfc: [3, 5], trust: dscp, dscp: {26: 3}}\n"));
  runner.advance(1s);
  EXPECT_FALSE(has_event(node.take_events(), NodeEvent::Kind::DcbChanged, "lan4"));
  runner.advance(1s);
  Port* lan4 = node.find("lan4");
  ieee_pfc pfc{};
  ASSERT_EQ(lan4->ieee_getpfc(pfc), 0);
  EXPECT_EQ(pfc.pfc_en, (1 << 3) | (1 << 5));
  EXPECT_TRUE(lan4->trust_dscp());
  const auto events = node.take_events();
  EXPECT_TRUE(has_event(events, NodeEvent::Kind::DcbChanged, "lan4"));
  EXPECT_TRUE(
      has_event(events, NodeEvent::Kind::LinkChanged, "lan4"));  // PFC change flaps the link
  EXPECT_FALSE(has_event(events, NodeEvent::Kind::DcbChanged, "lan2"));
  const auto log = runner.take_log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0], "t=2.000s lan4: mlnx_qos changes trust dscp, dscp 26->3, pfc 3,5");
}

TEST(Runner, ForeignToolSetsGlobalPauseAfterPfcWithoutADcbNotification) {
  Node node(default_node());
  node.take_events();
  ScenarioRunner runner(node, scenario("events:\n"
                                       "  - at: 1s\n"
                                       "    kind: foreign_tool\n"
                                       "    port: lan3\n"
                                       "    tool: ethtool\n"
                                       "    set: {pfc: [3], global_pause: rx}\n"));
  runner.advance(1s);
  const Port* lan3 = node.find("lan3");
  EXPECT_EQ(lan3->pfc_enabled(), 1 << 3);
  // The PFC change turned global pause off (mlx5_set_port_pfc); ethtool -A then set rx alone.
  EXPECT_TRUE(lan3->global_pause_rx());
  EXPECT_FALSE(lan3->global_pause_tx());
  const auto log = runner.take_log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0], "t=1.000s lan3: ethtool changes pfc 3, pause rx on tx off");
  ScenarioRunner again(node, scenario("events:\n"
                                      "  - {at: 0s, kind: foreign_tool, port: lan3,\n"
                                      "     set: {global_pause: off}}\n"));
  node.take_events();
  again.advance(0s);
  EXPECT_FALSE(lan3->global_pause_rx());
  for (const auto& event : node.take_events())
    EXPECT_NE(event.kind, NodeEvent::Kind::DcbChanged);  // an ethtool set, not a dcbnl one
}

TEST(Runner, DcbxPeerOverridesOnlyOutsideHostMode) {
  Node node(default_node());
  Port* lan3 = node.find("lan3");
  ASSERT_EQ(lan3->setdcbx(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE), 0);
  node.take_events();
  ScenarioRunner runner(node, scenario("events:\n"
                                       "  - {at: 1s, kind: dcbx_peer, port: lan2, pfc: [4]}\n"
                                       "  - {at: 1s, kind: dcbx_peer, port: lan3, pfc: [4]}\n"));
  runner.advance(1s);
  ieee_pfc pfc{};
  node.find("lan2")->ieee_getpfc(pfc);
  EXPECT_EQ(pfc.pfc_en, 1 << 4);  // firmware DCBX mode: the willing agent takes the peer's PFC
  node.find("lan3")->ieee_getpfc(pfc);
  EXPECT_EQ(pfc.pfc_en, 0);  // host mode: ignored
  // mlx5 announces nothing its firmware agent does (no dcbnl request was made).
  const auto events = node.take_events();
  EXPECT_FALSE(has_event(events, NodeEvent::Kind::DcbChanged, "lan2"));
  EXPECT_FALSE(has_event(events, NodeEvent::Kind::DcbChanged, "lan3"));
}

TEST(Runner, NetlinkErrorsAreInjected) {
  Node node(default_node());
  ScenarioRunner runner(node,
                        scenario("events:\n"
                                 "  - {at: 1s, kind: netlink_errors, port: lan5, errno: EBUSY, "
                                 "count: 2}\n"));
  EXPECT_EQ(node.take_injected_error("lan5"), 0);
  runner.advance(1s);
  EXPECT_EQ(node.take_injected_error("lan5"), -EBUSY);
  EXPECT_EQ(node.take_injected_error("lan5"), -EBUSY);
  EXPECT_EQ(node.take_injected_error("lan5"), 0);
}

TEST(Runner, AddressEventsChangeTheGidTable) {
  Node node(default_node());
  const auto used = [&] {
    const auto& table = node.find("lan2")->rdma().gid_table();
    return std::count_if(table.begin(), table.end(), [](const auto& e) { return e.has_value(); });
  };
  const auto before = used();
  ScenarioRunner runner(
      node, scenario("events:\n"
                     "  - {at: 1s, kind: address, port: lan2, add: [10.9.0.1/24]}\n"
                     "  - {at: 2s, kind: address, port: lan2, remove: [10.9.0.1/24]}\n"));
  runner.advance(1s);
  EXPECT_EQ(used(), before + 2);  // a RoCE v1 and a v2 entry
  runner.advance(1s);
  EXPECT_EQ(used(), before);
}

TEST(Runner, StormIgnoringRemediationOutlastsAForeignToolTurningPfcOff) {
  // Links that train inside the PFC change: the seconds of carrier loss are not this test's
  // subject (PortPfc and PortBuffer test them).
  auto specs = default_node();
  for (PortSpec& spec : specs) spec.link_training_ms = 0;
  Node node(specs);
  ScenarioRunner runner(
      node, scenario("traffic:\n"
                     "  - {port: lan2, priority: 3, direction: tx, rate: 8G, packet_size: 1000}\n"
                     "  - {port: lan3, priority: 3, direction: tx, rate: 8G, packet_size: 1000}\n"
                     "events:\n"
                     "  - {at: 0s, kind: foreign_tool, port: lan2, set: {pfc: [3]}}\n"
                     "  - {at: 0s, kind: foreign_tool, port: lan3, set: {pfc: [3]}}\n"
                     "  - {at: 1s, kind: pfc_storm, port: lan2, priority: 3, direction: rx,\n"
                     "     duration: 10s, ignores_remediation: true}\n"
                     "  - {at: 1s, kind: pfc_storm, port: lan3, priority: 3, direction: rx,\n"
                     "     duration: 10s}\n"
                     "  - {at: 2s, kind: foreign_tool, port: lan2, set: {pfc: []}}\n"
                     "  - {at: 2s, kind: foreign_tool, port: lan3, set: {pfc: []}}\n"));
  runner.advance(4s);
  const auto& lan2 = node.find("lan2")->counters();
  const auto& lan3 = node.find("lan3")->counters();
  EXPECT_EQ(lan2.prio[3].tx_bytes, 1'000'000'000u);  // only the second before the storm
  EXPECT_EQ(lan3.prio[3].tx_bytes, 3'000'000'000u);  // and again from t=2s, PFC off
  EXPECT_EQ(lan2.prio[3].rx_pause_duration_us, 3'000'000u);
  EXPECT_EQ(lan3.prio[3].rx_pause_duration_us, 1'000'000u);
  EXPECT_EQ(lan2.rx_pause_ctrl_phy, lan3.rx_pause_ctrl_phy);  // the MACs count alike
  const auto log = runner.take_log();
  ASSERT_GE(log.size(), 4u);
  EXPECT_EQ(log[2],
            "t=1.000s lan2: PFC storm (rx) on priority 3 begins for 10s (ignores remediation: the "
            "NIC honours the pauses even with PFC off)");
  EXPECT_EQ(log[3], "t=1.000s lan3: PFC storm (rx) on priority 3 begins for 10s");
}

TEST(Runner, EventOnAnAbsentPortIsSkippedWithALogLine) {
  Node node(default_node());
  ScenarioRunner runner(node,
                        scenario("events:\n"
                                 "  - {at: 1s, kind: driver_reload, port: lan2, down_for: 5s}\n"
                                 "  - {at: 2s, kind: link_flap, port: lan2, down_for: 1s}\n"));
  runner.advance(2s);
  const auto log = runner.take_log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1], "t=2.000s lan2: link_flap skipped: the port is absent (driver unbound)");
}

// ---- documents played into a running timeline (`roce-sim inject`)

Scenario injection(const std::string& body) {
  return parse_scenario_yaml(body, "inject.yaml", ScenarioUse::Inject);
}

TEST(RunnerInject, EventsAndFlowsCountFromTheInjection) {
  Node node(default_node());
  ScenarioRunner runner(node,
                        scenario("events:\n"
                                 "  - {at: 5s, kind: link_flap, port: lan2, down_for: 1s}\n"));
  runner.advance(3s);
  runner.inject(
      injection("traffic:\n"
                "  - {port: lan4, priority: 3, direction: tx, rate: 8G, "
                "packet_size: 1000}\n"
                "events:\n"
                "  - {at: 1s, kind: link_flap, port: lan3, down_for: 3s}\n"
                "  - {at: 0s, kind: link_flap, port: lan5, down_for: 1s}\n"));
  EXPECT_EQ(runner.take_log(),
            std::vector<std::string>{"t=3.000s injected inject.yaml: 2 events, 1 flow"});
  runner.advance(0s);  // what is due at once
  EXPECT_FALSE(node.find("lan5")->carrier());
  EXPECT_TRUE(node.find("lan3")->carrier());
  runner.advance(3s);  // t=6s
  EXPECT_EQ(runner.take_log(), (std::vector<std::string>{
                                   "t=3.000s lan5: link down (peer) for 1s",
                                   "t=4.000s lan5: link up (peer)",  // ends first
                                   "t=4.000s lan3: link down (peer) for 3s",
                                   "t=5.000s lan2: link down (peer) for 1s",
                                   "t=6.000s lan2: link up (peer)",
                               }));
  // The flow from t=3s on only: 3 s at 1e9 bytes/s.
  EXPECT_EQ(node.find("lan4")->counters().prio[3].tx_bytes, 3'000'000'000u);
  EXPECT_FALSE(runner.finished());  // lan3 is down until t=7s
  runner.advance(1s);
  EXPECT_TRUE(node.find("lan3")->carrier());
  EXPECT_TRUE(runner.finished());
}

TEST(RunnerInject, AnInjectedStormBeginningAsAnotherEndsStaysInForce) {
  Node node(default_node());
  ieee_pfc pfc{};
  pfc.pfc_en = 1 << 3;
  ASSERT_EQ(node.find("lan2")->ieee_setpfc(pfc), 0);
  ScenarioRunner runner(node, scenario("events:\n"
                                       "  - {at: 0s, kind: pfc_storm, port: lan2, priority: 3, "
                                       "direction: rx, duration: 5s}\n"));
  runner.advance(3s);
  runner.inject(
      injection("events:\n"
                "  - {at: 2s, kind: pfc_storm, port: lan2, priority: 3, "
                "direction: rx, duration: 5s}\n"));
  runner.advance(3s);  // t=6s: the first ended at 5s, the injected one began then
  EXPECT_TRUE(runner.traffic().storm_active("lan2", 3, Direction::Rx));
  EXPECT_EQ(node.find("lan2")->counters().prio[3].rx_pause_duration_us, 6'000'000u);
}

TEST(RunnerInject, ARefusedInjectionAddsNothing) {
  Node node(default_node());
  ScenarioRunner runner(node, scenario("traffic:\n"
                                       "  - {port: lan2, priority: 3, direction: tx, "
                                       "rate: 300G}\n"));
  runner.advance(1s);
  try {
    runner.inject(
        injection("traffic:\n"
                  "  - {port: lan3, priority: 3, direction: tx, rate: 8G}\n"
                  "events:\n"
                  "  - {at: 0s, kind: link_flap, port: lan2, down_for: 1s}\n"
                  "  - {at: 0s, kind: link_flap, port: lan9, down_for: 1s}\n"));
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_EQ(e.file(), "inject.yaml");
    EXPECT_EQ(e.line(), 5);
    EXPECT_EQ(e.field(), "events[1].port");
    EXPECT_EQ(e.message(), "no port 'lan9' in this node (it has lan2, lan3, lan4, lan5)");
  }
  try {  // the port's limit counts the flows already running
    runner.inject(
        injection("traffic:\n"
                  "  - {port: lan2, priority: 4, direction: tx, rate: 200G}\n"));
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.field(), "traffic[0].port");
    EXPECT_EQ(e.message(),
              "flows on lan2 tx add up to 500G, more than the port's 400G (300G of it already "
              "running)");
  }
  runner.advance(1s);
  EXPECT_TRUE(runner.take_log().empty());
  EXPECT_TRUE(node.find("lan2")->carrier());
  EXPECT_EQ(node.find("lan3")->counters().prio[3].tx_bytes, 0u);
  EXPECT_EQ(runner.traffic().flows().size(), 1u);
}

}  // namespace
}  // namespace roce_sim
