// SPDX-License-Identifier: Apache-2.0
// The daemon modules' metric families, each written by its own room (the reconciler's ports,
// the storm watchdog, the peer watch, the configuration store), and every one of them in
// docs/metrics.md's catalogue.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "daemon/lldp/peer_metrics.hpp"
#include "daemon/module/config_store.hpp"
#include "daemon/reconcile/reconcile_metrics.hpp"
#include "daemon/watchdog/storm_metrics.hpp"
#include "telemetry/process_metrics.hpp"
#include "test/support/build_paths.hpp"
#include "test/support/exposition_families.hpp"

namespace roced {
namespace {

using test::Label;
using test::value;
using watchdog::StormStats;
using watchdog::WatchdogStats;

std::string text_of(const std::function<void(telemetry::ExpositionWriter&)>& write) {
  telemetry::ExpositionWriter out;
  write(out);
  return out.take();
}

finding::Finding a_finding(std::string id, finding::Severity severity, std::string source,
                           std::string about, std::string wanted, std::string found) {
  finding::Finding out;
  out.id = std::move(id);
  out.severity = severity;
  out.source = std::move(source);
  out.about = std::move(about);
  out.wanted = std::move(wanted);
  out.found = std::move(found);
  out.text = "a finding";
  return out;
}

// What the storm watchdog would show after two RX storms on lan3 priority 3, one still going on
// under its action, one that needed more than an hour's actions.
WatchdogStats watchdog_of_lan3() {
  WatchdogStats stats;
  stats.poll_interval = std::chrono::milliseconds(10);
  stats.effective_interval = std::chrono::milliseconds(25);
  stats.budget_limit = "cpu";
  stats.read_cpu = std::chrono::milliseconds(1500);
  stats.read_time["lan3"] = std::chrono::milliseconds(250);
  stats.polls = 1234;
  stats.late_polls = 2;
  StormStats storm;
  storm.netdev = "lan3";
  storm.priority = 3;
  storm.direction = Direction::rx;
  storm.active = true;
  storm.remediated = true;
  storm.detections = 2;
  storm.restorations = 1;
  storm.actions[{"disable-pfc", "ok"}] = 2;
  storm.actions[{"disable-pfc", "failed"}] = 0;
  storm.escalations["budget-spent"] = 1;
  storm.escalations["remediation-failed"] = 0;
  storm.detection_latency.observe(std::chrono::milliseconds(55));
  storm.detection_latency.observe(std::chrono::milliseconds(230));
  stats.storms.push_back(storm);
  return stats;
}

TEST(ModuleFamilies, StormFamiliesCarryTheWatchdogsState) {
  const std::string text = text_of([](telemetry::ExpositionWriter& out) {
    watchdog::add_storm_families(out, watchdog_of_lan3());
  });
  const std::string labels = "netdev=\"lan3\",priority=\"3\",direction=\"rx\"";
  for (const std::string& line :
       {"roce_pfc_storm_active{" + labels + "} 1\n",
        "roce_pfc_storm_remediation_active{" + labels + "} 1\n",
        "roce_pfc_storm_held{" + labels + "} 0\n",
        "roce_pfc_storm_detections_total{" + labels + "} 2\n",
        "roce_pfc_storm_restorations_total{" + labels + "} 1\n",
        "roce_pfc_storm_actions_total{" + labels + ",action=\"disable-pfc\",result=\"ok\"} 2\n",
        "roce_pfc_storm_actions_total{" + labels + ",action=\"disable-pfc\",result=\"failed\"} 0\n",
        "roce_pfc_storm_escalations_total{" + labels + ",reason=\"budget-spent\"} 1\n",
        "roce_pfc_storm_escalations_total{" + labels + ",reason=\"remediation-failed\"} 0\n",
        // 55 ms and 230 ms: one in the 0.1 s bucket, both by 0.5 s, cumulative.
        "roce_pfc_storm_detection_latency_seconds_bucket{" + labels + ",le=\"0.05\"} 0\n",
        "roce_pfc_storm_detection_latency_seconds_bucket{" + labels + ",le=\"0.1\"} 1\n",
        "roce_pfc_storm_detection_latency_seconds_bucket{" + labels + ",le=\"0.2\"} 1\n",
        "roce_pfc_storm_detection_latency_seconds_bucket{" + labels + ",le=\"0.5\"} 2\n",
        "roce_pfc_storm_detection_latency_seconds_bucket{" + labels + ",le=\"+Inf\"} 2\n",
        "roce_pfc_storm_detection_latency_seconds_count{" + labels + "} 2\n",
        // 0.055 + 0.230 as a double, in the shortest form that reads back the same (as Go's
        // client writes it).
        "roce_pfc_storm_detection_latency_seconds_sum{" + labels + "} 0.28500000000000003\n",
        std::string("roced_watchdog_polls_total 1234\n"),
        std::string("roced_watchdog_late_polls_total 2\n"),
        std::string("roced_watchdog_poll_interval_seconds 0.01\n"),
        std::string("roced_watchdog_effective_poll_interval_seconds 0.025\n"),
        std::string("roced_watchdog_poll_budget_limited{resource=\"cpu\"} 1\n"),
        std::string("roced_watchdog_poll_budget_limited{resource=\"firmware\"} 0\n"),
        std::string("roced_watchdog_read_cpu_seconds_total 1.5\n"),
        std::string("roced_watchdog_read_seconds_total{netdev=\"lan3\"} 0.25\n")}) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << text;
  }
  EXPECT_NE(text.find("# TYPE roce_pfc_storm_detection_latency_seconds histogram\n"),
            std::string::npos);
}

// What the daemon's LLDP watch shows for lan3, whose switch runs PFC on 4, and lan4, not heard.
std::vector<lldp::PortPeer> peers_of_lan3() {
  lldp::PortPeer lan3;
  lan3.netdev = "lan3";
  lan3.report.state = lldp::PeerState::Compared;
  lldp::Neighbour heard;
  heard.lldpdu.system_name = "leaf7";
  heard.lldpdu.port_id = "Ethernet1/7";
  heard.lldpdu.port_description = "to gpu-node-01";
  heard.lldpdu.chassis_id = "0c:42:a1:00:00:01";
  lan3.neighbour = heard;
  lan3.report.findings = {
      a_finding("switch_pfc_priorities", finding::Severity::Critical, "switch", "", "3", "4")};
  lan3.frames = 12;
  lan3.dropped = {{"truncated", 2}};
  lldp::PortPeer lan4;
  lan4.netdev = "lan4";
  lan4.report.state = lldp::PeerState::NoPeer;
  return {lan3, lan4};
}

TEST(ModuleFamilies, PeerFamiliesNameTheSwitchPortAndEachFinding) {
  const std::string text = text_of(
      [](telemetry::ExpositionWriter& out) { lldp::add_peer_families(out, peers_of_lan3()); });
  for (const std::string line :
       {"roced_lldp_peer_info{netdev=\"lan3\",system_name=\"leaf7\",port_id=\"Ethernet1/7\","
        "port_description=\"to gpu-node-01\",chassis_id=\"0c:42:a1:00:00:01\"} 1\n",
        "roced_lldp_peer_state{netdev=\"lan3\",state=\"compared\"} 1\n",
        "roced_lldp_peer_state{netdev=\"lan3\",state=\"no_peer\"} 0\n",
        "roced_lldp_peer_state{netdev=\"lan4\",state=\"no_peer\"} 1\n",
        "roced_finding{netdev=\"lan3\",id=\"switch_pfc_priorities\",severity=\"critical\","
        "source=\"switch\",about=\"\",wanted=\"3\",found=\"4\"} 1\n",
        "roced_lldp_frames_total{netdev=\"lan3\"} 12\n",
        "roced_lldp_frames_dropped_total{netdev=\"lan3\",reason=\"truncated\"} 2\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << text;
  }
  EXPECT_EQ(text.find("roced_lldp_peer_info{netdev=\"lan4\""), std::string::npos);
}

// lan3 checked and found drifted on its PFC priorities, with a finding of its plan; lan5 gone.
std::vector<reconcile::PortSnapshot> ports_of_node() {
  reconcile::PortSnapshot lan3;
  lan3.port.netdev = "lan3";
  lan3.condition = reconcile::PortCondition::Drifted;
  lan3.counters.applies_ok = 2;
  lan3.counters.drifts = {{"pfc.priorities", 1}};
  lan3.counters.corrections = {{"pfc.priorities", 1}};
  lan3.last_check = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  lan3.last_plan.desired = config::default_profile();
  lan3.last_plan.changes.push_back(
      settings::Change{settings::Setting::PfcPriorities, "", "none", "3", true, "the link flaps"});
  lan3.last_plan.findings = {
      a_finding("no_rocev2_gid", finding::Severity::Warning, "plan", "roce.gid_index", "", "")};
  reconcile::PortSnapshot lan5;
  lan5.port.netdev = "lan5";
  lan5.condition = reconcile::PortCondition::Vanished;
  return {lan3, lan5};
}

TEST(ModuleFamilies, PortConfigurationStateIsTheReconcilersLastCheck) {
  const config::Config config;
  const auto families = test::read_back(text_of([&config](telemetry::ExpositionWriter& out) {
    reconcile::add_port_config_families(out, ports_of_node(), config);
  }));
  const Label lan3{"netdev", "lan3"};
  EXPECT_EQ(value(families, "roce_config_in_sync", {lan3, {"setting", "pfc.priorities"}}), 0);
  EXPECT_EQ(value(families, "roce_config_in_sync", {lan3, {"setting", "mtu"}}), 1);
  EXPECT_EQ(value(families, "roced_finding",
                  {lan3, {"id", "no_rocev2_gid"}, {"severity", "warning"}, {"source", "plan"}}),
            1);
  EXPECT_EQ(value(families, "roce_config_port_state", {lan3, {"state", "drifted"}}), 1);
  EXPECT_EQ(value(families, "roce_config_port_state", {lan3, {"state", "in-sync"}}), 0);
  EXPECT_EQ(value(families, "roce_config_applies_total", {lan3, {"result", "ok"}}), 2);
  EXPECT_EQ(value(families, "roce_config_applies_total", {lan3, {"result", "failed"}}), 0);
  EXPECT_EQ(value(families, "roce_config_drifts_total", {lan3, {"setting", "pfc.priorities"}}), 1);
  EXPECT_EQ(value(families, "roce_config_corrections_total", {lan3, {"setting", "pfc.priorities"}}),
            1);
  // A setting that never drifted has its counters from 0: increase() sees its first drift.
  EXPECT_EQ(value(families, "roce_config_drifts_total", {lan3, {"setting", "mtu"}}), 0);
  EXPECT_EQ(value(families, "roce_config_corrections_total", {lan3, {"setting", "mtu"}}), 0);
  EXPECT_EQ(value(families, "roce_config_lossless_priority", {lan3, {"priority", "3"}}), 1);
  EXPECT_EQ(value(families, "roce_config_lossless_priority", {lan3, {"priority", "4"}}),
            std::nullopt);
  EXPECT_EQ(value(families, "roce_config_last_check_timestamp_seconds", {lan3}), 1'700'000'000);
  // A vanished port has its state and nothing else.
  const Label lan5{"netdev", "lan5"};
  EXPECT_EQ(value(families, "roce_config_port_state", {lan5, {"state", "vanished"}}), 1);
  EXPECT_EQ(value(families, "roce_config_port_state", {lan5, {"state", "in-sync"}}), 0);
  EXPECT_EQ(value(families, "roce_config_applies_total", {lan5, {"result", "ok"}}), std::nullopt);
}

class ConfigFile : public ::testing::Test {
 protected:
  void write(const std::string& text) { std::ofstream(path_) << text; }
  std::string path_ = (std::filesystem::path(::testing::TempDir()) / "config_store.yaml").string();
};

TEST_F(ConfigFile, AFailedReloadShowsAndKeepsTheLastSuccess) {
  write("ports:\n  netdevs: [lan3]\n");
  module::ConfigStore store(path_);
  ASSERT_TRUE(store.load().ok());
  const auto ok = test::read_back(text_of([&store](auto& out) { store.collect(out); }));
  EXPECT_EQ(value(ok, "roced_config_last_reload_successful", {}), 1);
  const auto when = value(ok, "roced_config_last_reload_success_timestamp_seconds", {});
  ASSERT_TRUE(when);
  write("ports:\n  netdevs: [lan3\n");
  EXPECT_FALSE(store.reload().ok);
  const auto failed = test::read_back(text_of([&store](auto& out) { store.collect(out); }));
  EXPECT_EQ(value(failed, "roced_config_last_reload_successful", {}), 0);
  EXPECT_EQ(value(failed, "roced_config_last_reload_success_timestamp_seconds", {}), when);
}

// Which configuration the node runs, as sha256sum prints its file's hash: "are all nodes the
// same?" is one PromQL count by (sha256).
TEST_F(ConfigFile, TheConfigurationsHashIsTheFilesSha256) {
  write("ports:\n  netdevs: [lan3]\n");
  module::ConfigStore store(path_);
  ASSERT_TRUE(store.load().ok());
  const auto families = test::read_back(text_of([&store](auto& out) { store.collect(out); }));
  EXPECT_EQ(value(families, "roced_config_info",
                  {{"sha256", "abc3cf3e6e6a8fbeb72a3c8d19528bc228b43970fe77f0927a4fd21219582e79"},
                   {"path", path_}}),
            1);
  // A reload that fails keeps the hash of what still runs.
  write("ports:\n  netdevs: [lan3\n");
  EXPECT_FALSE(store.reload().ok);
  const auto failed = test::read_back(text_of([&store](auto& out) { store.collect(out); }));
  EXPECT_EQ(value(failed, "roced_config_info",
                  {{"sha256", "abc3cf3e6e6a8fbeb72a3c8d19528bc228b43970fe77f0927a4fd21219582e79"},
                   {"path", path_}}),
            1);
}

// roced's own process, read from a /proc directory laid out as proc(5) says.
TEST(ProcessFamilies, ReadFromProcAsTheClientLibrariesDo) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "roced-proc";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "self/fd");
  for (const char* fd : {"0", "1", "2", "7"}) std::ofstream(dir / "self/fd" / fd) << "";
  // The command may hold spaces and parentheses: fields are counted after the last ')'.
  std::ofstream(dir / "self/stat")
      << "4242 (roced (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 150 0 0 20 0 9 0 "
         "12345 104857600 2560 18446744073709551615\n";
  std::ofstream(dir / "self/limits")
      << "Limit                     Soft Limit           Hard Limit   "
         "        Units     \n"
         "Max open files            1024                 524288     "
         "          files     \n";
  std::ofstream(dir / "stat") << "cpu  1 2 3\nbtime 1700000000\nprocesses 5\n";
  const auto stats =
      telemetry::read_process_stats((dir / "self").string(), (dir / "stat").string(), 100, 4096);
  ASSERT_TRUE(stats);
  EXPECT_DOUBLE_EQ(stats->cpu_seconds, 4.0);  // (250 + 150) ticks at 100 Hz
  EXPECT_DOUBLE_EQ(stats->start_time_seconds, 1700000000 + 123.45);
  EXPECT_EQ(stats->virtual_bytes, 104857600u);
  EXPECT_EQ(stats->resident_bytes, 2560u * 4096);
  EXPECT_EQ(stats->open_fds, 4u);
  EXPECT_EQ(stats->max_fds, 1024u);
  const auto families = test::read_back(text_of(
      [&](telemetry::ExpositionWriter& out) { telemetry::write_process_families(out, *stats); }));
  EXPECT_EQ(value(families, "process_cpu_seconds_total", {}), 4.0);
  EXPECT_EQ(value(families, "process_open_fds", {}), 4);
  const std::set<std::string> documented = test::documented_families(ROCED_METRICS_DOC);
  for (const auto& family : families) {
    EXPECT_TRUE(documented.count(family.name)) << family.name << " is not in docs/metrics.md";
  }
}

// Every family the daemon's modules write is in docs/metrics.md's tables.
TEST(ModuleFamilies, EveryFamilyIsDocumented) {
  const std::set<std::string> documented = test::documented_families(ROCED_METRICS_DOC);
  module::ConfigStore store("/nonexistent/roced.yaml");
  const config::Config config;
  const auto families = test::read_back(text_of([&](telemetry::ExpositionWriter& out) {
    reconcile::add_port_config_families(out, ports_of_node(), config);
    watchdog::add_storm_families(out, watchdog_of_lan3());
    lldp::add_peer_families(out, peers_of_lan3());
    store.collect(out);
  }));
  EXPECT_GE(families.size(), 28u);
  for (const auto& family : families) {
    EXPECT_TRUE(documented.count(family.name)) << family.name << " is not in docs/metrics.md";
  }
}

}  // namespace
}  // namespace roced
