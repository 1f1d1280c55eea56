#pragma once
// One simulated mlx5 port: the netdev, its DCB state, ethtool view and the RDMA device on it.
// Every rule cites the kernel function it follows (MLX5-FACTS.md). Methods that stand for a
// driver op return 0 or a negative errno, exactly as the op does, so the server can put the value
// on the wire. Not thread-safe: roce-sim drives the model from one event loop.

#include <linux/dcbnl.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/model/port_spec.hpp"
#include "sim/model/rdma_device.hpp"

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
  uint64_t outbound_pci_stalled_rd = 0, outbound_pci_stalled_wr = 0;
  uint64_t tx_pause_storm_warning_events = 0, tx_pause_storm_error_events = 0;
  uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0, tx_bytes = 0;  // port totals (rx_packets_phy...)
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
  int ieee_setets(const ieee_ets& in);       // -EINVAL: prio_tc >= 8, ETS bw sum != 100
  int ieee_getpfc(ieee_pfc& out) const;      // delay = cable length (m); requests/indications from counters
  int ieee_setpfc(const ieee_pfc& in);       // a changed pfc_en toggles the link; delay 1-999 else -EINVAL
  int ieee_getmaxrate(ieee_maxrate& out) const;
  int ieee_setmaxrate(const ieee_maxrate& in);  // rounded to the hardware's granularity
  int dcbnl_getbuffer(dcbnl_buffer& out) const;    // -EOPNOTSUPP without caps.buffers
  int dcbnl_setbuffer(const dcbnl_buffer& in);     // headroom rule: -ENOMEM / -EINVAL; enters manual mode
  int ieee_setapp(const dcb_app& app);       // DSCP only; first DSCP entry switches trust to DSCP
  int ieee_delapp(const dcb_app& app);       // -ENOENT unless priority matches; last one back to PCP
  int dcbnl_setapptrust(const uint8_t* selectors, int nselectors);  // -EOPNOTSUPP on mlx5
  std::vector<dcb_app> app_table() const;    // as the kernel's dcb_app_list holds it for this port
  uint8_t getdcbx() const;                   // DCB_CAP_DCBX_* bits
  uint8_t setdcbx(uint8_t mode);             // dcbnl status: 0 ok, 1 refused (LLD_MANAGED, ...)
  bool trust_dscp() const { return trust_dscp_; }
  bool buffers_manual() const { return buffers_manual_; }

  // A firmware DCBX agent in willing mode applying the switch's settings. Only takes effect while
  // the port is in firmware (non-host) DCBX mode; returns whether anything changed.
  bool apply_peer_dcbx(const ieee_ets* ets, const ieee_pfc* pfc);

  // ---- link (rtnetlink) ----
  uint32_t mtu() const { return mtu_; }
  uint32_t min_mtu() const { return 68; }
  uint32_t max_mtu() const { return spec_.max_mtu; }
  int set_mtu(uint32_t mtu);                 // -EINVAL outside [min, max]
  bool admin_up() const { return admin_up_; }
  int set_admin_up(bool up);
  bool carrier() const { return admin_up_ && carrier_; }
  void set_peer_carrier(bool carrier);       // cable or switch side: link flap scenarios
  uint64_t link_toggles() const { return link_toggles_; }  // driver-initiated flaps (PFC mask change)
  uint32_t speed_mbps() const { return spec_.speed_mbps; }

  // ---- ethtool (en_stats.c, en_ethtool.c) ----
  DriverInfo drvinfo() const;
  std::vector<std::string> stat_names() const;   // changes with PFC: per-prio pause only where enabled
  std::vector<uint64_t> stat_values() const;     // same order as stat_names()
  int get_pfc_prevention_tout(uint16_t& ms) const;  // -EOPNOTSUPP without caps.stall_prevention
  int set_pfc_prevention_tout(uint16_t ms);         // 0 off, 0xffff auto, 80-8000 else -EINVAL

  PortCounters& counters() { return counters_; }
  const PortCounters& counters() const { return counters_; }

  // ---- ECN / DCQCN (infiniband/hw/mlx5/cong.c; OFED ecn/ sysfs) ----
  EcnState& ecn() { return ecn_; }
  const EcnState& ecn() const { return ecn_; }
  int set_ecn_enabled(bool reaction_point, int priority, bool enabled);  // -EINVAL for bad priority
  int set_cc_param(const std::string& name, uint32_t value);              // -EINVAL unknown/out of range

  // ---- RDMA device on this port ----
  RdmaDevice& rdma() { return rdma_; }
  const RdmaDevice& rdma() const { return rdma_; }

 private:
  PortSpec spec_;
  RdmaDevice rdma_;
  // DCB
  ieee_ets ets_{};
  ieee_pfc pfc_{};
  ieee_maxrate maxrate_{};
  dcbnl_buffer buffer_{};
  bool buffers_manual_ = false;
  uint8_t dcbx_cap_ = 0;
  bool dcbx_host_ = false;
  bool trust_dscp_ = false;
  std::array<int, 64> dscp_prio_{};  // -1: no APP entry for this DSCP
  // link
  uint32_t mtu_ = 1500;
  bool admin_up_ = true;
  bool carrier_ = true;
  uint64_t link_toggles_ = 0;
  // ethtool
  uint16_t pfc_prevention_tout_ = 0;
  PortCounters counters_{};
  EcnState ecn_{};
};

}  // namespace roce_sim
