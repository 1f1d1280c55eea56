// SPDX-License-Identifier: Apache-2.0
// metric_families: names, labels and units of the ports' families (docs/metrics.md) from a
// hand-made NodeSample. The daemon's own families and the catalogue check are in test/metrics.
#include "telemetry/metric_families.hpp"

#include <gtest/gtest.h>

#include <set>

#include "bench/metrics_text.hpp"
#include "test/support/build_paths.hpp"
#include "test/support/exposition_families.hpp"

namespace roced::telemetry {
namespace {

using test::Family;
using test::find;
using test::Label;
using test::read_back;
using test::value;

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
  port.driver_tree = "mlnx-ofed";
  port.driver_tree_version = "24.10-1.1.4";
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
  return port;
}

NodeSample node_of(std::vector<PortSample> ports) {
  NodeSample node;
  node.ports = std::move(ports);
  node.sources["ethtool"] = SourceOutcome{true, std::chrono::microseconds(1500)};
  node.sources["rdma"] = SourceOutcome{false, std::chrono::microseconds(10)};
  return node;
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

TEST(MetricFamilies, PortInfoAndGid) {
  const auto families = metric_families(node_of({lan3()}), ExporterInfo{"1.2.3"});
  EXPECT_EQ(value(families, "roce_port_info",
                  {{"netdev", "lan3"},
                   {"driver", "mlx5_core"},
                   {"firmware", "28.39.1002 (MT_0000000838)"},
                   {"pci", "0000:3d:00.0"}}),
            1);
  EXPECT_EQ(value(families, "roce_port_driver_tree_info",
                  {{"netdev", "lan3"}, {"tree", "mlnx-ofed"}, {"version", "24.10-1.1.4"}}),
            1);
  EXPECT_EQ(value(families, "roce_link_up", {{"netdev", "lan3"}}), 1);
  EXPECT_EQ(value(families, "roce_link_mtu_bytes", {{"netdev", "lan3"}}), 9000);
  EXPECT_EQ(value(families, "roce_rocev2_gid_index", {{"family", "ipv4"}}), 3);
  EXPECT_EQ(value(families, "roce_rocev2_gid_index_expected", {{"family", "ipv4"}}), 3);
  EXPECT_EQ(value(families, "roced_build_info", {{"version", "1.2.3"}}), 1);
  EXPECT_EQ(value(families, "roced_ports", {}), 1);
  EXPECT_EQ(value(families, "roced_scrape_collector_success", {{"collector", "ethtool"}}), 1);
  EXPECT_EQ(value(families, "roced_scrape_collector_success", {{"collector", "rdma"}}), 0);
  EXPECT_DOUBLE_EQ(
      *value(families, "roced_scrape_collector_duration_seconds", {{"collector", "ethtool"}}),
      0.0015);
}

TEST(MetricFamilies, APortWithoutLinkOrGidExportsNeither) {
  PortSample port = lan3();
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

// Every port family is in docs/metrics.md's tables: the catalogue is the contract of the
// dashboard and the alert rules (test/metrics checks the daemon modules' families).
TEST(MetricFamilies, EveryFamilyIsDocumented) {
  const std::set<std::string> documented = test::documented_families(ROCED_METRICS_DOC);
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
  const auto families = metric_families(sample, ExporterInfo{"1"});
  EXPECT_GE(families.size(), 40u);
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
