// SPDX-License-Identifier: Apache-2.0
#pragma once
// One simulated mlx5 port: the netdev, its DCB state, ethtool view and the RDMA device on it.
// Every rule cites the kernel function it follows. Methods that stand for a driver op return 0 or a
// negative errno, exactly as the op does, so the server can put the value on the wire. Not
// thread-safe: roce-sim drives the model from one event loop.

#include <linux/dcbnl.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/model/port_spec.hpp"
#include "sim/model/rdma_device.hpp"
#include "sim/model/transceiver.hpp"

namespace roce_sim {

// Hardware counters of one priority; the traffic engine (traffic.hpp) advances them.
struct PriorityCounters {
  uint64_t rx_bytes = 0, rx_packets = 0, rx_discards = 0;
  uint64_t tx_bytes = 0, tx_packets = 0;
  uint64_t rx_pause = 0, rx_pause_duration_us = 0, rx_pause_transition = 0;
  uint64_t tx_pause = 0, tx_pause_duration_us = 0;
  uint64_t rx_buf_discard = 0, rx_cong_discard = 0, rx_marked = 0;
};

struct PortCounters {
  std::array<PriorityCounters, 8> prio{};
  uint64_t rx_discards_phy = 0, tx_discards_phy = 0;
  uint64_t rx_pause_ctrl_phy = 0, tx_pause_ctrl_phy = 0;
  uint64_t rx_buffer_passed_thres_phy = 0, rx_out_of_buffer = 0;
  // MPCNT's PCIe group (mlx5 counters.rst): outbound_pci_stalled_{rd,wr} are gauges, the share
  // of the last second (0-100) in which the NIC had outbound reads or writes it could not issue
  // for lack of PCIe credits; the _events count the seconds in which that share was above 30 %.
  // The signal integrity counters count the link's transitions to recovery.
  uint64_t outbound_pci_stalled_rd = 0, outbound_pci_stalled_wr = 0;
  uint64_t outbound_pci_stalled_rd_events = 0, outbound_pci_stalled_wr_events = 0;
  uint64_t rx_pci_signal_integrity = 0, tx_pci_signal_integrity = 0;
  uint64_t tx_pause_storm_warning_events = 0, tx_pause_storm_error_events = 0;
  uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0,
           tx_bytes = 0;  // port totals (rx_packets_phy...)
  // The PHY's errors (PPCNT): symbol errors in received frames (the 802.3 group's
  // a_symbol_error_during_carrier), symbol errors FEC could not correct, and bits it corrected.
  uint64_t rx_symbol_err_phy = 0, rx_pcs_symbol_err_phy = 0, rx_corrected_bits_phy = 0;
  std::array<uint64_t, 4> rx_corrected_bits_lane{};  // rx_err_lane_<n>_phy
  // The physical layer group's RS-FEC codeword counters (rs_fec_corrected_blocks,
  // rs_fec_uncorrectable_blocks), which ethtool netlink's FEC statistics carry.
  uint64_t rs_fec_corrected_blocks = 0, rs_fec_uncorrectable_blocks = 0;
};

struct DriverInfo {
  std::string driver = "mlx5_core";
  std::string version;
  std::string firmware;  // "28.39.1002 (MT_0000000838)"
  std::string bus_info;
};

// DCQCN knobs of one port. Names are the upstream cc_params file names (rp_*, np_*); the OFED
// flavour exposes the same values under ecn/roce_rp|roce_np/params/ with its own names, mapped
// by the file-tree code in the server.
// An ethtool -S name as mlx5 composes it: `head` alone, or head, index, '_', tail
// ("rx_prio" 3 "pause" is rx_prio3_pause, "ch" 0 "arm" is ch0_arm). Composed only when asked:
// listing the values does not need it.
struct StatName {
  StatName(const char* name) : head(name) {}  // NOLINT(google-explicit-constructor): a plain name
  StatName(std::string_view name_head, uint32_t name_index, std::string_view name_tail)
      : head(name_head), index(static_cast<int>(name_index)), tail(name_tail) {}
  StatName(std::string_view name_head, int name_index, std::string_view name_tail)
      : head(name_head), index(name_index), tail(name_tail) {}
  std::string str() const;

  std::string_view head;
  int index = -1;
  std::string_view tail;
};

// struct ethtool_pauseparam's three flags, as mlx5e_ethtool_get_pauseparam fills them: 802.3x
// link-level (global) pause in each direction, from the firmware's PFCC pprx/pptx.
struct PauseParam {
  bool autoneg = false;
  bool rx = false;
  bool tx = false;
};

struct EcnState {
  std::array<bool, 8> np_enabled{};  // notification point (receiver: sends CNPs) per priority
  std::array<bool, 8> rp_enabled{};  // reaction point (sender: slows down on CNPs) per priority
  std::map<std::string, uint32_t> params;  // "rp_time_reset" -> 300, "np_cnp_dscp" -> 48, ...
};

class Port {
 public:
  explicit Port(PortSpec spec);
  const PortSpec& spec() const { return spec_; }
  const std::string& netdev() const { return spec_.netdev; }

  // Firmware defaults: at construction and after a driver reload (node.hpp).
  void reset_to_firmware_defaults();

  // ---- DCB (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c) ----
  int ieee_getets(ieee_ets& out) const;
  int ieee_setets(const ieee_ets& in);  // -EINVAL: prio_tc >= 8, ETS bw sum != 100
  // delay = cable length (m); requests/indications: every priority's pause frames as the last
  // update_stats() read them.
  int ieee_getpfc(ieee_pfc& out) const;
  // A changed pfc_en toggles the link. delay is the cable length: 1..999 m is taken, anything else
  // (0, >= 1000) is silently ignored, as mlx5e_dcbnl_ieee_setpfc does (no -EINVAL). In manual
  // buffer mode the headroom is recomputed and may fail with -ENOMEM (the PFC mask stays changed).
  int ieee_setpfc(const ieee_pfc& in);
  int ieee_getmaxrate(ieee_maxrate& out) const;
  int ieee_setmaxrate(const ieee_maxrate& in);   // rounded to the hardware's granularity
  int dcbnl_getbuffer(dcbnl_buffer& out) const;  // -EOPNOTSUPP without caps.buffers
  // Headroom rule (en/port_buffer.c): -ENOMEM / -EINVAL. Enters manual mode when anything differs
  // from the current layout (an identical request is a no-op and stays in auto mode, as mlx5 does).
  int dcbnl_setbuffer(const dcbnl_buffer& in);
  int ieee_setapp(const dcb_app& app);  // DSCP only; first DSCP entry switches trust to DSCP
  int ieee_delapp(const dcb_app& app);  // -ENOENT unless priority matches; last one back to PCP
  int dcbnl_setapptrust(const uint8_t* selectors, int nselectors);  // -EOPNOTSUPP on mlx5
  std::vector<dcb_app> app_table() const;  // as the kernel's dcb_app_list holds it for this port
  uint8_t getdcbx() const;                 // DCB_CAP_DCBX_* bits
  uint8_t setdcbx(uint8_t mode);           // dcbnl status: 0 ok, 1 refused (LLD_MANAGED, ...)
  bool trust_dscp() const { return trust_dscp_; }
  bool buffers_manual() const { return buffers_manual_; }

  // A firmware DCBX agent in willing mode applying the switch's settings. Only takes effect while
  // the port is in firmware (non-host) DCBX mode; returns whether anything changed.
  bool apply_peer_dcbx(const ieee_ets* ets, const ieee_pfc* pfc);

  // ---- link (rtnetlink) ----
  uint32_t mtu() const { return mtu_; }
  uint32_t min_mtu() const { return 68; }
  uint32_t max_mtu() const { return spec_.max_mtu; }
  int set_mtu(uint32_t mtu);  // -EINVAL outside [min, max]
  bool admin_up() const { return admin_up_; }
  int set_admin_up(bool up);
  bool carrier() const { return admin_up_ && carrier_ && training_left_us_ == 0; }
  // The link is training after a driver toggle: carrier comes back when it is done.
  bool link_training() const { return training_left_us_ != 0; }
  uint32_t link_training_ms() const;
  // Time passes for the PHY: true when a link training ended (carrier is back).
  bool advance(std::chrono::microseconds elapsed);
  void set_peer_carrier(bool carrier);  // cable or switch side: link flap scenarios
  uint64_t link_toggles() const {
    return link_toggles_;
  }  // driver-initiated flaps (PFC mask change)
  uint32_t speed_mbps() const { return spec_.speed_mbps; }

  // ---- ethtool (en_stats.c, en_ethtool.c) ----
  DriverInfo drvinfo() const;
  // Changes with PFC: per-priority pause names only where it is enabled.
  std::vector<std::string> stat_names() const;
  size_t stat_count() const;                  // stat_names().size(), without composing them
  std::vector<uint64_t> stat_values() const;  // same order as stat_names()
  // ethtool -L combined N (mlx5e_set_channels): -EINVAL outside 1..kMaxChannels.
  int set_channels(uint32_t channels);
  uint32_t channels() const { return channels_; }
  // 802.3x global pause (en_ethtool.c mlx5e_ethtool_get/set_pauseparam over port.c
  // mlx5_query_port_pause / mlx5_set_port_pause, the PFCC register's pprx and pptx). Get:
  // -EOPNOTSUPP where the netdev's ethtool_ops have no get_pauseparam (a VF's representor, a
  // bond, VLAN or macvlan); autoneg always 0. Set: the same, then -EOPNOTSUPP on a function that
  // is no vport group manager (a VF, an SF), -EINVAL for autoneg; PFC is left alone. A PFC mask
  // change (ieee_setpfc) turns both directions off.
  int get_pauseparam(PauseParam& out) const;
  int set_pauseparam(const PauseParam& in);
  bool global_pause_rx() const { return pause_rx_; }
  bool global_pause_tx() const { return pause_tx_; }
  int get_pfc_prevention_tout(uint16_t& ms) const;  // -EOPNOTSUPP without caps.stall_prevention
  int set_pfc_prevention_tout(uint16_t ms);         // 0 off, 0xffff auto (reads back 100), 80-8000
                                                    // else -EINVAL

  PortCounters& counters() { return counters_; }
  const PortCounters& counters() const { return counters_; }

  // ---- ECN / DCQCN (infiniband/hw/mlx5/cong.c; OFED ecn/ sysfs) ----
  EcnState& ecn() { return ecn_; }
  const EcnState& ecn() const { return ecn_; }
  int set_ecn_enabled(bool reaction_point, int priority, bool enabled);  // -EINVAL for bad priority
  int set_cc_param(const std::string& name, uint32_t value);  // -EINVAL unknown/out of range

  // ---- RDMA device on this port ----
  RdmaDevice& rdma() { return rdma_; }
  const RdmaDevice& rdma() const { return rdma_; }
  // Starts `count` pods on the next free addresses of the spec's pod subnet (fewer when it runs
  // out); stops the `count` that started first. Each returns the addresses it took or freed.
  std::vector<std::string> start_pods(uint32_t count);
  std::vector<std::string> stop_pods(uint32_t count);

  // ---- extra read-only views (additive; for the server's sysfs/debugfs trees and tests) ----
  // sbcam cap_cell_size (1 << MLX5E_BUFFER_CELL_SHIFT); pbmc port_buffer_size (a plausible
  // ConnectX-7 value); the stall timeout the firmware starts with (not in the kernel source).
  static constexpr uint32_t kBufferCellBytes = 128;
  static constexpr uint32_t kPortBufferBytes = 2097152;
  static constexpr uint16_t kStallTimeoutDefaultMs = 8000;
  uint8_t pfc_enabled() const { return pfc_en_; }
  uint32_t cable_length_m() const { return cable_len_; }
  uint64_t carrier_changes() const { return carrier_changes_; }    // sysfs carrier_changes
  uint64_t link_down_events() const { return link_down_events_; }  // link_down_events_phy
  // The PCI function's PCIe link as trained now, and what its endpoint is built for; a driver
  // reload keeps it (the link trains at slot reset, not at probe).
  const PcieLink& pcie_link() const { return pcie_link_; }
  PcieLink pcie_capability() const { return roce_sim::pcie_capability(spec_.board); }
  void retrain_pcie(PcieLink link) { pcie_link_ = link; }
  // The module in the port's cage: an uplink's only (a VF, SF, representor, bond or VLAN has no
  // cage of its own). Null for those.
  Transceiver* transceiver() { return transceiver_ ? &*transceiver_ : nullptr; }
  bool empty_cage() const { return empty_cage_; }  // a cage with no module in it
  // The devlink health reporters mlx5 registers on the PCI function's devlink (health.c
  // mlx5_fw_reporters_create): "fw" for the firmware's syndromes, "fw_fatal" for a fatal error,
  // which the driver recovers from by reloading the device. An uplink's only here.
  struct HealthReporter {
    bool healthy = true;
    uint64_t errors = 0;
    uint64_t recoveries = 0;
    std::optional<std::chrono::microseconds> last_recovery;  // scenario time
  };
  std::map<std::string, HealthReporter>& health_reporters() { return health_reporters_; }
  bool dcbx_host_mode() const { return dcbx_host_; }
  const std::array<uint8_t, 64>& dscp2prio() const { return dscp2prio_; }  // firmware QPDPM map
  uint16_t stall_minor_watermark_ms() const { return stall_minor_ms_; }
  // Per-buffer Xon/Xoff (bytes) and lossy bits as the firmware holds them (pbmc).
  const std::array<uint32_t, 8>& buffer_xoff() const { return buf_xoff_; }
  // calculate_xoff's formula at a given speed (and the MTU and cable length now), in bytes.
  uint32_t xoff_at(uint64_t speed_mbps) const;
  uint32_t xoff_at(uint64_t speed_mbps, uint32_t cable_m) const;
  // What the firmware sizes its own lossless buffer for: MLX5E_DEFAULT_CABLE_LEN, whatever the
  // host's getpfc echoes (not in the kernel source: the firmware's own, assumed the default).
  static constexpr uint32_t kFirmwareCableMetres = 7;
  const std::array<uint32_t, 8>& buffer_xon() const { return buf_xon_; }
  const std::array<bool, 8>& buffer_lossy() const { return buf_lossy_; }
  // The firmware commands the host's requests made this port issue since the driver loaded, by
  // command (mlx5's debugfs commands/<NAME>/n and average), and the time they took that the
  // current request's answer has not yet waited for.
  struct CommandStats {
    uint64_t n = 0;
    uint64_t total_ns = 0;
  };
  const std::map<std::string, CommandStats>& firmware_commands() const { return commands_; }
  void issue(const char* command, uint32_t count) const;
  std::chrono::microseconds take_firmware_time();
  bool take_commands_changed() { return std::exchange(commands_changed_, false); }
  // The whole ethtool -S view in one go: (name, value) in mlx5's order, each value offset by
  // spec().counters_start (mod 2^64); counters() holds the model's own values.
  std::vector<std::pair<std::string, uint64_t>> stats() const;
  // mlx5e_stats_update, which only ETHTOOL_GSTATS runs for the port counters (the NIC profile's
  // periodic update_stats is mlx5e_stats_update_ndo_stats: software groups only): the driver's
  // cached per-priority counters (priv->stats.pport.per_prio_counters) are read from the
  // firmware here, and getpfc reports what was read then.
  void update_stats();
  // mlx5e_stats_eth_ctrl_get (en_stats.c): the IEEE 802.3 group's MAC control frame counts, read
  // from the firmware on every call (not the cache update_stats fills). The same hardware
  // counters as ethtool -S tx/rx_mac_control_phy; PFC frames are MAC control frames.
  struct MacControlCounts {
    uint64_t transmitted = 0;
    uint64_t received = 0;
    uint64_t unsupported_opcodes = 0;
  };
  MacControlCounts mac_control_counts() const;
  // The eth-phy group's SymbolErrorDuringCarrier: the 802.3 PPCNT group's
  // a_symbol_error_during_carrier, which ethtool -S names rx_symbol_err_phy
  // (en_stats.c mlx5e_stats_eth_phy_get).
  uint64_t symbol_errors_during_carrier() const;
  // counter_clear: the ethtool -S counter `name` restarts from 0 now, without a driver reload.
  // False when the port does not list it now (a per-priority pause name with PFC off).
  bool clear_stat(const std::string& name);

 private:
  // Every ethtool -S counter in mlx5's order, as add(StatName, model value): the one list that
  // names, values and the count are all taken from.
  template <class Sink>
  void list_stats(Sink&& add) const;
  uint64_t reported(const StatName& name, uint64_t value) const;  // offset and clears applied

  uint32_t next_pod_ = 0;  // pods ever started: the next one takes the subnet's next host
  PortSpec spec_;
  RdmaDevice rdma_;
  // Firmware commands: counted and timed even from the const getters (a query is a command too).
  mutable std::map<std::string, CommandStats> commands_;
  mutable std::chrono::microseconds firmware_time_{0};
  mutable bool commands_changed_ = false;
  // Firmware registers behind the ops, so reads reproduce what the driver would compute.
  void setets_core(const ieee_ets& in);  // mlx5e_dcbnl_ieee_setets_core
  int manual_buffer_config(uint32_t change, uint8_t pfc_en, const uint32_t* sizes,
                           const uint8_t* prio2buffer);  // mlx5e_port_manual_buffer_config
  // NVIDIA's tree (the OFED flavour): en_dcbnl.c mlx5e_dcbnl_ieee_setpfc and
  // en/port_buffer.c mlx5e_port_manual_buffer_config as Mellanox/nic-kernel has them.
  int nvidia_setpfc(const ieee_pfc& in);
  int checked_setmaxrate(const ieee_maxrate& in);
  // After a PFC change the driver sizes the host's buffers again (BufferRecompute).
  bool host_recomputes_buffers() const;
  int nvidia_buffer_config(uint32_t change, uint8_t pfc_en, const uint32_t* sizes,
                           const uint8_t* prio2buffer);
  enum BufferChange : uint32_t {  // MLX5E_PORT_BUFFER_*
    kChangeCableLen = 1u << 0,
    kChangePfc = 1u << 1,
    kChangePrio2Buffer = 1u << 2,
    kChangeSize = 1u << 3,
  };
  static bool set_lossy_bits(uint8_t pfc_en, const uint8_t* prio2buffer,
                             std::array<bool, 8>& lossy);
  void auto_buffer_layout();        // what the firmware does with buffers while not in manual mode
  uint32_t calculate_xoff() const;  // at the speed of the moment, as mlx5 does
  void toggle_link();               // mlx5_toggle_port_link
  void set_port_pfc(uint8_t mask);  // mlx5_set_port_pfc: global pause goes off with it
  // DCB
  ieee_ets ets_{};  // driver copy: tc_tsa as last set (priv->dcbx.tc_tsa)
  std::array<uint8_t, 8> fw_prio_tc_{}, fw_tc_group_{}, fw_tc_bw_{};
  ieee_pfc pfc_{};
  uint8_t pfc_en_ = 0;
  bool pause_rx_ = false, pause_tx_ = false;  // PFCC pprx, pptx
  uint32_t cable_len_ = 7;                    // MLX5E_DEFAULT_CABLE_LEN
  ieee_maxrate maxrate_{};
  // QETCR max_bw_value: a u8 in mainline, a u16 in NVIDIA's own tree (the OFED flavour).
  std::array<uint16_t, 8> max_bw_value_{};
  std::array<uint8_t, 8> max_bw_unit_{};
  dcbnl_buffer buffer_{};  // prio2buffer, buffer_size, total_size as the firmware reports them
  std::array<uint32_t, 8> buf_xoff_{}, buf_xon_{};
  std::array<bool, 8> buf_lossy_{};
  uint32_t cached_xoff_ = 0;  // priv->dcbx.xoff
  // Mainline: priv->dcbx.manual_buffer. NVIDIA's tree: the firmware's PFCC buf_ownership is
  // SW-owned (a PBMC write from the host succeeded).
  bool buffers_manual_ = false;
  uint8_t dcbx_cap_ = 0;
  bool dcbx_host_ = false;
  bool trust_dscp_ = false;
  std::array<uint8_t, 64> dscp2prio_{};
  int dscp_app_cnt_ = 0;           // priv->dcbx.dscp_app_cnt
  std::vector<dcb_app> app_list_;  // net/dcb/dcbnl.c dcb_app_list for this port, newest first
  // link
  uint32_t mtu_ = 1500;
  bool admin_up_ = true;
  bool carrier_ = true;
  uint64_t training_left_us_ = 0;  // link training after a toggle; carrier is down meanwhile
  uint64_t link_toggles_ = 0;
  uint64_t carrier_changes_ = 0;
  uint64_t link_down_events_ = 0;
  PcieLink pcie_link_ = roce_sim::pcie_capability(spec_.board);
  std::optional<Transceiver> transceiver_;
  bool empty_cage_ = false;
  std::map<std::string, HealthReporter> health_reporters_;
  // ethtool
  uint32_t channels_ = 1;
  // priv->stats_nch: channels whose statistics exist; it only grows until the driver reloads.
  uint32_t stats_channels_ = 1;
  uint16_t pfc_prevention_tout_ = 0;
  uint16_t stall_minor_ms_ = 0;
  PortCounters counters_{};
  std::map<std::string, uint64_t> stat_base_;  // cleared counters: what they read at the clear
  struct CachedPause {
    uint64_t tx = 0;
    uint64_t rx = 0;
  };
  std::array<CachedPause, 8> cached_pause_{};  // per priority, at the last update_stats()
  EcnState ecn_{};
};

}  // namespace roce_sim
