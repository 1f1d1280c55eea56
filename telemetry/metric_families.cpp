// SPDX-License-Identifier: Apache-2.0
#include "telemetry/metric_families.hpp"

#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "ethtool/ethtool_names.hpp"

namespace roced::telemetry {

namespace {

// The ethtool names (ethtool_names.hpp's `metric`) and the family each goes to. Per-priority
// counters carry direction and priority labels, port-level ones direction only.
struct EthtoolMapping {
  std::string_view what;
  bool per_priority;
  bool direction_label;
  FamilySpec family;
};

constexpr EthtoolMapping kEthtool[] = {
    {"pause",
     true,
     true,
     {"roce_pfc_pause_frames_total", MetricType::counter,
      "PFC pause frames per priority: rx = received (the switch pauses us), tx = sent (we pause "
      "the switch)."}},
    {"pause_duration",
     true,
     true,
     {"roce_pfc_pause_duration_seconds_total", MetricType::counter,
      "Time paused per priority, in seconds; its rate is the paused-time ratio (0-1)."}},
    {"pause_transition",
     true,
     true,
     {"roce_pfc_pause_transitions_total", MetricType::counter,
      "Transitions from paused to not paused per priority."}},
    {"packets",
     true,
     true,
     {"roce_priority_packets_total", MetricType::counter, "Packets per priority and direction."}},
    {"bytes",
     true,
     true,
     {"roce_priority_bytes_total", MetricType::counter, "Bytes per priority and direction."}},
    {"discards",
     true,
     true,
     {"roce_priority_discards_total", MetricType::counter,
      "Packets discarded per priority (on a lossless priority this must stay 0)."}},
    {"buf_discard",
     true,
     true,
     {"roce_priority_buffer_discards_total", MetricType::counter,
      "Packets discarded per priority for want of receive buffer."}},
    {"cong_discard",
     true,
     true,
     {"roce_priority_congestion_discards_total", MetricType::counter,
      "Packets discarded per priority by congestion control."}},
    {"marked",
     true,
     true,
     {"roce_priority_ecn_marked_packets_total", MetricType::counter,
      "Packets ECN-marked by the NIC's receive buffer per priority."}},
    {"discards_phy",
     false,
     true,
     {"roce_port_discards_total", MetricType::counter,
      "Packets the port discarded at the physical layer (rx: no buffer; tx: could not send)."}},
    {"out_of_buffer",
     false,
     false,
     {"roce_port_out_of_buffer_total", MetricType::counter,
      "Packets dropped because the port's Ethernet receive queues had no buffer posted "
      "(rx_out_of_buffer: a 32-bit firmware counter whose wraps roced carries over)."}},
    {"pause_ctrl_phy",
     false,
     true,
     {"roce_link_pause_frames_total", MetricType::counter,
      "MAC control (pause) frames of every priority, counted even when the NIC ignores them."}},
    {"pause_storm_warning_events",
     false,
     false,
     {"roce_pause_storm_warning_events_total", MetricType::counter,
      "The NIC's stall prevention saw its receive side pausing the switch for 85 % of the "
      "timeout."}},
    {"pause_storm_error_events",
     false,
     false,
     {"roce_pause_storm_error_events_total", MetricType::counter,
      "The NIC stopped pausing the switch after the stall-prevention timeout and drops instead."}},
    {"global_pause",
     false,
     true,
     {"roce_global_pause_frames_total", MetricType::counter,
      "802.3x (global) pause frames, used when PFC is off."}},
    {"global_pause_duration",
     false,
     true,
     {"roce_global_pause_duration_seconds_total", MetricType::counter,
      "Time paused by 802.3x (global) pause, in seconds."}},
    {"global_pause_transition",
     false,
     true,
     {"roce_global_pause_transitions_total", MetricType::counter,
      "Transitions from globally paused to not paused."}},
};

// hw_counters file -> family, with an optional extra label.
struct RdmaMapping {
  std::string_view counter;
  FamilySpec family;
  std::string_view side;  // "requester" / "responder" for the families split by side
};

constexpr RdmaMapping kRdma[] = {
    {"np_ecn_marked_roce_packets",
     {"roce_ecn_marked_packets_total", MetricType::counter,
      "CE-marked RoCE packets this port received (its notification point)."},
     ""},
    {"np_cnp_sent",
     {"roce_cnp_sent_total", MetricType::counter,
      "CNPs this port's notification point sent back to senders."},
     ""},
    {"rp_cnp_handled",
     {"roce_cnp_handled_total", MetricType::counter,
      "CNPs this port's reaction point acted on (it slowed down)."},
     ""},
    {"rp_cnp_ignored",
     {"roce_cnp_ignored_total", MetricType::counter,
      "CNPs that arrived while the reaction point was off for their priority (DCQCN off here)."},
     ""},
    {"out_of_sequence",
     {"roce_rdma_out_of_sequence_total", MetricType::counter,
      "Packets received out of sequence (a loss upstream)."},
     ""},
    {"packet_seq_err",
     {"roce_rdma_packet_sequence_errors_total", MetricType::counter,
      "NAK sequence errors received (the responder saw a gap)."},
     ""},
    {"implied_nak_seq_err",
     {"roce_rdma_implied_nak_sequence_errors_total", MetricType::counter,
      "Implied NAK sequence errors (a read response or atomic ACK arrived out of order)."},
     ""},
    {"local_ack_timeout_err",
     {"roce_rdma_local_ack_timeouts_total", MetricType::counter,
      "Requester retransmission timeouts (no ACK in time)."},
     ""},
    {"rnr_nak_retry_err",
     {"roce_rdma_rnr_nak_retry_errors_total", MetricType::counter,
      "Receiver-not-ready NAK retries exhausted."},
     ""},
    {"duplicate_request",
     {"roce_rdma_duplicate_requests_total", MetricType::counter,
      "Duplicate requests received (the requester retransmitted)."},
     ""},
    {"out_of_buffer",
     {"roce_rdma_out_of_buffer_total", MetricType::counter,
      "Packets dropped for want of a posted receive buffer."},
     ""},
    {"roce_adp_retrans",
     {"roce_rdma_adaptive_retransmissions_total", MetricType::counter, "Adaptive retransmissions."},
     ""},
    {"roce_adp_retrans_to",
     {"roce_rdma_adaptive_retransmission_timeouts_total", MetricType::counter,
      "Adaptive retransmission timeouts."},
     ""},
    {"roce_slow_restart",
     {"roce_rdma_slow_restarts_total", MetricType::counter, "Slow restarts after retransmission."},
     ""},
    {"req_cqe_error",
     {"roce_rdma_cqe_errors_total", MetricType::counter, "Completions with an error."},
     "requester"},
    {"resp_cqe_error",
     {"roce_rdma_cqe_errors_total", MetricType::counter, "Completions with an error."},
     "responder"},
    {"req_remote_access_errors",
     {"roce_rdma_remote_access_errors_total", MetricType::counter, "Remote access errors."},
     "requester"},
    {"resp_remote_access_errors",
     {"roce_rdma_remote_access_errors_total", MetricType::counter, "Remote access errors."},
     "responder"},
    {"req_remote_invalid_request",
     {"roce_rdma_remote_invalid_requests_total", MetricType::counter,
      "Remote invalid request errors the requester received."},
     ""},
    {"resp_local_length_error",
     {"roce_rdma_local_length_errors_total", MetricType::counter,
      "Responder local length errors (a message longer than the receive buffer)."},
     ""},
    {"rx_icrc_encapsulated",
     {"roce_rdma_icrc_errors_total", MetricType::counter, "RoCE packets received with a bad ICRC."},
     ""},
    // Soft-RoCE (rxe_hw_counters.c) names for the same events, and its packet totals.
    {"out_of_seq_request",
     {"roce_rdma_out_of_sequence_total", MetricType::counter,
      "Packets received out of sequence (a loss upstream)."},
     ""},
    {"rcvd_seq_err",
     {"roce_rdma_packet_sequence_errors_total", MetricType::counter,
      "NAK sequence errors received (the responder saw a gap)."},
     ""},
    {"retry_rnr_exceeded_err",
     {"roce_rdma_rnr_nak_retry_errors_total", MetricType::counter,
      "Receiver-not-ready NAK retries exhausted."},
     ""},
    {"sent_pkts",
     {"roce_rdma_sent_packets_total", MetricType::counter,
      "RoCE packets the RDMA device sent (rxe's sent_pkts)."},
     ""},
    {"rcvd_pkts",
     {"roce_rdma_received_packets_total", MetricType::counter,
      "RoCE packets the RDMA device received (rxe's rcvd_pkts)."},
     ""},
};

constexpr std::string_view kPriorityNames[] = {"0", "1", "2", "3", "4", "5", "6", "7"};

LabelSet port_labels(const PortSample& port) {
  return {{"netdev", port.netdev},
          {"device", port.rdma_device},
          {"port", port.rdma_port > 0 ? std::to_string(port.rdma_port) : ""}};
}

const EthtoolMapping* ethtool_mapping(const EthtoolCounterName& name) {
  for (const auto& mapping : kEthtool) {
    if (mapping.what == name.metric && mapping.per_priority == name.priority.has_value()) {
      return &mapping;
    }
  }
  return nullptr;
}

double in_base_unit(uint64_t value, CounterUnit unit) {
  return unit == CounterUnit::microseconds ? static_cast<double>(value) / 1e6
                                           : static_cast<double>(value);
}

constexpr FamilySpec kPortInfo{"roce_port_info", MetricType::gauge,
                               "A managed RoCE port: its driver, firmware and PCI address."};
constexpr FamilySpec kDriverTree{
    "roce_port_driver_tree_info", MetricType::gauge,
    "The mlx5 driver tree roced judges the port by (debian-6.1, debian-6.12, mlnx-ofed, "
    "nic-kernel, unknown) and the version it judged on."};
constexpr FamilySpec kLinkUp{"roce_link_up", MetricType::gauge,
                             "1 when the port is administratively up and has carrier."};
constexpr FamilySpec kMtu{"roce_link_mtu_bytes", MetricType::gauge, "The netdev's MTU."};
constexpr FamilySpec kSpeed{
    "roce_link_speed_bytes", MetricType::gauge,
    "The link's negotiated speed in bytes per second (sysfs speed); absent without carrier."};
constexpr FamilySpec kSampleAge{
    "roced_ethtool_sample_age_seconds", MetricType::gauge,
    "How old the port's ethtool counters served here were: 0 when read for this scrape, else the "
    "age of the storm watchdog's last reading, served instead (metrics.max_sample_age)."};
constexpr FamilySpec kRdmaSampleAge{
    "roced_rdma_sample_age_seconds", MetricType::gauge,
    "How old the port's RDMA counters served here were: 0 when read for this scrape, else the "
    "age of roced's background reading (metrics.rdma_interval)."};
constexpr FamilySpec kGidIndex{"roce_rocev2_gid_index", MetricType::gauge,
                               "The RoCE v2 GID index of the configured address family."};
constexpr FamilySpec kGidExpected{
    "roce_rocev2_gid_index_expected", MetricType::gauge,
    "The GID index the configuration says jobs use (roce.gid_index)."};
constexpr FamilySpec kBuildInfo{"roced_build_info", MetricType::gauge, "roced's version."};
constexpr FamilySpec kPorts{"roced_ports", MetricType::gauge, "Ports roced manages now."};
constexpr FamilySpec kCollectorSuccess{"roced_scrape_collector_success", MetricType::gauge,
                                       "1 when the collector read every port in this scrape."};
constexpr FamilySpec kCollectorDuration{"roced_scrape_collector_duration_seconds",
                                        MetricType::gauge,
                                        "Time the collector took in this scrape, all ports."};
constexpr FamilySpec kWraps{"roced_rdma_stat_wraps_total", MetricType::counter,
                            "32-bit RDMA counter wraps roced carried over."};
constexpr FamilySpec kResets{"roced_rdma_stat_resets_total", MetricType::counter,
                             "RDMA counters seen restarting from zero (a driver reload)."};

void add_port(ExpositionWriter& out, const PortSample& port) {
  const LabelSet labels = port_labels(port);
  out.add(kPortInfo,
          labels.with({{"driver", port.driver}, {"firmware", port.firmware}, {"pci", port.pci}}),
          1);
  if (!port.driver_tree.empty()) {
    out.add(kDriverTree,
            labels.with({{"tree", port.driver_tree}, {"version", port.driver_tree_version}}), 1);
  }
  if (port.link_known) {
    out.add(kLinkUp, labels, port.link_up ? 1 : 0);
    out.add(kMtu, labels, port.mtu);
    // Mb/s to bytes/s: Prometheus's base unit, as node_exporter's node_network_speed_bytes.
    if (port.speed_mbps) out.add(kSpeed, labels, *port.speed_mbps * 1e6 / 8);
  }
  if (!port.ethtool.empty()) {
    out.add(kSampleAge, labels, std::chrono::duration<double>(port.ethtool_age).count());
  }
  if (!port.rdma.empty()) {
    out.add(kRdmaSampleAge, labels, std::chrono::duration<double>(port.rdma_age).count());
  }
  if (port.rocev2_gid_index) {
    out.add(kGidIndex, labels.with({{"family", port.gid_family}}), *port.rocev2_gid_index);
  }
  if (port.expected_gid_index) {
    out.add(kGidExpected, labels.with({{"family", port.gid_family}}), *port.expected_gid_index);
  }

  for (const auto& [name, value] : port.ethtool) {
    const auto parsed = parse_ethtool_name(name);
    if (!parsed) continue;
    const EthtoolMapping* mapping = ethtool_mapping(*parsed);
    if (mapping == nullptr) continue;
    LabelSet series = labels;
    if (mapping->direction_label)
      series = series.with({{"direction", direction_name(parsed->direction)}});
    if (parsed->priority)
      series = series.with({{"priority", kPriorityNames[*parsed->priority & 7]}});
    out.add(mapping->family, series, in_base_unit(value, parsed->unit));
  }

  for (const auto& mapping : kRdma) {
    const auto it = port.rdma_totals.find(std::string(mapping.counter));
    if (it == port.rdma_totals.end()) continue;
    out.add(mapping.family, mapping.side.empty() ? labels : labels.with({{"side", mapping.side}}),
            static_cast<double>(it->second));
  }
  if (!port.rdma_device.empty()) {
    const LabelSet netdev = {{"netdev", port.netdev}};
    out.add(kWraps, netdev, static_cast<double>(port.counter_wraps));
    out.add(kResets, netdev, static_cast<double>(port.counter_resets));
  }
}

}  // namespace

bool exports_hw_counter(std::string_view counter) {
  for (const auto& mapping : kRdma) {
    if (mapping.counter == counter) return true;
  }
  return false;
}

bool exports_ethtool_stat(std::string_view name) {
  const auto parsed = parse_ethtool_name(name);
  return parsed && ethtool_mapping(*parsed) != nullptr;
}

void write_exposition(std::string& out_text, const NodeSample& sample, const ExporterInfo& info,
                      ExpositionWriter::Filter serves, std::span<Collector* const> collectors) {
  ExpositionWriter out(std::move(serves));
  out.add(kBuildInfo, {{"version", info.version}}, 1);
  out.add(kPorts, {}, static_cast<double>(sample.ports.size()));
  for (const auto& [name, outcome] : sample.sources) {
    out.add(kCollectorSuccess, {{"collector", name}}, outcome.ok ? 1 : 0);
    out.add(kCollectorDuration, {{"collector", name}},
            std::chrono::duration<double>(outcome.took).count());
  }
  for (const auto& port : sample.ports) add_port(out, port);
  for (Collector* collector : collectors) collector->collect(out);
  out.take(out_text);
}

}  // namespace roced::telemetry
