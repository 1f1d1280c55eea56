// SPDX-License-Identifier: Apache-2.0
// Port construction, firmware defaults (driver load) and the link.
#include "sim/model/port.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "sim/model/firmware_commands.hpp"

namespace roce_sim {
namespace {

// The DCQCN parameters a ConnectX port starts with (firmware defaults, as NVIDIA documents them and
// as the OFED fixture shows; the kernel only passes them through, cong.c).
void default_ecn(EcnState& ecn) {
  ecn.np_enabled.fill(true);  // ECN/DCQCN is enabled on every priority by the firmware
  ecn.rp_enabled.fill(true);
  ecn.params = {
      {"rp_clamp_tgt_rate", 0},
      {"rp_clamp_tgt_rate_ati", 1},
      {"rp_time_reset", 300},
      {"rp_byte_reset", 32767},
      {"rp_threshold", 1},
      {"rp_ai_rate", 5},
      {"rp_max_rate", 0},
      {"rp_hai_rate", 50},
      {"rp_min_dec_fac", 50},
      {"rp_min_rate", 1},
      {"rp_rate_to_set_on_first_cnp", 0},
      {"rp_dce_tcp_g", 1019},
      {"rp_dce_tcp_rtt", 1},
      {"rp_rate_reduce_monitor_period", 4},
      {"rp_initial_alpha_value", 1023},
      {"rp_gd", 11},
      {"np_min_time_between_cnps", 4},
      {"np_cnp_dscp", 48},
      {"np_cnp_prio_mode", 1},
      {"np_cnp_prio", 6},
      {"rtt_resp_dscp_valid", 0},
      {"rtt_resp_dscp", 0},
  };
}

}  // namespace

Port::Port(PortSpec spec)
    : spec_(std::move(spec)), rdma_(spec_.rdma_device, spec_.rdma_port, spec_.netdev) {
  reset_to_firmware_defaults();
  rdma_.set_pod_netdev(spec_.pod_netdev);
  rdma_.set_uppers(spec_.uppers);
  rdma_.set_addresses(spec_.mac, spec_.ipv4, spec_.ipv6);
  start_pods(spec_.pods);
  if (!spec_.is_vf() && !spec_.is_sf() && !spec_.is_representor() && !spec_.is_stacked()) {
    if (spec_.module == ModuleForm::none) {
      empty_cage_ = true;
    } else {
      transceiver_.emplace("MT2231FT" + spec_.netdev, spec_.module);
    }
    health_reporters_ = {{"fw", {}}, {"fw_fatal", {}}};
  }
}

std::vector<std::string> Port::start_pods(uint32_t count) {
  std::vector<std::string> started;
  const auto slash = spec_.pod_subnet.find('/');
  if (slash == std::string::npos) return started;
  in_addr network{};
  if (::inet_pton(AF_INET, spec_.pod_subnet.substr(0, slash).c_str(), &network) != 1) {
    return started;
  }
  const int prefix = std::clamp(prefix_length(spec_.pod_subnet), 0, 32);
  const uint64_t size = uint64_t{1} << (32 - prefix);
  const uint64_t hosts = size > 2 ? size - 2 : 0;
  const uint64_t base = ntohl(network.s_addr) & ~(size - 1);
  while (started.size() < count && next_pod_ < hosts) {
    in_addr address{htonl(static_cast<uint32_t>(base + 1 + next_pod_++))};
    char text[INET_ADDRSTRLEN];
    ::inet_ntop(AF_INET, &address, text, sizeof text);
    if (rdma_.start_pod(text)) started.emplace_back(text);
  }
  return started;
}

std::vector<std::string> Port::stop_pods(uint32_t count) {
  std::vector<std::string> stopped;
  while (stopped.size() < count && !rdma_.pods().empty()) {
    stopped.push_back(rdma_.pods().front());
    rdma_.stop_pod(stopped.back());
  }
  return stopped;
}

void Port::reset_to_firmware_defaults() {
  // mlx5e_dcbnl_initialize: trust and DSCP map from the firmware, DCBX mode from the firmware,
  // manual_buffer = false, cable_len = MLX5E_DEFAULT_CABLE_LEN, then mlx5e_ets_init.
  trust_dscp_ = spec_.firmware_trust_dscp;
  stat_base_.clear();  // the counters restart from counters_start
  // A new Q counter set each probe (en_main.c mlx5e_create_q_counters, ALLOC_Q_COUNTER; the old
  // one freed by mlx5e_destroy_q_counters): rx_out_of_buffer starts again from 0.
  counters_.rx_out_of_buffer = 0;
  for (size_t dscp = 0; dscp < dscp2prio_.size(); ++dscp)
    dscp2prio_[dscp] = static_cast<uint8_t>(dscp >> 3);
  app_list_.clear();
  dscp_app_cnt_ = 0;
  if (trust_dscp_) {
    // mlx5e_dcbnl_dscp_app(INIT): dcb_ieee_setapp for all 64 DSCPs; list_add puts each in front.
    for (uint16_t dscp = 0; dscp < 64; ++dscp)
      app_list_.insert(app_list_.begin(),
                       dcb_app{IEEE_8021QAZ_APP_SEL_DSCP, dscp2prio_[dscp], dscp});
    dscp_app_cnt_ = 64;
  }

  dcbx_host_ = spec_.firmware_dcbx_host;
  dcbx_cap_ = DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE;
  if (dcbx_host_) dcbx_cap_ |= DCB_CAP_DCBX_HOST;

  pfc_en_ = 0;
  // PFCC pprx/pptx as the firmware starts them, not in the kernel source: a port nobody
  // configured pauses the link in both directions (ethtool -a: RX on, TX on) and has PFC off;
  // the node file may say otherwise. Only the PF's netdev reads the port's PFCC. A VF or an SF
  // is no vport group manager, and the firmware is assumed to refuse its PFCC query, which
  // mlx5e_ethtool_get_pauseparam only logs (rx and tx stay 0); a representor has no pause op.
  const GlobalPause global_pause =
      spec_.firmware_global_pause.value_or(GlobalPause{pfc_en_ == 0, pfc_en_ == 0});
  const bool reads_port = spec_.vport_group_manager() && !spec_.is_representor();
  pause_rx_ = reads_port && global_pause.rx;
  pause_tx_ = reads_port && global_pause.tx;
  cable_len_ = 7;
  pfc_ = ieee_pfc{};
  max_bw_value_.fill(0);
  max_bw_unit_.fill(0);
  maxrate_ = ieee_maxrate{};

  // mlx5e_ets_init: every TC vendor with 100 %, prio_tc {1, 0, 2, 3, 4, 5, 6, 7}.
  ieee_ets ets{};
  ets.ets_cap = 8;
  for (uint8_t tc = 0; tc < 8; ++tc) {
    ets.tc_tx_bw[tc] = 100;
    ets.tc_tsa[tc] = IEEE_8021QAZ_TSA_VENDOR;
    ets.prio_tc[tc] = tc;
  }
  ets.prio_tc[0] = 1;
  ets.prio_tc[1] = 0;
  setets_core(ets);

  mtu_ = 1500;
  admin_up_ = true;
  link_toggles_ = 0;
  training_left_us_ = 0;
  carrier_changes_ = 0;
  link_down_events_ = 0;

  buffers_manual_ = false;
  cached_xoff_ = 0;
  auto_buffer_layout();

  channels_ = spec_.channels;
  stats_channels_ = spec_.channels;
  pfc_prevention_tout_ = kStallTimeoutDefaultMs;
  stall_minor_ms_ = static_cast<uint16_t>(std::max(80, kStallTimeoutDefaultMs * 85 / 100));

  counters_ = PortCounters{};
  cached_pause_ = {};  // a new priv: nothing read yet
  ecn_ = EcnState{};
  default_ecn(ecn_);

  commands_.clear();  // the driver's command statistics start again with it
  firmware_time_ = {};
  rdma_.reset_to_defaults();
  rdma_.set_addresses(spec_.mac, spec_.ipv4, spec_.ipv6);
}

// ---- link ----

int Port::set_mtu(uint32_t mtu) {
  // dev_set_mtu: outside [min_mtu, max_mtu] is -EINVAL before the driver is asked.
  if (mtu < min_mtu() || mtu > max_mtu()) return -EINVAL;
  mtu_ = mtu;
  // In manual mode mlx5 leaves the buffers alone; the firmware redoes its own.
  if (!buffers_manual_) auto_buffer_layout();
  return 0;
}

int Port::set_admin_up(bool up) {
  if (up == admin_up_) return 0;
  const bool had_carrier = carrier();
  admin_up_ = up;
  if (had_carrier != carrier()) ++carrier_changes_;
  return 0;
}

void Port::set_peer_carrier(bool carrier_up) {
  const bool had_carrier = carrier();
  carrier_ = carrier_up;
  if (had_carrier != carrier()) {
    ++carrier_changes_;
    if (!carrier_up) ++link_down_events_;
  }
}

uint32_t Port::link_training_ms() const {
  return spec_.link_training_ms.value_or(default_link_training_ms(spec_.speed_mbps));
}

void Port::issue(const char* command, uint32_t count) const {
  CommandStats& stats = commands_[command];
  stats.n += count;
  const auto took = std::chrono::microseconds(uint64_t{spec_.firmware_command_us} * count);
  stats.total_ns += static_cast<uint64_t>(took.count()) * 1000;
  firmware_time_ += took;
  commands_changed_ = true;
}

std::chrono::microseconds Port::take_firmware_time() { return std::exchange(firmware_time_, {}); }

void Port::toggle_link() {
  // mlx5_toggle_port_link (port.c): PAOS admin down, then up again if it was up. The carrier
  // drops at once and returns only when the PHY has trained (advance()); until then
  // mlx5e_port_linkspeed fails, so calculate_xoff falls back to 40 Gb/s.
  issue("ACCESS_REG", firmware::kLinkToggle);
  ++link_toggles_;
  const bool had_carrier = carrier();
  if (had_carrier) {
    ++carrier_changes_;
    ++link_down_events_;
  }
  if (!admin_up_ || !carrier_) return;  // nothing to train against
  training_left_us_ = uint64_t{link_training_ms()} * 1000;
  if (training_left_us_ == 0) ++carrier_changes_;  // trained inside the op
}

bool Port::advance(std::chrono::microseconds elapsed) {
  if (training_left_us_ == 0 || elapsed.count() <= 0) return false;
  const auto step = static_cast<uint64_t>(elapsed.count());
  training_left_us_ = step >= training_left_us_ ? 0 : training_left_us_ - step;
  if (training_left_us_ != 0 || !carrier()) return false;
  ++carrier_changes_;
  return true;
}

}  // namespace roce_sim
