// SPDX-License-Identifier: Apache-2.0
// The faults the simulated node plays for roced's fault tests (docs/sim-formats.md):
// vanish_on_write, hold_reply, counter_clear, unreadable_file and phy_errors, on the node and its
// runner.
#include <gtest/gtest.h>

#include <cerrno>

#include "sim/model/node.hpp"
#include "sim/model/scenario.hpp"
#include "test/sim_model/test_ports.hpp"

namespace roce_sim {
namespace {

using namespace std::chrono_literals;

Scenario scenario(const std::string& body) {
  return parse_scenario_yaml("name: faults\n" + body, "faults.yaml");
}

uint64_t stat(const Port& port, const std::string& name) {
  for (const auto& [listed, value] : port.stats()) {
    if (listed == name) return value;
  }
  ADD_FAILURE() << "no " << name;
  return 0;
}

TEST(WriteTriggers, VanishFiresOnTheMatchingOpOnlyOnceAndUnbindsThePort) {
  Node node = test::two_port_node();
  node.arm_trigger({WriteTrigger::Kind::Vanish, "lan3", SetOp::Mtu, 2s, 7});
  EXPECT_EQ(node.take_injected_error("lan3", SetOp::Pfc), 0);  // another op goes through
  EXPECT_EQ(node.take_injected_error("lan2", SetOp::Mtu), 0);  // another port too
  EXPECT_NE(node.find("lan3"), nullptr);
  EXPECT_EQ(node.take_injected_error("lan3", SetOp::Mtu), -ENODEV);
  EXPECT_EQ(node.find("lan3"), nullptr);
  const auto fired = node.take_fired_vanishes();
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].id, 7u);
  EXPECT_EQ(fired[0].fired_by, SetOp::Mtu);
  EXPECT_TRUE(node.take_fired_vanishes().empty());
  EXPECT_TRUE(node.take_fired_holds().empty());
}

TEST(WriteTriggers, HoldLetsTheOpRunAndAnInjectedErrorStillApplies) {
  Node node = test::two_port_node();
  node.inject_set_errors("lan2", EBUSY, 1, SetOp::Pfc);
  node.arm_trigger({WriteTrigger::Kind::Hold, "lan2", SetOp::Link, 3s, 1});
  EXPECT_EQ(node.take_injected_error("lan2", SetOp::Pfc), -EBUSY);
  EXPECT_TRUE(node.take_fired_holds().empty());
  EXPECT_EQ(node.take_injected_error("lan2", SetOp::Mtu), 0);  // `link` matches an MTU set
  const auto fired = node.take_fired_holds();
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].duration, 3s);
  EXPECT_EQ(node.take_injected_error("lan2", SetOp::Mtu), 0);
  EXPECT_TRUE(node.take_fired_holds().empty()) << "a hold fires once";
}

TEST(FaultEvents, AVanishedPortReturnsWithFirmwareDefaultsAfterDownFor) {
  Node node = test::two_port_node();
  ScenarioRunner runner(node, scenario("duration: 1h\nevents:\n"
                                       "  - {at: 0s, kind: vanish_on_write, port: lan3, op: mtu,"
                                       " down_for: 2s}\n"));
  runner.advance(0us);
  ASSERT_EQ(node.find("lan3")->set_mtu(9000), 0);
  runner.advance(1s);
  EXPECT_NE(node.find("lan3"), nullptr) << "nothing fires before the write";
  EXPECT_EQ(node.take_injected_error("lan3", SetOp::Mtu), -ENODEV);
  node.take_events();
  runner.advance(1999ms);
  EXPECT_EQ(node.find("lan3"), nullptr);
  runner.advance(1ms);  // 2 s after the write
  ASSERT_NE(node.find("lan3"), nullptr);
  EXPECT_EQ(node.find("lan3")->mtu(), 1500u);
  const auto events = node.take_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, NodeEvent::Kind::LinkAdded);
  bool logged = false;
  for (const auto& line : runner.take_log()) {
    logged = logged || line.find("lan3: vanished at a mtu set") != std::string::npos;
  }
  EXPECT_TRUE(logged);
}

TEST(FaultEvents, CounterClearRestartsTheNamedCountersOnlyAndAReloadForgetsIt) {
  Node node = test::two_port_node();
  Port& lan3 = *node.find("lan3");
  lan3.counters().prio[3].tx_packets = 5000;
  lan3.counters().prio[3].rx_packets = 7000;
  lan3.rdma().hw_counters()["rp_cnp_handled"].value = 300;
  ScenarioRunner runner(node, scenario("duration: 1h\nevents:\n"
                                       "  - {at: 1s, kind: counter_clear, port: lan3,"
                                       " counters: [tx_prio3_packets, rp_cnp_handled, nope]}\n"));
  runner.advance(1s);
  EXPECT_EQ(stat(lan3, "tx_prio3_packets"), 0u);
  EXPECT_EQ(stat(lan3, "rx_prio3_packets"), 7000u);
  EXPECT_EQ(lan3.rdma().hw_counters().at("rp_cnp_handled").value, 0u);
  lan3.counters().prio[3].tx_packets += 10;  // counting on from 0
  EXPECT_EQ(stat(lan3, "tx_prio3_packets"), 10u);
  bool logged = false;
  for (const auto& line : runner.take_log()) {
    logged = logged || line.find("not counters of the port now: nope") != std::string::npos;
  }
  EXPECT_TRUE(logged);
  node.unbind("lan3");
  node.rebind("lan3");
  EXPECT_EQ(stat(*node.find("lan3"), "tx_prio3_packets"), 0u);
  node.find("lan3")->counters().prio[3].tx_packets = 4;
  EXPECT_EQ(stat(*node.find("lan3"), "tx_prio3_packets"), 4u) << "no clear survives a reload";
}

TEST(FaultEvents, UnreadableFileLastsItsDuration) {
  Node node = test::two_port_node();
  ScenarioRunner runner(node, scenario("duration: 1h\nevents:\n"
                                       "  - {at: 0s, kind: unreadable_file, port: lan3, duration: "
                                       "1s, file: sys/class/net/lan3/mtu}\n"));
  runner.advance(0us);
  EXPECT_EQ(node.unreadable_files().count("sys/class/net/lan3/mtu"), 1u);
  runner.advance(999ms);
  EXPECT_EQ(node.unreadable_files().size(), 1u);
  runner.advance(1ms);
  EXPECT_TRUE(node.unreadable_files().empty());
}

TEST(FaultEvents, BadFaultEventsAreFileLineColumnErrors) {
  const auto error_of = [](const std::string& events) {
    try {
      scenario("events:\n" + events);
    } catch (const FileError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of("  - {at: 0s, kind: unreadable_file, port: lan3, duration: 1s, file: "
                     "../etc/shadow}\n"),
            "faults.yaml:3:69: events[0].file: must be a path inside the node's directory (like "
            "sys/class/...)");
  EXPECT_EQ(error_of("  - {at: 0s, kind: counter_clear, port: lan3, counters: []}\n"),
            "faults.yaml:3:57: events[0].counters: names no counter");
  EXPECT_EQ(error_of("  - {at: 0s, kind: hold_reply, port: lan3, op: mtu}\n"),
            "faults.yaml:3:5: events[0].duration: missing (required)");
  const std::string op_error =
      error_of("  - {at: 0s, kind: vanish_on_write, port: lan3, op: sometimes, down_for: 1s}\n");
  EXPECT_EQ(op_error.rfind("faults.yaml:3:53: events[0].op: 'sometimes' is not one of ", 0), 0u)
      << op_error;
}

TEST(FaultEvents, PhyErrorsCountAtTheirRatesOnlyWhileTheLinkIsUp) {
  Node node = test::two_port_node();
  ScenarioRunner runner(node,
                        scenario("duration: 1h\nevents:\n"
                                 "  - {at: 1s, kind: phy_errors, port: lan2, duration: 10s,"
                                 " symbol_error_rate: 2.5, corrected_bit_rate: 1000}\n"
                                 "  - {at: 3s, kind: link_flap, port: lan2, down_for: 2s}\n"));
  runner.advance(1s);
  const Port& lan2 = *node.find("lan2");
  EXPECT_EQ(stat(lan2, "rx_pcs_symbol_err_phy"), 0u);
  runner.advance(2s);  // 1 s..3 s: up
  EXPECT_EQ(stat(lan2, "rx_pcs_symbol_err_phy"), 5u);
  EXPECT_EQ(stat(lan2, "rx_symbol_err_phy"), 5u);
  EXPECT_EQ(stat(lan2, "rx_corrected_bits_phy"), 2000u);
  runner.advance(2s);  // 3 s..5 s: the link is down and counts nothing
  EXPECT_EQ(stat(lan2, "rx_pcs_symbol_err_phy"), 5u);
  EXPECT_EQ(stat(lan2, "link_down_events_phy"), 1u);
  runner.advance(10s);  // 5 s..11 s up again, then the event is over
  EXPECT_EQ(stat(lan2, "rx_pcs_symbol_err_phy"), 20u);
  EXPECT_EQ(stat(lan2, "rx_corrected_bits_phy"), 8000u);
  EXPECT_EQ(stat(*node.find("lan3"), "rx_pcs_symbol_err_phy"), 0u) << "only the port named";
}

// A marginal slot's recoveries count on the PCIe function's own counter, with carrier or not; the
// stall figure stays the firmware's share of the last second, untouched.
TEST(FaultEvents, PcieErrorsCountRecoveriesWhetherTheLinkIsUpOrNot) {
  Node node = test::two_port_node();
  ScenarioRunner runner(node,
                        scenario("duration: 1h\nevents:\n"
                                 "  - {at: 1s, kind: pcie_errors, port: lan2, duration: 10s,"
                                 " recovery_rate: 0.5}\n"
                                 "  - {at: 3s, kind: link_flap, port: lan2, down_for: 2s}\n"));
  const Port& lan2 = *node.find("lan2");
  runner.advance(5s);  // 1 s..5 s, the link down for half of it
  EXPECT_EQ(stat(lan2, "rx_pci_signal_integrity"), 2u);
  runner.advance(10s);  // until 11 s, then over
  EXPECT_EQ(stat(lan2, "rx_pci_signal_integrity"), 5u);
  EXPECT_EQ(stat(lan2, "tx_pci_signal_integrity"), 0u);
  EXPECT_EQ(stat(lan2, "outbound_pci_stalled_wr"), 0u);
  EXPECT_EQ(stat(*node.find("lan3"), "rx_pci_signal_integrity"), 0u) << "only the port named";
}

}  // namespace
}  // namespace roce_sim
