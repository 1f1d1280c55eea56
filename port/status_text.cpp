// SPDX-License-Identifier: Apache-2.0
// The human-readable `rocectl status`: one block per port, a header line and one line per topic,
// what a network engineer checks first. The JSON carries everything; this stays compact.
#include <algorithm>
#include <sstream>

#include "port/status.hpp"
#include "rdma/rdma_cm.hpp"
#include "util/name_list.hpp"

namespace roced {

namespace {

// {0,1,2,3,5,7} -> "0-3,5,7"
std::string ranges(const std::vector<int>& values) {
  std::string out;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(values[i]);
    if (j > i) out += '-' + std::to_string(values[j]);
    i = j + 1;
  }
  return out;
}

std::string mask_text(unsigned mask) {
  std::vector<int> prios;
  for (int p = 0; p < 8; ++p) {
    if (mask & (1u << p)) prios.push_back(p);
  }
  return prios.empty() ? "none" : ranges(prios);
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string line(const std::string& label, const std::string& text) {
  return "  " + pad(label, 9) + text + "\n";
}

// Two columns: the first padded so the second lines up across topics.
std::string line(const std::string& label, const std::string& first, const std::string& second) {
  return line(label, second.empty() ? first : pad(first, 20) + " " + second);
}

std::string ets_text(const dcb::Ets& ets) {
  auto tc_text = [&](size_t tc) {
    std::string text = dcb::tsa_name(ets.tc_tsa[tc]);
    if (ets.tc_tsa[tc] == dcb::Tsa::Ets) text += " " + std::to_string(ets.tc_tx_bw[tc]) + "%";
    return text;
  };
  std::string out;
  for (size_t tc = 0; tc < ets.tc_tsa.size();) {
    size_t last = tc;
    while (last + 1 < ets.tc_tsa.size() && tc_text(last + 1) == tc_text(tc)) ++last;
    if (!out.empty()) out += ", ";
    out += "tc" + std::to_string(tc);
    if (last > tc) out += ".." + std::to_string(last);
    out += " " + tc_text(tc);
    tc = last + 1;
  }
  out += " | prio->tc";
  for (const auto tc : ets.prio_tc) out += " " + std::to_string(tc);
  return out;
}

std::string dscp_text(const std::vector<dcb::AppEntry>& apps, dcb::Trust trust) {
  if (apps.empty()) {
    return trust == dcb::Trust::Pcp ? "(pcp trust: no DSCP map)" : "(no DSCP entries)";
  }
  std::string out;
  for (int prio = 0; prio < 8; ++prio) {
    std::vector<int> dscps;
    for (const auto& app : apps) {
      if (app.priority == prio) dscps.push_back(app.protocol);
    }
    if (dscps.empty()) continue;
    std::sort(dscps.begin(), dscps.end());
    dscps.erase(std::unique(dscps.begin(), dscps.end()), dscps.end());
    if (!out.empty()) out += "  ";
    out += "p" + std::to_string(prio) + ":" + ranges(dscps);
  }
  // mlx5 maps a DSCP without an entry by the firmware's table: d>>3 from driver load, p0 for one
  // deleted since (mlx5e_dcbnl_ieee_delapp); dcbnl shows neither.
  if (apps.size() < 64) out += "  (others: firmware map, d>>3 or p0 if deleted since load)";
  return out;
}

// "tc6 400 Mbit/s, tc7 40 Gbit/s"; empty when no TC is capped.
std::string maxrate_text(const dcb::Maxrate& maxrate) {
  std::string out;
  for (size_t tc = 0; tc < maxrate.tc_kbps.size(); ++tc) {
    const uint64_t kbps = maxrate.tc_kbps[tc];
    if (kbps == 0) continue;
    const std::string rate = kbps % 1000000 == 0 ? std::to_string(kbps / 1000000) + " Gbit/s"
                                                 : std::to_string(kbps / 1000) + " Mbit/s";
    out += (out.empty() ? "tc" : ", tc") + std::to_string(tc) + " " + rate;
  }
  return out;
}

std::string buffer_text(const dcb::Buffer& buffer) {
  std::string out = "prio->buf";
  for (const auto b : buffer.prio2buffer) out += " " + std::to_string(b);
  std::string sizes;
  for (size_t i = 0; i < buffer.buffer_size.size(); ++i) {
    if (buffer.buffer_size[i] == 0) continue;
    if (!sizes.empty()) sizes += ", ";
    sizes += "buf" + std::to_string(i) + " " + std::to_string(buffer.buffer_size[i]) + " B";
  }
  if (!sizes.empty()) out += " | " + sizes;
  if (buffer.total_size != 0) out += " | total " + std::to_string(buffer.total_size) + " B";
  return out;
}

std::string stall_text(const StallPrevention& stall) {
  if (stall.mode() == "off") return "off";
  if (stall.mode() == "auto") return "auto (" + std::to_string(*stall.timeout_ms()) + " ms)";
  return std::to_string(*stall.timeout_ms()) + " ms";
}

// 802.3x pause, the link-level kind PFC replaces.
std::string pause_text(const PauseParams& pause) {
  std::string text = pause.rx && pause.tx ? "global on"
                     : pause.rx           ? "global rx only"
                     : pause.tx           ? "global tx only"
                                          : "global off";
  return pause.autoneg ? text + ", autonegotiated" : text;
}

std::string ecn_text(const rdma::EcnState& ecn) {
  if (ecn.flavour == rdma::EcnFlavour::None) {
    return "no ECN/DCQCN knobs found (neither debugfs mlx5 cc_params nor sysfs ecn/)";
  }
  std::vector<std::string> parts;
  if (ecn.np_enabled) parts.push_back("np prios " + mask_text(*ecn.np_enabled));
  if (ecn.rp_enabled) parts.push_back("rp prios " + mask_text(*ecn.rp_enabled));
  std::string cnp;
  if (auto dscp = ecn.cnp_dscp()) cnp += "cnp dscp " + std::to_string(*dscp);
  if (auto prio = ecn.cnp_priority()) {
    cnp += (cnp.empty() ? "cnp prio " : " prio ") + std::to_string(*prio);
  }
  if (!cnp.empty()) parts.push_back(cnp);
  parts.push_back(std::to_string(ecn.np_params.size() + ecn.rp_params.size()) + " knobs (" +
                  rdma::ecn_flavour_name(ecn.flavour) + ")");
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : ", ") + part;
  return out;
}

// Without the HOST bit the firmware's DCBX agent is in charge (mlx5e_dcbnl_getdcbx reports the
// versions it speaks), and a willing switch may override ETS and PFC.
std::string dcbx_text(uint8_t mode) {
  if (mode == 0 || (mode & dcb::kDcbxHost) != 0) return dcb::dcbx_mode_name(mode);
  return "firmware (" + dcb::dcbx_mode_name(mode) + ")";
}

struct Header {
  std::vector<std::string> columns;
};

Header header_of(const PortStatus& s) {
  std::string driver = s.port.driver;
  std::string firmware;
  if (s.driver_info.ok()) {
    if (!s.driver_info.value->driver.empty()) driver = s.driver_info.value->driver;
    firmware = s.driver_info.value->firmware;
  }
  if (driver.empty()) driver = "-";
  // bonding reports its ABI version as the firmware (bond_ethtool_get_drvinfo): not a firmware.
  if (!firmware.empty() && firmware != "N/A" && driver != "bonding") driver += " fw " + firmware;
  std::string state = "?";
  std::string mtu = "mtu ?";
  if (s.link.ok()) {
    state = operstate_name(s.link.value->operstate);
    if (s.speed_mbps) state += " " + speed_text(*s.speed_mbps);
    mtu = "mtu " + std::to_string(s.link.value->mtu);
    if (s.link.value->max_mtu != 0) mtu += "/" + std::to_string(s.link.value->max_mtu);
  }
  std::string rdma = s.port.rdma_device.empty() ? "-" : s.port.rdma_device;
  // Only a driver the netdev's does not already name: "rxe0 (rxe)" under a veth.
  if (!s.port.rdma_driver.empty() && s.port.rdma_driver != s.port.driver) {
    rdma += " (" + s.port.rdma_driver + ")";
  }
  return Header{{s.port.netdev, rdma, s.port.pci.empty() ? "-" : s.port.pci, driver, state, mtu}};
}

std::string header_text(const Header& header, const std::vector<size_t>& widths) {
  std::string out;
  for (size_t i = 0; i < header.columns.size(); ++i) {
    const bool last = i + 1 == header.columns.size();
    out += last ? header.columns[i] : pad(header.columns[i], widths[i]) + "  ";
  }
  return out + "\n";
}

// "802.3ad, RoCE LAG mlx5_bond_0 (active, hash)", or "active-backup, not offloaded".
std::string bond_kind(const BondStatus& bond) {
  std::string out = bond.mode.empty() ? std::string("?") : bond.mode;
  if (bond.lag_device.empty()) return out + ", no RoCE LAG";
  out += ", RoCE LAG " + bond.lag_device;
  std::string lag = bond.lag_state;
  if (!bond.lag_port_select.empty()) lag += (lag.empty() ? "" : ", ") + bond.lag_port_select;
  return lag.empty() ? out : out + " (" + lag + ")";
}

std::string bond_text(const PortStatus& s) {
  const BondStatus& bond = *s.bond;
  if (s.port.role != PortRole::Bond) {
    for (const auto& slave : bond.slaves) {
      if (slave.netdev != s.port.netdev) continue;
      return line("bond", "slave of " + bond.name + " (" + bond_kind(bond) +
                              "): " + (slave.state.empty() ? "?" : slave.state) + ", mii " +
                              (slave.mii_status.empty() ? "?" : slave.mii_status));
    }
    return line("bond", "slave of " + bond.name + " (" + bond_kind(bond) + ")");
  }
  std::string slaves;
  for (const auto& slave : bond.slaves) {
    slaves += (slaves.empty() ? "" : ", ") + slave.netdev + " " +
              (slave.state.empty() ? "?" : slave.state) + "/" +
              (slave.mii_status.empty() ? "?" : slave.mii_status);
  }
  return line("bond", bond_kind(bond) + ": " + (slaves.empty() ? "no slaves" : slaves));
}

// "debian-6.12 (6.12.57): the kernel's own driver; /proc/version: Debian 6.12.57", or why not.
std::string driver_tree_text(const driver::Detected& d) {
  std::string text(driver::flavour_row(d.flavour).name);
  if (!d.version.empty()) text += " (" + d.version + ")";
  if (!d.evidence.empty()) text += ": " + d.evidence.back();
  return text;
}

std::string body_text(const PortStatus& s) {
  std::string out;
  if (!s.link.ok()) out += line("link", s.link.error);
  if (!s.driver_info.ok()) out += line("driver", s.driver_info.error);
  if (s.driver.ok()) out += line("driver tree", driver_tree_text(*s.driver.value));
  if (s.bond) out += bond_text(s);

  // One IEEE_GET gives trust, DSCP, PFC, ETS and buffer: when it failed, say so once.
  const bool dcb_failed = !s.pfc.ok() && !s.ets.ok() && !s.trust.ok() &&
                          s.pfc.error == s.ets.error && s.pfc.error == s.trust.error;
  if (dcb_failed) {
    out += line("dcb", s.pfc.error);
  } else {
    out += line("dcbx", s.dcbx.ok() ? dcbx_text(*s.dcbx.value) : s.dcbx.error,
                s.trust.ok() ? "trust " + std::string(dcb::kTrustNames.name(*s.trust.value))
                             : "trust " + s.trust.error);
    if (s.pfc.ok()) {
      // Mainline mlx5 stores the cable length and echoes it, but sends it to the NIC only for
      // buffers the host set (en_dcbnl.c setpfc: manual_buffer); the firmware sizes its own.
      out +=
          line("pfc", mask_text(s.pfc.value->enabled_mask),
               s.pfc.value->delay == 0 ? "cable length not supported"
                                       : "cable " + std::to_string(s.pfc.value->delay) +
                                             " m (no effect unless the host sizes the headroom)");
    } else {
      out += line("pfc", s.pfc.error);
    }
    out += line("ets", s.ets.ok() ? ets_text(*s.ets.value) : s.ets.error);
    if (s.dscp_apps.ok() && s.trust.ok()) {
      out += line("dscp", dscp_text(*s.dscp_apps.value, *s.trust.value));
    } else {
      out += line("dscp", s.dscp_apps.error);
    }
    if (s.maxrate.ok() && !maxrate_text(*s.maxrate.value).empty()) {
      out += line("maxrate", maxrate_text(*s.maxrate.value));
    }
    if (s.buffer.ok()) out += line("buffer", buffer_text(*s.buffer.value));
  }
  // A bond's: said once on the dcb line.
  if (!(dcb_failed && s.stall_prevention.error == s.pfc.error)) {
    out += line("stall", s.stall_prevention.ok() ? stall_text(*s.stall_prevention.value)
                                                 : s.stall_prevention.error);
    out += line("pause",
                s.global_pause.ok() ? pause_text(*s.global_pause.value) : s.global_pause.error);
  }

  if (s.port.rdma_device.empty()) {
    out += line("rdma", s.gids.ok() ? "absent: " + s.port.no_rdma_reason() : s.gids.error);
  } else {
    std::string gid;
    if (s.roce_v2_ipv4.ok()) {
      const auto& entry = *s.roce_v2_ipv4.value;
      gid = "v2/IPv4 index " + std::to_string(entry.index) + " (" + rdma::compact_gid(entry.gid) +
            ")";
    } else {
      gid = s.roce_v2_ipv4.error;
    }
    std::string cm;
    if (!s.rdma_cm.ok()) {
      cm = "rdma_cm " + s.rdma_cm.error;
    } else if (!s.rdma_cm.value->configured) {
      cm = "rdma_cm not configured";
    } else {
      cm = "rdma_cm " + s.rdma_cm.value->roce_mode + " tos " +
           (s.rdma_cm.value->tos ? std::to_string(*s.rdma_cm.value->tos) : "?");
    }
    out += line("gids", pad(gid, 38) + " " + cm);
  }
  out += line("ecn", s.ecn.ok() ? ecn_text(*s.ecn.value) : s.ecn.error);
  return out;
}

std::vector<size_t> widths_of(const std::vector<Header>& headers) {
  std::vector<size_t> widths;
  for (const auto& header : headers) {
    widths.resize(std::max(widths.size(), header.columns.size()), 0);
    for (size_t i = 0; i < header.columns.size(); ++i) {
      widths[i] = std::max(widths[i], header.columns[i].size());
    }
  }
  return widths;
}

}  // namespace

std::string format_port_text(const PortStatus& status) {
  const Header header = header_of(status);
  return header_text(header, widths_of({header})) + body_text(status);
}

// "  uppers   lan2.100 (VLAN, mtu 1500), mv2 (mtu 9000)" and, when an upper's MTU is smaller
// than its port's, what that costs RoCE over its addresses.
std::string uppers_text(const std::vector<DiscoveredPort>& functions, const PortStatus& port) {
  std::string list, warnings;
  const uint32_t port_mtu = port.link.ok() ? port.link.value->mtu : 0;
  for (const auto& function : functions) {
    if (function.parent != port.port.netdev || function.role != PortRole::Upper) continue;
    const bool vlan = function.role_detail.rfind("VLAN", 0) == 0;
    list += (list.empty() ? "" : ", ") + function.netdev + " (" + (vlan ? "VLAN, " : "") + "mtu " +
            std::to_string(function.upper_mtu) + ")";
    const int upper_path = rdma::roce_path_mtu(function.upper_mtu);
    if (port_mtu != 0 && upper_path < rdma::roce_path_mtu(port_mtu)) {
      warnings += "  warning  RoCE over " + function.netdev + "'s addresses gets path MTU " +
                  std::to_string(upper_path) + ", not " +
                  std::to_string(rdma::roce_path_mtu(port_mtu)) +
                  ": rdma_cm takes it from that netdev's MTU (" +
                  std::to_string(function.upper_mtu) + ")\n";
    }
  }
  if (list.empty()) return {};
  return "  uppers   " + list + "; not managed\n" + warnings;
}

// "  vfs      16 not managed (rail0v0-rail0v15; --port NAME reads one)" under the port they belong
// to, an "sfs" line for its sub-functions and a "reps" line for its switchdev representors.
std::string functions_text(const std::vector<DiscoveredPort>& functions, const std::string& port) {
  std::string out;
  for (const auto& [role, label] :
       {std::pair{PortRole::Vf, "  vfs      "}, std::pair{PortRole::SubFunction, "  sfs      "},
        std::pair{PortRole::Representor, "  reps     "}}) {
    std::vector<std::string> names;
    for (const auto& function : functions) {
      if (function.parent == port && function.role == role) names.push_back(function.netdev);
    }
    if (names.empty()) continue;
    sort_numerically(names);
    out += label + std::to_string(names.size()) + " not managed (" + name_list(names) +
           "; --port NAME reads one)\n";
  }
  return out;
}

std::string format_status_text(const StatusReport& report) {
  std::vector<Header> headers;
  for (const auto& port : report.ports) headers.push_back(header_of(port));
  const auto widths = widths_of(headers);
  std::string out;
  for (size_t i = 0; i < report.ports.size(); ++i) {
    if (i > 0) out += "\n";
    out += header_text(headers[i], widths) + body_text(report.ports[i]) +
           functions_text(report.functions, report.ports[i].port.netdev) +
           uppers_text(report.functions, report.ports[i]);
  }
  std::vector<std::string> elsewhere;  // representors, sub-functions, VFs of unlisted ports
  for (const auto& function : report.functions) {
    const bool listed =
        std::any_of(report.ports.begin(), report.ports.end(),
                    [&](const PortStatus& port) { return port.port.netdev == function.parent; });
    if (!listed) elsewhere.push_back(function.netdev + " (" + function.role_detail + ")");
  }
  if (!elsewhere.empty()) {
    out += "\nnot managed (functions of a port; --port NAME reads one):";
    for (const auto& name : elsewhere) out += " " + name;
    out += "\n";
  }
  if (!report.other_rdma.empty()) {
    out += "\nother RDMA ports (not mlx5; managed only when ports.drivers names a driver):";
    for (const auto& port : report.other_rdma) {
      out += " " + port.netdev + " (" + (port.driver.empty() ? "?" : port.driver) + ", " +
             port.rdma_device;
      if (!port.rdma_driver.empty()) out += " " + port.rdma_driver;
      out += ")";
    }
    out += "\n";
  }
  return out;
}

}  // namespace roced
