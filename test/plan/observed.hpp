// SPDX-License-Identifier: Apache-2.0
#pragma once
// Hand-made observed states for the planner's unit tests: a port that matches the default
// profile exactly (inbox driver), which each test then bends in one place.
#include <cerrno>

#include "daemon/config/config.hpp"
#include "port/status.hpp"

namespace roced::test {

inline DiscoveredPort lan2() {
  return DiscoveredPort{"lan2", "mlx5_core", "0000:17:00.0", "mlx5_0", 1, "mlx5_core", true};
}

inline std::vector<rdma::GidEntry> ipv4_gid_table(int roce_v2_index) {
  return {
      {0, "fe80:0000:0000:0000:ba3f:d2ff:fe17:0000", "IB/RoCE v1", "lan2"},
      {1, "fe80:0000:0000:0000:ba3f:d2ff:fe17:0000", "RoCE v2", "lan2"},
      {roce_v2_index - 1, "0000:0000:0000:0000:0000:ffff:c0a8:020a", "IB/RoCE v1", "lan2"},
      {roce_v2_index, "0000:0000:0000:0000:0000:ffff:c0a8:020a", "RoCE v2", "lan2"},
  };
}

// What a port configured with config::default_profile() reads back as.
inline PortStatus in_sync_status() {
  PortStatus status;
  status.port = lan2();
  LinkInfo link;
  link.ifindex = 2;
  link.name = "lan2";
  link.mtu = 9000;
  link.min_mtu = 68;
  link.max_mtu = 9978;
  link.admin_up = true;
  link.carrier = true;
  status.link = Field<LinkInfo>::of(link);
  // Debian bookworm's kernel driver, as the default node runs it.
  driver::Detected tree;
  tree.flavour = driver::Flavour::Debian61;
  tree.traits = driver::flavour_row(tree.flavour).traits;
  tree.version = "6.1.192";
  status.driver = Field<driver::Detected>::of(tree);
  status.dcbx = Field<uint8_t>::of(dcb::kDcbxHost | dcb::kDcbxVerIeee);
  status.trust = Field<dcb::Trust>::of(dcb::Trust::Dscp);
  std::vector<dcb::AppEntry> apps;
  for (uint16_t dscp = 0; dscp < 64; ++dscp) {
    apps.push_back({5, static_cast<uint8_t>(dscp >> 3), dscp});
  }
  status.dscp_apps = Field<std::vector<dcb::AppEntry>>::of(apps);
  dcb::Pfc pfc;
  pfc.cap = 8;
  pfc.enabled_mask = 1u << 3;
  pfc.delay = 7;
  status.pfc = Field<dcb::Pfc>::of(pfc);
  dcb::Ets ets;
  ets.ets_cap = 8;
  ets.prio_tc = {0, 1, 2, 3, 4, 5, 6, 7};
  ets.tc_tsa.fill(dcb::Tsa::Ets);
  ets.tc_tsa[6] = dcb::Tsa::Strict;
  ets.tc_tx_bw = {10, 10, 10, 50, 10, 5, 0, 5};
  status.ets = Field<dcb::Ets>::of(ets);
  dcb::Buffer buffer;
  buffer.buffer_size = {262144, 0, 0, 0, 0, 0, 0, 0};
  buffer.total_size = 262144;
  status.buffer = Field<dcb::Buffer>::of(buffer);
  status.stall_prevention = Field<StallPrevention>::of(StallPrevention{100});  // auto, read back
  status.global_pause = Field<PauseParams>::of(PauseParams{});  // off since PFC was set
  status.gids = Field<GidStatus>::of(GidStatus{"sysfs", ipv4_gid_table(3)});
  status.roce_v2_ipv4 = Field<rdma::GidEntry>::of(ipv4_gid_table(3)[3]);
  rdma::RdmaCmDefaults cm;
  cm.configured = true;
  cm.roce_mode = "RoCE v2";
  cm.tos = 106;
  status.rdma_cm = Field<rdma::RdmaCmDefaults>::of(cm);
  rdma::EcnState ecn;
  ecn.flavour = rdma::EcnFlavour::Inbox;
  ecn.source = "/sys/kernel/debug/mlx5/0000:17:00.0/cc_params";
  ecn.np_params = {{"np_cnp_dscp", 48},
                   {"np_cnp_prio", 6},
                   {"np_cnp_prio_mode", 0},
                   {"np_min_time_between_cnps", 4}};
  ecn.rp_params = {{"rp_ai_rate", 5}, {"rp_time_reset", 300}, {"rp_threshold", 1}};
  status.ecn = Field<rdma::EcnState>::of(ecn);
  status.driver_info = Field<DriverInfo>::not_read();
  status.hw_counters = Field<std::map<std::string, uint64_t>>::not_read();
  return status;
}

// A field that failed the way read_port_status reports EOPNOTSUPP.
template <class T>
Field<T> unsupported(const std::string& what) {
  return Field<T>::unsupported(what + " is not supported by this device (EOPNOTSUPP)", EOPNOTSUPP);
}

// The DCB fields of a device without DCB (a veth): every one fails the same way.
inline void without_dcb(PortStatus& status) {
  status.dcbx = unsupported<uint8_t>("DCB");
  status.trust = unsupported<dcb::Trust>("DCB");
  status.dscp_apps = unsupported<std::vector<dcb::AppEntry>>("DCB");
  status.pfc = unsupported<dcb::Pfc>("DCB");
  status.ets = unsupported<dcb::Ets>("DCB");
  status.buffer = unsupported<dcb::Buffer>("DCB");
}

// The RDMA fields of a netdev without an RDMA device, as read_port_status fills them.
inline void without_rdma(PortStatus& status) {
  const std::string why = "no RDMA device for " + status.port.netdev;
  status.port.rdma_device.clear();
  status.port.rdma_port = 0;
  status.gids = Field<GidStatus>::absent(why, ENODEV);
  status.roce_v2_ipv4 = Field<rdma::GidEntry>::absent(why, ENODEV);
  status.rdma_cm = Field<rdma::RdmaCmDefaults>::absent(why, ENODEV);
  status.ecn = Field<rdma::EcnState>::of(rdma::EcnState{});
}

}  // namespace roced::test
