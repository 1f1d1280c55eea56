// SPDX-License-Identifier: Apache-2.0
// Scenario files: every example in sim/scenarios parses; fields land where they should; bad input
// names its place and field.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/model/node_file.hpp"
#include "sim/model/scenario.hpp"
#include "test/support/build_paths.hpp"

namespace roce_sim {
namespace {

using namespace std::chrono_literals;
namespace ev = scenario_event;

FileError scenario_parse_error(const std::string& text) {
  try {
    parse_scenario_yaml(text, "s.yaml");
  } catch (const FileError& e) {
    return e;
  }
  ADD_FAILURE() << "no FileError for:\n" << text;
  return FileError("", 0, 0, "", "");
}

TEST(ScenarioFile, ASwitchEventChangesWhatTheSwitchSends) {
  auto e = scenario_parse_error("name: t\nevents:\n  - {at: 1s, kind: switch, port: lan2}\n");
  EXPECT_EQ(e.field(), "events[0]");
  EXPECT_NE(e.message().find("a switch event needs something to change"), std::string::npos);
  e = scenario_parse_error(
      "name: t\nevents:\n  - {at: 1s, kind: switch, port: lan2, lldp: maybe}\n");
  EXPECT_EQ(e.field(), "events[0].lldp");
  const Scenario s = parse_scenario_yaml(
      "name: t\nevents:\n  - {at: 1s, kind: switch, port: lan2, pfc: [4], lldp: shutdown}\n",
      "s.yaml");
  const auto& change = std::get<ev::SwitchChange>(s.events.at(0).body).change;
  EXPECT_EQ(change.pfc, 1u << 4);
  EXPECT_EQ(change.lldp, SwitchLldp::Shutdown);
  EXPECT_EQ(s.events[0].kind(), "switch");
}

TEST(ScenarioFile, EveryExampleParsesAndRunsOnTheDefaultNode) {
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SIM_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    ++files;
    const Scenario scenario = load_scenario_file(entry.path());
    EXPECT_FALSE(scenario.name.empty());
    Node node(default_node());
    ScenarioRunner runner(node, scenario);
    // Play it to the end in 100 ms steps: every event fires, nothing throws.
    for (int step = 0; step < 100000 && !runner.finished(); ++step) runner.advance(100ms);
    EXPECT_TRUE(runner.finished());
    EXPECT_GE(runner.take_log().size(), scenario.events.size());
  }
  EXPECT_GE(files, 6);
}

TEST(ScenarioFile, FieldsOfEveryKind) {
  const Scenario s =
      load_scenario_file(std::string(SIM_SOURCE_DIR) + "/scenarios/every-event.yaml");
  EXPECT_EQ(s.name, "every-event");
  EXPECT_DOUBLE_EQ(s.clock_speed, 10.0);
  ASSERT_TRUE(s.duration.has_value());
  EXPECT_EQ(*s.duration, 60s);
  ASSERT_EQ(s.traffic.size(), 3u);
  EXPECT_EQ(s.traffic[0].port, "lan2");
  EXPECT_EQ(s.traffic[0].priority, 3);
  EXPECT_EQ(s.traffic[0].direction, Direction::Tx);
  EXPECT_EQ(s.traffic[0].rate_bps, 100'000'000'000u);
  EXPECT_EQ(s.traffic[0].packet_size, 4096u);
  EXPECT_EQ(s.traffic[1].direction, Direction::Rx);

  ASSERT_EQ(s.events.size(), 10u);
  const auto& congestion = std::get<ev::Congestion>(s.events[1].body);
  EXPECT_EQ(s.events[1].at, 2s);
  EXPECT_EQ(s.events[1].port, "lan2");
  EXPECT_EQ(congestion.duration, 3s);
  EXPECT_DOUBLE_EQ(congestion.ecn_mark_ratio, 0.05);
  EXPECT_DOUBLE_EQ(congestion.cnp_per_second, 10000);
  EXPECT_DOUBLE_EQ(congestion.pause_ratio, 0.3);
  const auto& storm = std::get<ev::PfcStorm>(s.events[3].body);
  EXPECT_EQ(storm.direction, Direction::Tx);
  EXPECT_EQ(std::get<ev::LinkFlap>(s.events[4].body).down_for, 500ms);
  EXPECT_EQ(std::get<ev::DriverReload>(s.events[5].body).down_for, 2s);
  const auto& tool = std::get<ev::ForeignTool>(s.events[0].body);
  EXPECT_EQ(tool.tool, "mlnx_qos");
  EXPECT_EQ(tool.pfc_enable, uint8_t{1 << 3});
  EXPECT_EQ(tool.trust_dscp, true);
  EXPECT_EQ(tool.dscp_to_priority.at(26), 3);
  EXPECT_EQ(tool.dscp_to_priority.at(48), 6);
  EXPECT_EQ(tool.dcbx_host, true);
  EXPECT_EQ(tool.stall_prevention_ms, uint16_t{500});
  ASSERT_TRUE(tool.ets_bandwidth.has_value());
  EXPECT_EQ((*tool.ets_bandwidth)[3], 50);
  EXPECT_EQ(std::get<ev::DcbxPeer>(s.events[6].body).pfc_enable, uint8_t{1 << 3});
  const auto& errors = std::get<ev::NetlinkErrors>(s.events[7].body);
  EXPECT_EQ(errors.err, EBUSY);
  EXPECT_EQ(errors.count, 2);
  const auto& address = std::get<ev::AddressChange>(s.events[8].body);
  EXPECT_EQ(address.add, (std::vector<std::string>{"192.168.20.10/24", "fd00:2::10/64"}));
  EXPECT_EQ(s.events[8].kind(), "address");
  EXPECT_EQ(s.events[5].end(), 22s);
  EXPECT_EQ(s.events[0].at_place.line, 13);
  EXPECT_EQ(s.events[0].at_place.field, "events[0].at");
}

TEST(ScenarioFile, EventsAreSortedByTime) {
  const Scenario s = parse_scenario_yaml(
      "name: x\n"
      "events:\n"
      "  - {at: 5s, kind: link_flap, port: lan2, down_for: 1s}\n"
      "  - {at: 500ms, kind: link_flap, port: lan3, down_for: 1s}\n",
      "s.yaml");
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[0].port, "lan3");
  EXPECT_EQ(s.events[0].at, 500ms);
  EXPECT_EQ(s.end(), 6s);  // no duration: the end of the last event
}

TEST(ScenarioFile, OutOfRangePriorityPointsAtTheValue) {
  try {
    load_scenario_file(std::string(SIM_FILES_DATA_DIR) + "/bad-storm.yaml");
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_EQ(e.line(), 7);
    EXPECT_EQ(e.column(), 15);
    EXPECT_EQ(e.field(), "events[1].priority");
    EXPECT_EQ(e.message(), "9 is out of range (0-7)");
  }
}

TEST(ScenarioFile, UnknownKindSuggests) {
  const auto e =
      scenario_parse_error("name: x\nevents:\n  - {at: 1s, kind: pfc-storm, port: lan2}\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 20);
  EXPECT_EQ(e.field(), "events[0].kind");
  EXPECT_NE(e.message().find("did you mean 'pfc_storm'?"), std::string::npos) << e.what();
}

TEST(ScenarioFile, KeyOfAnotherKindIsUnknown) {
  const auto e = scenario_parse_error(
      "name: x\n"
      "events:\n"
      "  - at: 1s\n"
      "    kind: link_flap\n"
      "    port: lan2\n"
      "    duration: 2s\n");
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.column(), 5);
  EXPECT_EQ(e.field(), "events[0].duration");
  EXPECT_EQ(e.message(), "unknown key");
}

TEST(ScenarioFile, BadDurationAndRate) {
  auto e = scenario_parse_error(
      "name: x\nevents:\n  - {at: soon, kind: link_flap, port: lan2, down_for: 1s}\n");
  EXPECT_EQ(e.field(), "events[0].at");
  EXPECT_EQ(e.message(), "'soon' is not a duration (e.g. 500ms, 2s)");
  e = scenario_parse_error(
      "name: x\ntraffic:\n  - {port: lan2, priority: 3, direction: tx, rate: fast}\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 52);
  EXPECT_EQ(e.field(), "traffic[0].rate");
  EXPECT_EQ(e.message(), "'fast' is not a rate (e.g. 80G, 800M)");
}

TEST(ScenarioFile, StormIgnoresRemediationIsAnOptionalBoolean) {
  const Scenario s = parse_scenario_yaml(
      "name: x\n"
      "events:\n"
      "  - {at: 1s, kind: pfc_storm, port: lan2, priority: 3, direction: rx, duration: 5s,\n"
      "     ignores_remediation: true}\n"
      "  - {at: 2s, kind: pfc_storm, port: lan3, priority: 3, direction: tx, duration: 5s}\n"
      "  - {at: 3s, kind: pfc_storm, port: lan4, priority: 3, direction: tx, duration: 5s,\n"
      "     ignores_remediation: false}\n",
      "s.yaml");
  ASSERT_EQ(s.events.size(), 3u);
  EXPECT_TRUE(std::get<ev::PfcStorm>(s.events[0].body).ignores_remediation);
  EXPECT_FALSE(std::get<ev::PfcStorm>(s.events[1].body).ignores_remediation);  // the default
  EXPECT_FALSE(std::get<ev::PfcStorm>(s.events[2].body).ignores_remediation);

  auto e = scenario_parse_error(
      "name: x\nevents:\n"
      "  - {at: 1s, kind: pfc_storm, port: lan2, priority: 3, direction: rx, duration: 5s, "
      "ignores_remediation: yes}\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 106);
  EXPECT_EQ(e.field(), "events[0].ignores_remediation");
  EXPECT_EQ(e.message(), "expected true or false, got 'yes'");
  e = scenario_parse_error(
      "name: x\nevents:\n"
      "  - {at: 1s, kind: pfc_storm, port: lan2, priority: 3, direction: rx, duration: 5s, "
      "ignore_remediation: true}\n");
  EXPECT_EQ(e.field(), "events[0].ignore_remediation");
  EXPECT_EQ(e.message(), "unknown key (did you mean 'ignores_remediation'?)");
  e = scenario_parse_error(
      "name: x\nevents:\n"
      "  - {at: 1s, kind: congestion, port: lan2, priority: 3, duration: 5s, "
      "ignores_remediation: true}\n");
  EXPECT_EQ(e.field(), "events[0].ignores_remediation");
  EXPECT_EQ(e.message(), "unknown key");  // only storms have it
}

TEST(ScenarioFile, PodsStartAndStopAndNeedOneOfThem) {
  const Scenario s = parse_scenario_yaml(
      "name: x\nevents:\n  - {at: 1s, kind: pods, port: lan2, start: 5, stop: 2}\n", "s.yaml");
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].kind(), "pods");
  const auto& pods = std::get<scenario_event::PodChange>(s.events[0].body);
  EXPECT_EQ(pods.start, 5u);
  EXPECT_EQ(pods.stop, 2u);
  const auto e = scenario_parse_error("name: x\nevents:\n  - {at: 1s, kind: pods, port: lan2}\n");
  EXPECT_EQ(std::string(e.what()), "s.yaml:3:5: events[0]: a pods event needs start or stop");
}

TEST(ScenarioFile, APcieRetrainTakesOnlyRealRatesAndWidths) {
  const Scenario s = parse_scenario_yaml(
      "name: x\nevents:\n  - {at: 1s, kind: pcie_retrain, port: lan2, speed: 16.0, width: 8}\n",
      "s.yaml");
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].kind(), "pcie_retrain");
  const auto& retrain = std::get<scenario_event::PcieRetrain>(s.events[0].body);
  EXPECT_EQ(retrain.speed_tenths_gts, 160u);
  EXPECT_EQ(retrain.width, 8u);
  auto e = scenario_parse_error(
      "name: x\nevents:\n  - {at: 1s, kind: pcie_retrain, port: lan2, speed: 12.0}\n");
  EXPECT_EQ(e.field(), "events[0].speed");
  EXPECT_NE(e.message().find("is no PCIe rate"), std::string::npos) << e.message();
  e = scenario_parse_error(
      "name: x\nevents:\n  - {at: 1s, kind: pcie_retrain, port: lan2, width: 6}\n");
  EXPECT_EQ(e.field(), "events[0].width");
}

TEST(ScenarioFile, PhyErrorsNeedARateAndADuration) {
  const Scenario s = parse_scenario_yaml(
      "name: x\nevents:\n  - {at: 1s, kind: phy_errors, port: lan2, duration: 1m,"
      " symbol_error_rate: 20}\n",
      "s.yaml");
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].kind(), "phy_errors");
  EXPECT_EQ(s.events[0].end(), std::chrono::seconds(61));
  const auto& errors = std::get<scenario_event::PhyErrors>(s.events[0].body);
  EXPECT_EQ(errors.symbol_errors_per_second, 20);
  EXPECT_EQ(errors.corrected_bits_per_second, 0);
  auto e = scenario_parse_error(
      "name: x\nevents:\n  - {at: 1s, kind: phy_errors, port: lan2, duration: 1m}\n");
  EXPECT_EQ(std::string(e.what()),
            "s.yaml:3:5: events[0]: a phy_errors event needs symbol_error_rate or "
            "corrected_bit_rate");
  e = scenario_parse_error(
      "name: x\nevents:\n  - {at: 1s, kind: phy_errors, port: lan2, symbol_error_rate: 1}\n");
  EXPECT_EQ(e.field(), "events[0].duration");
}

TEST(ScenarioFile, PcieErrorsNeedARateAndADuration) {
  const Scenario s = parse_scenario_yaml(
      "name: x\nevents:\n  - {at: 1s, kind: pcie_errors, port: lan2, duration: 1m,"
      " recovery_rate: 0.1}\n",
      "s.yaml");
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].kind(), "pcie_errors");
  EXPECT_EQ(s.events[0].end(), std::chrono::seconds(61));
  EXPECT_EQ(std::get<scenario_event::PcieErrors>(s.events[0].body).recoveries_per_second, 0.1);
  auto e = scenario_parse_error(
      "name: x\nevents:\n  - {at: 1s, kind: pcie_errors, port: lan2, duration: 1m}\n");
  EXPECT_EQ(e.field(), "events[0].recovery_rate");
  e = scenario_parse_error(
      "name: x\nevents:\n  - {at: 1s, kind: pcie_errors, port: lan2, duration: 1m,"
      " recovery_rate: 0}\n");
  EXPECT_EQ(e.field(), "events[0].recovery_rate");
}

TEST(ScenarioFile, PauseRatioMustLeaveProgress) {
  const auto e = scenario_parse_error(
      "name: x\nevents:\n"
      "  - {at: 1s, kind: congestion, port: lan2, priority: 3, duration: 1s, pause_ratio: 1.0}\n");
  EXPECT_EQ(e.field(), "events[0].pause_ratio");
  EXPECT_NE(e.message().find("must be below 1"), std::string::npos);
}

TEST(ScenarioFile, EventAfterTheEnd) {
  const auto e = scenario_parse_error(
      "name: x\nduration: 10s\nevents:\n  - {at: 12s, kind: link_flap, port: lan2, down_for: "
      "1s}\n");
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.field(), "events[0].at");
  EXPECT_EQ(e.message(), "12s is after the scenario's duration (10s)");
}

TEST(ScenarioFile, MissingName) {
  const auto e = scenario_parse_error("clock: {speed: 2}\n");
  EXPECT_EQ(e.field(), "name");
  EXPECT_EQ(e.message(), "missing (required)");
}

TEST(ScenarioFile, AnInjectedDocumentNeedsNoNameButIsOtherwiseAsStrict) {
  const Scenario s =
      parse_scenario_yaml("events:\n  - {at: 0s, kind: link_flap, port: lan2, down_for: 1s}\n",
                          "i.yaml", ScenarioUse::Inject);
  EXPECT_EQ(s.name, "");
  ASSERT_EQ(s.events.size(), 1u);
  try {
    parse_scenario_yaml("events:\n  - {at: 0s, kind: link_flap, port: lan2, down_fr: 1s}\n",
                        "i.yaml", ScenarioUse::Inject);
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.field(), "events[0].down_fr");
  }
}

TEST(ScenarioFile, UnknownPortIsCaughtWhenTheRunnerIsBuilt) {
  const Scenario s = parse_scenario_yaml(
      "name: x\n"
      "events:\n"
      "  - {at: 1s, kind: link_flap, port: lan2, down_for: 1s}\n"
      "  - {at: 2s, kind: link_flap, port: lan9, down_for: 1s}\n",
      "s.yaml");
  Node node(default_node());
  try {
    ScenarioRunner runner(node, s);
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.column(), 37);
    EXPECT_EQ(e.field(), "events[1].port");
    EXPECT_EQ(e.message(), "no port 'lan9' in this node (it has lan2, lan3, lan4, lan5)");
  }
}

TEST(ScenarioFile, FlowsFasterThanThePortAreRejected) {
  const Scenario s = parse_scenario_yaml(
      "name: x\n"
      "traffic:\n"
      "  - {port: lan2, priority: 3, direction: tx, rate: 300G}\n"
      "  - {port: lan2, priority: 4, direction: tx, rate: 200G}\n",
      "s.yaml");
  Node node(default_node());
  try {
    ScenarioRunner runner(node, s);
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.field(), "traffic[1].port");
    EXPECT_EQ(e.message(), "flows on lan2 tx add up to 500G, more than the port's 400G");
  }
}

}  // namespace
}  // namespace roce_sim
