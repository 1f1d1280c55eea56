// SPDX-License-Identifier: Apache-2.0
// metric_families: names, labels and units of docs/metrics.md from a hand-made NodeSample, and
// the catalogue kept honest (every family produced is documented there).
#include "telemetry/metric_families.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "bench/metrics_text.hpp"
#include "test/support/build_paths.hpp"

namespace roced::telemetry {
namespace {

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

using Label = std::pair<std::string, std::string>;

// The exposition read back: what a scraper sees, family by family.
struct Series {
  std::vector<Label> label;  // in the order written
  double value = 0;
};
struct Family {
  std::string name, help, type;
  std::vector<Series> metric;
};

// Splits `text` into its families by the HELP and TYPE lines; every series line must parse and
// belong to the family above it (histograms: NAME_bucket, _count and _sum).
std::vector<Family> read_back(const std::string& text) {
  std::vector<Family> families;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# HELP ", 0) == 0) {
      const size_t space = line.find(' ', 7);
      families.push_back({line.substr(7, space - 7), line.substr(space + 1), "", {}});
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      EXPECT_FALSE(families.empty()) << line;
      if (!families.empty()) families.back().type = line.substr(line.rfind(' ') + 1);
      continue;
    }
    const auto parsed = bench::parse_metrics_text(line);
    EXPECT_TRUE(parsed.errors.empty() && parsed.samples.size() == 1) << line;
    if (families.empty() || parsed.samples.size() != 1) continue;
    const bench::Sample& sample = parsed.samples.front();
    const std::string& family = families.back().name;
    EXPECT_TRUE(sample.name == family || sample.name == family + "_bucket" ||
                sample.name == family + "_count" || sample.name == family + "_sum")
        << line << " under " << family;
    Series series{{}, sample.value};
    // The written order, which the parser's map does not keep.
    const size_t open = line.find('{');
    const size_t close = line.rfind('}');
    if (open != std::string::npos && close != std::string::npos) {
      std::regex pair(R"re(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)")re");
      const std::string labels = line.substr(open + 1, close - open - 1);
      for (auto it = std::sregex_iterator(labels.begin(), labels.end(), pair);
           it != std::sregex_iterator(); ++it) {
        series.label.emplace_back((*it)[1], sample.labels.at((*it)[1]));
      }
    }
    if (sample.name == family) families.back().metric.push_back(std::move(series));
  }
  return families;
}

std::vector<Family> metric_families(const NodeSample& sample, const ExporterInfo& info) {
  return read_back(exposition_text(sample, info));
}

PortSample lan3() {
  PortSample port;
  port.netdev = "lan3";
  port.rdma_device = "mlx5_1";
  port.rdma_port = 1;
  port.driver = "mlx5_core";
  port.pci = "0000:3d:00.0";
  port.firmware = "28.39.1002 (MT_0000000838)";
  port.link_known = true;
  port.link_up = true;
  port.mtu = 9000;
  port.ethtool = {
      {"rx_prio3_pause", 120},
      {"rx_prio3_pause_duration", 2'500'000},  // µs: 2.5 s
      {"tx_prio3_pause", 7},
      {"tx_prio3_pause_duration", 1500},
      {"rx_prio3_pause_transition", 60},
      {"rx_prio3_packets", 1000},
      {"tx_prio0_bytes", 64},
      {"rx_prio3_discards", 2},
      {"rx_discards_phy", 5},
      {"tx_pause_storm_warning_events", 1},
      {"rx_pause_ctrl_phy", 127},
      {"rx_packets", 99},     // not one of ours: ignored
      {"rx0_packets", 99},    // per channel: ignored
      {"rx_prio8_pause", 1},  // not a priority: ignored
  };
  port.rdma_totals = {{"np_ecn_marked_roce_packets", 300},
                      {"rp_cnp_ignored", 4},
                      {"req_cqe_error", 1},
                      {"resp_cqe_error", 2},
                      {"some_future_counter", 9}};
  port.rdma = port.rdma_totals;
  port.counter_wraps = 1;
  port.rocev2_gid_index = 3;
  port.expected_gid_index = 3;
  ConfigState config;
  config.state = "drifted";
  config.in_sync = {{"pfc.priorities", false}, {"mtu", true}};
  config.findings = {a_finding("kernel_lockdown", finding::Severity::Warning, "settings",
                               "ecn.cnp_priority", "", "")};
  config.applies_ok = 2;
  config.drifts = {{"pfc.priorities", 1}};
  config.corrections = {{"pfc.priorities", 1}};
  config.lossless_priorities = 1u << 3;
  config.last_check = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  port.config = config;
  return port;
}

NodeSample node_of(std::vector<PortSample> ports) {
  NodeSample node;
  node.ports = std::move(ports);
  node.sources["ethtool"] = SourceOutcome{true, std::chrono::microseconds(1500)};
  node.sources["rdma"] = SourceOutcome{false, std::chrono::microseconds(10)};
  return node;
}

const Family* find(const std::vector<Family>& families, const std::string& name) {
  for (const auto& family : families) {
    if (family.name == name) return &family;
  }
  return nullptr;
}

// The value of the one series of `name` whose labels include every one of `labels`.
std::optional<double> value(const std::vector<Family>& families, const std::string& name,
                            const std::vector<Label>& labels) {
  const Family* family = find(families, name);
  if (family == nullptr) return std::nullopt;
  std::optional<double> found;
  for (const auto& metric : family->metric) {
    bool all = true;
    for (const auto& label : labels) {
      all = all && std::find(metric.label.begin(), metric.label.end(), label) != metric.label.end();
    }
    if (!all) continue;
    EXPECT_FALSE(found) << name << ": more than one series matches";
    found = metric.value;
  }
  return found;
}

TEST(MetricFamilies, PfcCountersGetPriorityAndDirectionLabelsAndSeconds) {
  const auto families = metric_families(node_of({lan3()}), ExporterInfo{"1.2.3"});
  EXPECT_EQ(value(families, "roce_pfc_pause_frames_total",
                  {{"netdev", "lan3"}, {"direction", "rx"}, {"priority", "3"}}),
            120);
  EXPECT_EQ(value(families, "roce_pfc_pause_frames_total",
                  {{"netdev", "lan3"}, {"direction", "tx"}, {"priority", "3"}}),
            7);
  EXPECT_DOUBLE_EQ(*value(families, "roce_pfc_pause_duration_seconds_total",
                          {{"direction", "rx"}, {"priority", "3"}}),
                   2.5);
  EXPECT_DOUBLE_EQ(*value(families, "roce_pfc_pause_duration_seconds_total",
                          {{"direction", "tx"}, {"priority", "3"}}),
                   0.0015);
  EXPECT_EQ(value(families, "roce_pfc_pause_transitions_total", {{"direction", "rx"}}), 60);
  EXPECT_EQ(value(families, "roce_priority_packets_total", {{"direction", "rx"}}), 1000);
  EXPECT_EQ(value(families, "roce_priority_bytes_total", {{"direction", "tx"}, {"priority", "0"}}),
            64);
  EXPECT_EQ(value(families, "roce_priority_discards_total", {{"priority", "3"}}), 2);
  EXPECT_EQ(value(families, "roce_port_discards_total", {{"direction", "rx"}}), 5);
  EXPECT_EQ(value(families, "roce_link_pause_frames_total", {{"direction", "rx"}}), 127);
  EXPECT_EQ(value(families, "roce_pause_storm_warning_events_total", {{"netdev", "lan3"}}), 1);
  // Counters the NIC did not report are absent, not 0.
  EXPECT_EQ(find(families, "roce_pause_storm_error_events_total"), nullptr);
  EXPECT_EQ(find(families, "roce_global_pause_frames_total"), nullptr);
  // Every series of a port carries netdev, device and port.
  for (const auto& family : families) {
    if (family.name.rfind("roce_config_", 0) == 0 || family.name.rfind("roce", 0) != 0 ||
        family.name.rfind("roced_", 0) == 0) {
      continue;
    }
    for (const auto& metric : family.metric) {
      EXPECT_NE(std::find(metric.label.begin(), metric.label.end(), Label{"device", "mlx5_1"}),
                metric.label.end())
          << family.name;
      EXPECT_NE(std::find(metric.label.begin(), metric.label.end(), Label{"port", "1"}),
                metric.label.end())
          << family.name;
    }
  }
}

TEST(MetricFamilies, RdmaCountersAreNamedAndSplitBySide) {
  const auto families = metric_families(node_of({lan3()}), ExporterInfo{"1.2.3"});
  EXPECT_EQ(value(families, "roce_ecn_marked_packets_total", {{"device", "mlx5_1"}}), 300);
  EXPECT_EQ(value(families, "roce_cnp_ignored_total", {{"netdev", "lan3"}}), 4);
  EXPECT_EQ(value(families, "roce_rdma_cqe_errors_total", {{"side", "requester"}}), 1);
  EXPECT_EQ(value(families, "roce_rdma_cqe_errors_total", {{"side", "responder"}}), 2);
  EXPECT_EQ(find(families, "roce_cnp_sent_total"), nullptr);  // not in the sample
  EXPECT_EQ(value(families, "roced_rdma_stat_wraps_total", {{"netdev", "lan3"}}), 1);
  EXPECT_EQ(value(families, "roced_rdma_sample_age_seconds", {{"netdev", "lan3"}}), 0);
}

// Served from the background reading, the counters say how old they are; a port without RDMA
// counters has no such series.
TEST(MetricFamilies, TheRdmaCountersAgeIsSaidAndAbsentWithoutThem) {
  PortSample served = lan3();
  served.rdma_age = std::chrono::milliseconds(750);
  PortSample none = lan3();
  none.netdev = "lan4";
  none.rdma.clear();
  none.rdma_totals.clear();
  const auto families = metric_families(node_of({served, none}), ExporterInfo{"1.2.3"});
  EXPECT_EQ(value(families, "roced_rdma_sample_age_seconds", {{"netdev", "lan3"}}), 0.75);
  EXPECT_EQ(value(families, "roced_rdma_sample_age_seconds", {{"netdev", "lan4"}}), std::nullopt);
}

// Soft-RoCE's hw_counters (rxe_hw_counters.c names) on a veth: the same families as mlx5's
// where they count the same event, and rxe's packet totals in their own.
TEST(MetricFamilies, RxeCountersMapOntoTheRdmaFamilies) {
  PortSample veth0;
  veth0.netdev = "veth0";
  veth0.rdma_device = "rxe0";
  veth0.rdma_port = 1;
  veth0.rdma_totals = {
      {"sent_pkts", 1001}, {"rcvd_pkts", 1002},           {"out_of_seq_request", 3},
      {"rcvd_seq_err", 4}, {"retry_rnr_exceeded_err", 5}, {"duplicate_request", 6},
      {"ack_deferred", 7}};
  const auto families = metric_families(node_of({veth0}), ExporterInfo{"1"});
  const std::vector<Label> labels = {{"netdev", "veth0"}, {"device", "rxe0"}, {"port", "1"}};
  EXPECT_EQ(value(families, "roce_rdma_sent_packets_total", labels), 1001);
  EXPECT_EQ(value(families, "roce_rdma_received_packets_total", labels), 1002);
  EXPECT_EQ(value(families, "roce_rdma_out_of_sequence_total", labels), 3);
  EXPECT_EQ(value(families, "roce_rdma_packet_sequence_errors_total", labels), 4);
  EXPECT_EQ(value(families, "roce_rdma_rnr_nak_retry_errors_total", labels), 5);
  EXPECT_EQ(value(families, "roce_rdma_duplicate_requests_total", labels), 6);
  // mlx5's families the veth has no counter for stay absent, not 0.
  EXPECT_EQ(find(families, "roce_cnp_sent_total"), nullptr);
  EXPECT_EQ(find(families, "roce_rdma_out_of_buffer_total"), nullptr);
  const std::string exposition = exposition_text(node_of({veth0}), ExporterInfo{"1"});
  EXPECT_NE(exposition.find("roce_rdma_sent_packets_total{netdev=\"veth0\",device=\"rxe0\","
                            "port=\"1\"} 1001\n"),
            std::string::npos)
      << exposition;
}

TEST(MetricFamilies, PortInfoGidAndConfigurationState) {
  const auto families = metric_families(node_of({lan3()}), ExporterInfo{"1.2.3"});
  EXPECT_EQ(value(families, "roce_port_info",
                  {{"netdev", "lan3"},
                   {"driver", "mlx5_core"},
                   {"firmware", "28.39.1002 (MT_0000000838)"},
                   {"pci", "0000:3d:00.0"}}),
            1);
  EXPECT_EQ(value(families, "roce_link_up", {{"netdev", "lan3"}}), 1);
  EXPECT_EQ(value(families, "roce_link_mtu_bytes", {{"netdev", "lan3"}}), 9000);
  EXPECT_EQ(value(families, "roce_rocev2_gid_index", {{"family", "ipv4"}}), 3);
  EXPECT_EQ(value(families, "roce_rocev2_gid_index_expected", {{"family", "ipv4"}}), 3);
  EXPECT_EQ(value(families, "roce_config_in_sync", {{"setting", "pfc.priorities"}}), 0);
  EXPECT_EQ(value(families, "roce_config_in_sync", {{"setting", "mtu"}}), 1);
  EXPECT_EQ(
      value(families, "roced_finding",
            {{"id", "kernel_lockdown"}, {"severity", "warning"}, {"about", "ecn.cnp_priority"}}),
      1);
  EXPECT_EQ(value(families, "roce_config_port_state", {{"state", "drifted"}}), 1);
  EXPECT_EQ(value(families, "roce_config_port_state", {{"state", "in-sync"}}), 0);
  EXPECT_EQ(value(families, "roce_config_applies_total", {{"result", "ok"}}), 2);
  EXPECT_EQ(value(families, "roce_config_applies_total", {{"result", "failed"}}), 0);
  EXPECT_EQ(value(families, "roce_config_drifts_total", {{"setting", "pfc.priorities"}}), 1);
  EXPECT_EQ(value(families, "roce_config_corrections_total", {{"setting", "pfc.priorities"}}), 1);
  // A setting that never drifted has its counters from 0: increase() sees its first drift.
  EXPECT_EQ(value(families, "roce_config_drifts_total", {{"setting", "mtu"}}), 0);
  EXPECT_EQ(value(families, "roce_config_corrections_total", {{"setting", "mtu"}}), 0);
  EXPECT_EQ(value(families, "roce_config_lossless_priority", {{"priority", "3"}}), 1);
  EXPECT_EQ(value(families, "roce_config_lossless_priority", {{"priority", "4"}}), std::nullopt);
  EXPECT_EQ(value(families, "roce_config_last_check_timestamp_seconds", {{"netdev", "lan3"}}),
            1'700'000'000);
  EXPECT_EQ(value(families, "roced_build_info", {{"version", "1.2.3"}}), 1);
  EXPECT_EQ(value(families, "roced_ports", {}), 1);
  EXPECT_EQ(value(families, "roced_scrape_collector_success", {{"collector", "ethtool"}}), 1);
  EXPECT_EQ(value(families, "roced_scrape_collector_success", {{"collector", "rdma"}}), 0);
  EXPECT_DOUBLE_EQ(
      *value(families, "roced_scrape_collector_duration_seconds", {{"collector", "ethtool"}}),
      0.0015);
}

TEST(MetricFamilies, AVanishedPortHasItsStateAndNothingElse) {
  NodeSample node = node_of({lan3()});
  node.vanished = {"lan5"};
  const auto families = metric_families(node, ExporterInfo{"1.2.3"});
  EXPECT_EQ(value(families, "roce_config_port_state", {{"netdev", "lan5"}, {"state", "vanished"}}),
            1);
  EXPECT_EQ(value(families, "roce_config_port_state", {{"netdev", "lan5"}, {"state", "in-sync"}}),
            0);
  EXPECT_EQ(value(families, "roce_link_up", {{"netdev", "lan5"}}), std::nullopt);
  EXPECT_EQ(value(families, "roced_ports", {}), 1);  // managed and present
}
TEST(MetricFamilies, APortWithoutDaemonStateOrLinkExportsNeither) {
  PortSample port = lan3();
  port.config.reset();
  port.link_known = false;
  port.rocev2_gid_index.reset();
  const auto families = metric_families(node_of({port}), ExporterInfo{"1"});
  EXPECT_EQ(find(families, "roce_config_in_sync"), nullptr);
  EXPECT_EQ(find(families, "roce_link_up"), nullptr);
  EXPECT_EQ(find(families, "roce_rocev2_gid_index"), nullptr);
  EXPECT_NE(find(families, "roce_port_info"), nullptr);
}

TEST(MetricFamilies, SeriesAreUniqueAndCountersEndInTotal) {
  PortSample other = lan3();
  other.netdev = "lan4";
  other.rdma_device = "mlx5_2";
  const auto families = metric_families(node_of({lan3(), other}), ExporterInfo{"1"});
  for (const auto& family : families) {
    EXPECT_FALSE(family.metric.empty()) << family.name;
    EXPECT_FALSE(family.help.empty()) << family.name;
    EXPECT_TRUE(family.type == "counter" || family.type == "gauge" || family.type == "histogram")
        << family.name << ": " << family.type;
    if (family.type == "counter") {
      EXPECT_TRUE(family.name.ends_with("_total")) << family.name;
    }
    std::set<std::vector<Label>> seen;
    for (auto metric : family.metric) {
      std::sort(metric.label.begin(), metric.label.end());
      EXPECT_TRUE(seen.insert(metric.label).second) << family.name << ": a series twice";
    }
  }
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

TEST(MetricFamilies, StormFamiliesCarryTheWatchdogsState) {
  NodeSample sample = node_of({lan3()});
  sample.watchdog = watchdog_of_lan3();
  sample.reload = NodeSample::Reload{
      false, std::chrono::system_clock::time_point{} + std::chrono::seconds(1'700'000'000)};
  const std::string text = exposition_text(sample, {"1"});
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
        std::string("roced_watchdog_read_seconds_total{netdev=\"lan3\"} 0.25\n"),
        std::string("roced_config_last_reload_successful 0\n"),
        std::string("roced_config_last_reload_success_timestamp_seconds 1700000000\n")}) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << text;
  }
  EXPECT_NE(text.find("# TYPE roce_pfc_storm_detection_latency_seconds histogram\n"),
            std::string::npos);
  // Without the watchdog running there are none of them.
  const std::string off = exposition_text(node_of({lan3()}), {"1"});
  EXPECT_EQ(off.find("storm_active"), std::string::npos);
  EXPECT_EQ(off.find("roced_watchdog"), std::string::npos);
}

// What the daemon's LLDP watch shows for lan3, whose switch runs PFC on 4, and lan4, not heard.
std::vector<PeerStats> peers_of_lan3() {
  PeerStats lan3;
  lan3.netdev = "lan3";
  lan3.state = "compared";
  lan3.system_name = "leaf7";
  lan3.port_id = "Ethernet1/7";
  lan3.port_description = "to gpu-node-01";
  lan3.chassis_id = "0c:42:a1:00:00:01";
  lan3.findings = {
      a_finding("switch_pfc_priorities", finding::Severity::Critical, "switch", "", "3", "4")};
  lan3.frames = 12;
  lan3.dropped = {{"truncated", 2}};
  PeerStats lan4;
  lan4.netdev = "lan4";
  lan4.state = "no_peer";
  return {lan3, lan4};
}

TEST(MetricFamilies, PeerFamiliesNameTheSwitchPortAndEachFinding) {
  NodeSample sample = node_of({lan3()});
  sample.peers = peers_of_lan3();
  const std::string text = exposition_text(sample, {"1"});
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
  // Without the watch there are none.
  EXPECT_EQ(exposition_text(node_of({lan3()}), {"1"}).find("roced_lldp"), std::string::npos);
}

// Every family roced can produce is in docs/metrics.md's tables, and the other way round for
// the families this sample can produce: the catalogue is the contract of the dashboard and the
// alert rules.
TEST(MetricFamilies, EveryFamilyIsDocumented) {
  std::ifstream doc(ROCED_METRICS_DOC);
  ASSERT_TRUE(doc) << ROCED_METRICS_DOC;
  std::stringstream text;
  text << doc.rdbuf();
  std::set<std::string> documented;
  const std::string all = text.str();
  const std::regex backticked(R"(`(roced?_[a-z0-9_]+)`)");
  for (auto it = std::sregex_iterator(all.begin(), all.end(), backticked);
       it != std::sregex_iterator(); ++it) {
    documented.insert((*it)[1]);
  }
  PortSample full = lan3();
  for (const char* name : {"tx_pause_storm_error_events", "rx_global_pause",
                           "rx_global_pause_duration", "rx_global_pause_transition",
                           "rx_prio3_buf_discard", "rx_prio3_cong_discard", "rx_prio3_marked"}) {
    full.ethtool[name] = 1;
  }
  for (const char* name :
       {"np_cnp_sent", "rp_cnp_handled", "out_of_sequence", "packet_seq_err", "implied_nak_seq_err",
        "local_ack_timeout_err", "rnr_nak_retry_err", "duplicate_request", "out_of_buffer",
        "roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart", "req_remote_access_errors",
        "resp_remote_access_errors", "req_remote_invalid_request", "resp_local_length_error",
        "rx_icrc_encapsulated", "sent_pkts", "rcvd_pkts"}) {
    full.rdma_totals[name] = 1;
  }
  NodeSample sample = node_of({full});
  sample.watchdog = watchdog_of_lan3();
  sample.peers = peers_of_lan3();
  const auto families = metric_families(sample, ExporterInfo{"1"});
  EXPECT_GE(families.size(), 60u);
  for (const auto& family : families) {
    EXPECT_TRUE(documented.count(family.name)) << family.name << " is not in docs/metrics.md";
  }
  // And the text format is what Prometheus parses: HELP and TYPE once per family.
  const std::string exposition = exposition_text(sample, ExporterInfo{"1"});
  EXPECT_NE(exposition.find("# TYPE roce_pfc_pause_frames_total counter\n"), std::string::npos);
  EXPECT_NE(
      exposition.find("roce_pfc_pause_duration_seconds_total{netdev=\"lan3\",device=\"mlx5_1\","
                      "port=\"1\",direction=\"rx\",priority=\"3\"} 2.5\n"),
      std::string::npos)
      << exposition;
}

}  // namespace
}  // namespace roced::telemetry
