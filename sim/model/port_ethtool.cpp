// SPDX-License-Identifier: Apache-2.0
// ethtool view of a port: drvinfo (en_ethtool.c), stats strings and values (en_stats.c), the
// PFC stall prevention tunable (mlx5e_get/set_pfc_prevention_tout) and 802.3x global pause
// (mlx5e_ethtool_get/set_pauseparam).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>

#include "sim/model/firmware_commands.hpp"
#include "sim/model/port.hpp"

namespace roce_sim {

std::string StatName::str() const {
  if (index < 0) return std::string(head);
  std::string name(head);
  name += std::to_string(index);
  name += '_';
  name += tail;
  return name;
}

DriverInfo Port::drvinfo() const {
  DriverInfo info;
  if (spec_.is_bond()) {
    // drivers/net/bonding/bond_main.c bond_ethtool_get_drvinfo: the driver's name and
    // BOND_ABI_VERSION as the firmware version; no bus.
    info.driver = "bonding";
    info.firmware = "2";
    return info;
  }
  if (spec_.upper_kind == "vlan") {  // net/8021q/vlan_dev.c vlan_ethtool_get_drvinfo
    info.driver = "802.1Q VLAN Support";
    info.version = "1.8";
    info.firmware = "N/A";
    return info;
  }
  if (spec_.upper_kind == "macvlan") {  // drivers/net/macvlan.c macvlan_ethtool_get_drvinfo
    info.driver = "macvlan";
    info.version = "0.1";
    return info;
  }
  // mlx5e_ethtool_get_drvinfo: "%d.%d.%04d (%.16s)" with the board id (PSID).
  info.version = spec_.driver_version;
  int major = 0, minor = 0, sub = 0;
  if (std::sscanf(spec_.firmware.c_str(), "%d.%d.%d", &major, &minor, &sub) == 3) {
    char text[64];
    std::snprintf(text, sizeof text, "%d.%d.%04d (%.16s)", major, minor, sub, "MT_0000000838");
    info.firmware = text;
  } else {
    info.firmware = spec_.firmware;
  }
  info.bus_info = spec_.pci_address;
  return info;
}

template <class Sink>
void Port::list_stats(Sink&& add) const {
  // The groups in mlx5e_nic_stats_grps order: sw, qcnt, vnic_env, vport, 802_3, 2863, 2819, phy,
  // eth_ext, pcie, per_prio, pme, tls, channels, per_port_buff_congest. Each group is a
  // representative subset of the real names; per-priority and pause names are complete.
  const PortCounters& c = counters_;

  // sw (software ring totals: the model has no separate host stack, the port totals stand in)
  add("rx_packets", c.rx_packets);
  add("rx_bytes", c.rx_bytes);
  add("tx_packets", c.tx_packets);
  add("tx_bytes", c.tx_bytes);
  for (const char* name : {"tx_tso_packets",
                           "tx_tso_bytes",
                           "tx_tso_inner_packets",
                           "tx_tso_inner_bytes",
                           "tx_added_vlan_packets",
                           "tx_nop",
                           "rx_lro_packets",
                           "rx_lro_bytes",
                           "rx_gro_packets",
                           "rx_gro_bytes",
                           "rx_ecn_mark",
                           "rx_removed_vlan_packets",
                           "rx_csum_unnecessary",
                           "rx_csum_none",
                           "rx_csum_complete",
                           "rx_xdp_drop",
                           "rx_xdp_redirect",
                           "tx_csum_none",
                           "tx_csum_partial",
                           "tx_csum_partial_inner",
                           "tx_queue_stopped",
                           "tx_queue_dropped",
                           "tx_xmit_more",
                           "tx_recover",
                           "tx_cqes",
                           "tx_queue_wake",
                           "tx_cqe_err",
                           "rx_wqe_err",
                           "rx_mpwqe_filler_cqes",
                           "rx_buff_alloc_err",
                           "rx_cqe_compress_blks",
                           "rx_cqe_compress_pkts",
                           "rx_congst_umr",
                           "rx_arfs_err",
                           "rx_recover",
                           "ch_events",
                           "ch_poll",
                           "ch_arm",
                           "ch_aff_change",
                           "ch_force_irq",
                           "ch_eq_rearm"})
    add(name, 0);
  // qcnt
  add("rx_out_of_buffer", c.rx_out_of_buffer);
  add("rx_if_down_packets", 0);
  // vnic_env
  add("rx_steer_missed_packets", 0);
  // vport
  add("rx_vport_unicast_packets", c.rx_packets);
  add("rx_vport_unicast_bytes", c.rx_bytes);
  add("tx_vport_unicast_packets", c.tx_packets);
  add("tx_vport_unicast_bytes", c.tx_bytes);
  for (const char* name :
       {"rx_vport_multicast_packets", "rx_vport_multicast_bytes", "tx_vport_multicast_packets",
        "tx_vport_multicast_bytes", "rx_vport_broadcast_packets", "rx_vport_broadcast_bytes",
        "tx_vport_broadcast_packets", "tx_vport_broadcast_bytes", "rx_vport_rdma_unicast_packets",
        "rx_vport_rdma_unicast_bytes", "tx_vport_rdma_unicast_packets",
        "tx_vport_rdma_unicast_bytes", "rx_vport_rdma_multicast_packets",
        "rx_vport_rdma_multicast_bytes", "tx_vport_rdma_multicast_packets",
        "tx_vport_rdma_multicast_bytes"})
    add(name, 0);
  // 802_3 (pause frames are MAC control frames, so those include them)
  add("tx_packets_phy", c.tx_packets);
  add("rx_packets_phy", c.rx_packets);
  add("rx_crc_errors_phy", 0);
  add("tx_bytes_phy", c.tx_bytes);
  add("rx_bytes_phy", c.rx_bytes);
  for (const char* name :
       {"tx_multicast_phy", "tx_broadcast_phy", "rx_multicast_phy", "rx_broadcast_phy",
        "rx_in_range_len_errors_phy", "rx_out_of_range_len_phy", "rx_oversize_pkts_phy"})
    add(name, 0);
  add("rx_symbol_err_phy", c.rx_symbol_err_phy);
  add("tx_mac_control_phy", c.tx_pause_ctrl_phy);
  add("rx_mac_control_phy", c.rx_pause_ctrl_phy);
  add("rx_unsupported_op_phy", 0);
  add("rx_pause_ctrl_phy", c.rx_pause_ctrl_phy);
  add("tx_pause_ctrl_phy", c.tx_pause_ctrl_phy);
  // 2863
  add("rx_discards_phy", c.rx_discards_phy);
  add("tx_discards_phy", c.tx_discards_phy);
  add("tx_errors_phy", 0);
  // 2819
  for (const char* name :
       {"rx_undersize_pkts_phy", "rx_fragments_phy", "rx_jabbers_phy", "rx_64_bytes_phy",
        "rx_65_to_127_bytes_phy", "rx_128_to_255_bytes_phy", "rx_256_to_511_bytes_phy",
        "rx_512_to_1023_bytes_phy", "rx_1024_to_1518_bytes_phy", "rx_1519_to_2047_bytes_phy",
        "rx_2048_to_4095_bytes_phy", "rx_4096_to_8191_bytes_phy", "rx_8192_to_10239_bytes_phy"})
    add(name, 0);
  // phy
  // A 32-bit field of the PPCNT physical layer group, read with MLX5_GET rather than as a
  // big-endian 64-bit counter (en_stats.c: mlx5e_grp_phy_fill_stats): it wraps at 2^32.
  add("link_down_events_phy", static_cast<uint32_t>(link_down_events_));
  add("rx_pcs_symbol_err_phy", c.rx_pcs_symbol_err_phy);
  add("rx_corrected_bits_phy", c.rx_corrected_bits_phy);
  // Firmware with PCAM per_lane_error_counters (ConnectX-6 Dx on): the corrected bits per lane
  // (pport_phy_statistical_err_lanes_stats_desc, phy_corrected_bits_lane<n>).
  for (size_t lane = 0; lane < c.rx_corrected_bits_lane.size(); ++lane) {
    add(StatName("rx_err_lane_", static_cast<uint32_t>(lane), "phy"),
        c.rx_corrected_bits_lane[lane]);
  }
  // eth_ext
  add("rx_buffer_passed_thres_phy", c.rx_buffer_passed_thres_phy);
  // pcie
  add("rx_pci_signal_integrity", c.rx_pci_signal_integrity);
  add("tx_pci_signal_integrity", c.tx_pci_signal_integrity);
  add("outbound_pci_buffer_overflow", 0);
  add("outbound_pci_stalled_rd", c.outbound_pci_stalled_rd);
  add("outbound_pci_stalled_wr", c.outbound_pci_stalled_wr);
  add("outbound_pci_stalled_rd_events", c.outbound_pci_stalled_rd_events);
  add("outbound_pci_stalled_wr_events", c.outbound_pci_stalled_wr_events);
  // per_prio: traffic for every priority (mlx5e_grp_per_prio_traffic_fill_strings) ...
  for (int p = 0; p < 8; ++p) {
    const PriorityCounters& pc = c.prio[static_cast<size_t>(p)];
    add(StatName("rx_prio", p, "bytes"), pc.rx_bytes);
    add(StatName("rx_prio", p, "packets"), pc.rx_packets);
    add(StatName("rx_prio", p, "discards"), pc.rx_discards);
    add(StatName("tx_prio", p, "bytes"), pc.tx_bytes);
    add(StatName("tx_prio", p, "packets"), pc.tx_packets);
  }
  // ... then pause counters only for PFC-enabled priorities (mlx5e_grp_per_prio_pfc_fill_strings;
  // pfc_combined = tx | rx, which mlx5 always sets alike) ...
  for (int p = 0; p < 8; ++p) {
    if (!((pfc_en_ >> p) & 1)) continue;
    const PriorityCounters& pc = c.prio[static_cast<size_t>(p)];
    add(StatName("rx_prio", p, "pause"), pc.rx_pause);
    add(StatName("rx_prio", p, "pause_duration"), pc.rx_pause_duration_us);
    add(StatName("tx_prio", p, "pause"), pc.tx_pause);
    add(StatName("tx_prio", p, "pause_duration"), pc.tx_pause_duration_us);
    add(StatName("rx_prio", p, "pause_transition"), pc.rx_pause_transition);
  }
  // ... then the same five for 802.3x global pause while it is on in either direction
  // (mlx5e_query_global_pause_combined: pprx | pptx), named "global" and read from priority 0's
  // counters (per_prio_counters[0]), then the stall counters.
  if (pause_rx_ || pause_tx_) {
    const PriorityCounters& pc = c.prio[0];
    add("rx_global_pause", pc.rx_pause);
    add("rx_global_pause_duration", pc.rx_pause_duration_us);
    add("tx_global_pause", pc.tx_pause);
    add("tx_global_pause_duration", pc.tx_pause_duration_us);
    add("rx_global_pause_transition", pc.rx_pause_transition);
  }
  if (spec_.caps.stall_prevention) {
    add("tx_pause_storm_warning_events", c.tx_pause_storm_warning_events);
    add("tx_pause_storm_error_events", c.tx_pause_storm_error_events);
  }
  // pme
  for (const char* name :
       {"module_unplug", "module_bus_stuck", "module_high_temp", "module_bad_shorted"})
    add(name, 0);
  // channels (mlx5e_grp_channels_fill_strings): every channel's ch stats, then every channel's
  // rq stats, then every channel's sq stats, for priv->stats_nch channels: the set grows with
  // `ethtool -L` and does not shrink until the driver reloads. Channel 0 carries the traffic.
  const uint32_t channels = stats_channels_;
  for (uint32_t ch = 0; ch < channels; ++ch) {
    for (const char* what : {"events", "poll", "arm", "aff_change", "force_irq", "eq_rearm"})
      add(StatName("ch", ch, what), 0);
  }
  for (uint32_t ch = 0; ch < channels; ++ch) {
    add(StatName("rx", ch, "packets"), ch == 0 ? c.rx_packets : 0);
    add(StatName("rx", ch, "bytes"), ch == 0 ? c.rx_bytes : 0);
    for (const char* what : {"csum_complete", "csum_unnecessary", "csum_none", "xdp_drop",
                             "xdp_redirect", "lro_packets", "lro_bytes", "ecn_mark",
                             "removed_vlan_packets", "wqe_err", "buff_alloc_err", "recover"})
      add(StatName("rx", ch, what), 0);
  }
  for (uint32_t ch = 0; ch < channels; ++ch) {
    add(StatName("tx", ch, "packets"), ch == 0 ? c.tx_packets : 0);
    add(StatName("tx", ch, "bytes"), ch == 0 ? c.tx_bytes : 0);
    for (const char* what :
         {"tso_packets", "tso_bytes", "csum_partial", "nop", "csum_none", "stopped", "dropped",
          "xmit_more", "recover", "cqes", "wake", "cqe_err"})
      add(StatName("tx", ch, what), 0);
  }
  // per_port_buff_congest (needs sbcam_reg)
  if (spec_.caps.prio_discard_counters) {
    for (int p = 0; p < 8; ++p) {
      const PriorityCounters& pc = c.prio[static_cast<size_t>(p)];
      add(StatName("rx_prio", p, "buf_discard"), pc.rx_buf_discard);
      add(StatName("rx_prio", p, "cong_discard"), pc.rx_cong_discard);
      add(StatName("rx_prio", p, "marked"), pc.rx_marked);
    }
  }
}

namespace {

// The names en_stats.c fills from 32-bit firmware fields, which wrap at 2^32 (Debian's 6.1.192
// source): the Q counters (q_stats_desc, drop_rq_stats_desc: struct mlx5e_qcounter_stats is u32,
// MLX5E_READ_CTR32_CPU), two QUERY_VNIC_ENV counters (vnic_env_stats_dev_oob_desc,
// vnic_env_stats_drop_desc) and MPCNT's PCIe group (pcie_perf_stats_desc,
// pcie_perf_stall_stats_desc), all MLX5E_READ_CTR32_BE. outbound_pci_buffer_overflow
// (pcie_perf_stats_desc64) and everything else are 64-bit.
bool firmware_counter32(std::string_view head) {
  static constexpr std::string_view k32[] = {"rx_out_of_buffer",
                                             "rx_if_down_packets",
                                             "dev_internal_queue_oob",
                                             "rx_oversize_pkts_buffer",
                                             "rx_pci_signal_integrity",
                                             "tx_pci_signal_integrity",
                                             "outbound_pci_stalled_rd_events",
                                             "outbound_pci_stalled_wr_events"};
  for (const auto name : k32) {
    if (name == head) return true;
  }
  return false;
}

// Not counters but the firmware's figure for the last second (0-100 %): no start value, no
// clear, no wrap.
bool firmware_gauge(std::string_view head) {
  return head == "outbound_pci_stalled_rd" || head == "outbound_pci_stalled_wr";
}

}  // namespace

uint64_t Port::reported(const StatName& name, uint64_t value) const {
  if (name.index < 0 && firmware_gauge(name.head)) return value;
  // The node description's counters_start; unsigned arithmetic wraps at 2^64 as the PPCNT
  // counters do. A cleared counter reads net of what it read at the clear.
  value += spec_.counters_start;
  if (!stat_base_.empty()) {
    if (auto base = stat_base_.find(name.str()); base != stat_base_.end()) value -= base->second;
  }
  // A 32-bit firmware counter: what the driver copies out is its low 32 bits.
  if (name.index < 0 && firmware_counter32(name.head)) value &= 0xffff'ffffu;
  return value;
}

std::vector<std::pair<std::string, uint64_t>> Port::stats() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  out.reserve(512);
  list_stats([&](const StatName& name, uint64_t value) {
    out.emplace_back(name.str(), reported(name, value));
  });
  return out;
}

size_t Port::stat_count() const {
  size_t count = 0;
  list_stats([&count](const StatName&, uint64_t) { ++count; });
  return count;
}

std::vector<std::string> Port::stat_names() const {
  std::vector<std::string> names;
  names.reserve(512);
  list_stats([&names](const StatName& name, uint64_t) { names.push_back(name.str()); });
  return names;
}

std::vector<uint64_t> Port::stat_values() const {
  // GSTATS on every poll of every port: the values alone, without composing a name unless a
  // cleared counter needs one.
  std::vector<uint64_t> values;
  values.reserve(512);
  list_stats(
      [&](const StatName& name, uint64_t value) { values.push_back(reported(name, value)); });
  return values;
}

bool Port::clear_stat(const std::string& name) {
  for (const auto& [listed, value] : stats()) {
    if (listed != name) continue;
    stat_base_[name] += value;  // value is already net of an earlier clear
    return true;
  }
  return false;
}

void Port::update_stats() {
  // The same hardware counters ethtool lists as {rx,tx}_prio{p}_pause while PFC is on.
  for (int p = 0; p < 8; ++p) {
    const PriorityCounters& pc = counters_.prio[static_cast<size_t>(p)];
    cached_pause_[static_cast<size_t>(p)] = {
        reported(StatName("tx_prio", p, "pause"), pc.tx_pause),
        reported(StatName("rx_prio", p, "pause"), pc.rx_pause)};
  }
}

Port::MacControlCounts Port::mac_control_counts() const {
  return {reported("tx_mac_control_phy", counters_.tx_pause_ctrl_phy),
          reported("rx_mac_control_phy", counters_.rx_pause_ctrl_phy),
          reported("rx_unsupported_op_phy", 0)};
}

uint64_t Port::symbol_errors_during_carrier() const {
  return reported("rx_symbol_err_phy", counters_.rx_symbol_err_phy);
}

int Port::set_channels(uint32_t channels) {
  // mlx5e_ethtool_set_channels: count 0 is -EINVAL (ethtool_set_channels), more than the port
  // has is -EINVAL; opening the new channels allocates their statistics (mlx5e_channel_stats_alloc
  // raises priv->stats_nch, never lowers it).
  if (channels == 0 || channels > kMaxChannels) return -EINVAL;
  channels_ = channels;
  stats_channels_ = std::max(stats_channels_, channels);
  return 0;
}

namespace {

// Netdevs whose ethtool_ops have get/set_pauseparam: mlx5e's own (en_ethtool.c
// mlx5e_ethtool_ops: a PF, VF or SF). A VF's representor (en_rep.c mlx5e_rep_ethtool_ops), a bond,
// a VLAN and a macvlan have neither, and net/ethtool/ioctl.c ethtool_get_pauseparam and
// ethtool_set_pauseparam answer -EOPNOTSUPP.
bool has_pause_ops(const PortSpec& spec) { return !spec.is_representor() && !spec.is_stacked(); }

}  // namespace

int Port::get_pauseparam(PauseParam& out) const {
  if (!has_pause_ops(spec_)) return -EOPNOTSUPP;
  // mlx5e_ethtool_get_pauseparam: mlx5_query_port_pause reads PFCC pprx/pptx; autoneg stays 0.
  issue("ACCESS_REG", firmware::kGetPause);
  out = PauseParam{};
  out.rx = pause_rx_;
  out.tx = pause_tx_;
  return 0;
}

int Port::set_pauseparam(const PauseParam& in) {
  if (!has_pause_ops(spec_)) return -EOPNOTSUPP;
  // mlx5e_ethtool_set_pauseparam: a function that is no vport group manager may not, pause
  // autonegotiation is refused, then mlx5_set_port_pause writes PFCC with pptx/pprx alone (the
  // prio masks 0: PFC as it was).
  if (!spec_.vport_group_manager()) return -EOPNOTSUPP;
  if (in.autoneg) return -EINVAL;
  issue("ACCESS_REG", firmware::kSetPause);
  pause_rx_ = in.rx;
  pause_tx_ = in.tx;
  return 0;
}

int Port::get_pfc_prevention_tout(uint16_t& ms) const {
  if (!spec_.caps.stall_prevention) return -EOPNOTSUPP;
  ms = pfc_prevention_tout_;  // the critical watermark as the firmware holds it
  return 0;
}

int Port::set_pfc_prevention_tout(uint16_t ms) {
  // mlx5e_set_pfc_prevention_tout: AUTO (0xffff) is stored as 100 ms, 0 disables, otherwise
  // 80..8000 ms; the minor (warning) watermark is max(80, 85 % of the critical one).
  if (!spec_.caps.stall_prevention) return -EOPNOTSUPP;
  const uint16_t critical = ms == 0xffff ? uint16_t{100} : ms;
  if (critical != 0 && (critical > 8000 || critical < 80)) return -EINVAL;
  pfc_prevention_tout_ = critical;
  stall_minor_ms_ = static_cast<uint16_t>(std::max(80, critical * 85 / 100));
  return 0;
}

}  // namespace roce_sim
