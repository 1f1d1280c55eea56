// SPDX-License-Identifier: Apache-2.0
// PortStatus / StatusReport -> JSON: a field is its value, or {"error", "errno", "unsupported"};
// the report is the status document (port/status_document.hpp).
#include "port/status.hpp"
#include "port/status_document.hpp"

namespace roced {

namespace {

using json = nlohmann::ordered_json;

template <class T, class Fn>
json field_json(const Field<T>& field, Fn&& to_value) {
  if (field.ok()) return to_value(*field.value);
  json error = {{"error", field.error}, {"unsupported", field.error_code == EOPNOTSUPP}};
  error["errno"] = field.error_code == 0 ? json(nullptr) : json(errno_name(field.error_code));
  return error;
}

json priorities_of_mask(unsigned mask) {
  json list = json::array();
  for (int p = 0; p < 8; ++p) {
    if (mask & (1u << p)) list.push_back(p);
  }
  return list;
}

json gid_json(const rdma::GidEntry& entry) {
  json out = {{"index", entry.index},
              {"gid", entry.gid},
              {"address", rdma::compact_gid(entry.gid)},
              {"type", entry.type},
              {"ndev", entry.ndev}};
  const auto ipv4 = rdma::ipv4_of_mapped_gid(entry.gid);
  out["ipv4"] = ipv4 ? json(*ipv4) : json(nullptr);
  return out;
}

json port_identity(const DiscoveredPort& port) {
  json out = {{"netdev", port.netdev},
              {"driver", port.driver},
              {"pci", port.pci},
              {"mlx5", port.is_mlx5()}};
  out["rdma_device"] = port.rdma_device.empty() ? json(nullptr) : json(port.rdma_device);
  out["rdma_port"] = port.rdma_device.empty() ? json(nullptr) : json(port.rdma_port);
  out["rdma_driver"] = port.rdma_driver.empty() ? json(nullptr) : json(port.rdma_driver);
  out["role"] = kPortRoleNames.name(port.role);
  return out;
}

json bond_json(const std::optional<BondStatus>& bond) {
  if (!bond) return nullptr;
  const auto text_or_null = [](const std::string& text) {
    return text.empty() ? json(nullptr) : json(text);
  };
  json slaves = json::array();
  for (const auto& slave : bond->slaves) {
    slaves.push_back({{"netdev", slave.netdev},
                      {"state", text_or_null(slave.state)},
                      {"mii_status", text_or_null(slave.mii_status)}});
  }
  return {{"name", bond->name},
          {"mode", text_or_null(bond->mode)},
          {"slaves", slaves},
          {"active_slave", text_or_null(bond->active_slave)},
          {"lag_device", text_or_null(bond->lag_device)},
          {"lag_state", text_or_null(bond->lag_state)},
          {"lag_port_select", text_or_null(bond->lag_port_select)}};
}

}  // namespace

nlohmann::ordered_json PortStatus::to_json() const {
  json out = port_identity(port);
  out["bond"] = bond_json(bond);
  out["driver_info"] = field_json(driver_info, [](const DriverInfo& info) {
    return json{{"driver", info.driver},
                {"version", info.version},
                {"firmware", info.firmware},
                {"bus_info", info.bus_info}};
  });
  out["driver_tree"] = field_json(driver, [](const driver::Detected& d) {
    json traits = json::object();
    traits["buffer_recompute"] = driver::kBufferRecomputeNames.name(d.traits.buffer_recompute);
    traits["cable_length"] = driver::kCableLengthNames.name(d.traits.cable_length);
    traits["maxrate"] = driver::kMaxrateNames.name(d.traits.maxrate);
    traits["ecn_knobs"] = driver::kEcnKnobsNames.name(d.traits.ecn_knobs);
    traits["cnp_priority_mode"] = driver::kCnpPriorityModeNames.name(d.traits.cnp_priority_mode);
    json out_driver = json::object();
    out_driver["flavour"] = driver::flavour_row(d.flavour).name;
    out_driver["version"] = d.version.empty() ? json(nullptr) : json(d.version);
    out_driver["traits"] = std::move(traits);
    out_driver["evidence"] = d.evidence;
    return out_driver;
  });
  out["link"] = field_json(link, [&](const LinkInfo& l) {
    return json{
        {"ifindex", l.ifindex},   {"state", operstate_name(l.operstate)},
        {"admin_up", l.admin_up}, {"carrier", l.carrier},
        {"mtu", l.mtu},           {"min_mtu", l.min_mtu},
        {"max_mtu", l.max_mtu},   {"mac", l.mac},
        {"kind", l.kind},         {"speed_mbps", speed_mbps ? json(*speed_mbps) : json(nullptr)}};
  });
  out["dcbx"] = field_json(dcbx, [](uint8_t mode) {
    return json{{"mode", mode}, {"name", dcb::dcbx_mode_name(mode)}, {"host", (mode & 1) != 0}};
  });
  out["trust"] = field_json(trust, [](dcb::Trust t) { return json(dcb::kTrustNames.name(t)); });
  out["dscp_map"] = field_json(dscp_apps, [](const std::vector<dcb::AppEntry>& apps) {
    json map = json::object();  // DSCP -> priority for the entries present
    for (const auto& app : apps) map[std::to_string(app.protocol)] = app.priority;
    return map;
  });
  out["pfc"] = field_json(pfc, [](const dcb::Pfc& p) {
    return json{{"enabled_priorities", priorities_of_mask(p.enabled_mask)},
                {"enabled_mask", p.enabled_mask},
                {"cap", p.cap},
                {"mbc", p.mbc},
                {"cable_length_m", p.delay},
                {"requests", p.requests},
                {"indications", p.indications}};
  });
  out["ets"] = field_json(ets, [](const dcb::Ets& e) {
    json tsa = json::array();
    for (const auto t : e.tc_tsa) tsa.push_back(dcb::tsa_name(t));
    return json{{"willing", e.willing},
                {"ets_cap", e.ets_cap},
                {"tc_tsa", tsa},
                {"tc_tx_bw", e.tc_tx_bw},
                {"prio_tc", e.prio_tc}};
  });
  out["maxrate"] = field_json(maxrate, [](const dcb::Maxrate& m) {
    return json{{"tc_kbps", m.tc_kbps}};  // ieee_maxrate's unit; 0 = no cap
  });
  out["buffer"] = field_json(buffer, [](const dcb::Buffer& b) {
    return json{{"prio2buffer", b.prio2buffer},
                {"buffer_size", b.buffer_size},
                {"total_size", b.total_size}};
  });
  out["stall_prevention"] = field_json(stall_prevention, [](const StallPrevention& s) {
    json j = {{"raw", s.raw}, {"mode", s.mode()}};
    j["timeout_ms"] = s.timeout_ms() ? json(*s.timeout_ms()) : json(nullptr);
    return j;
  });
  out["global_pause"] = field_json(global_pause, [](const PauseParams& p) {
    return json{{"rx", p.rx}, {"tx", p.tx}, {"autoneg", p.autoneg}};
  });
  out["gids"] = field_json(gids, [](const GidStatus& g) {
    json entries = json::array();
    for (const auto& entry : g.entries) entries.push_back(gid_json(entry));
    return json{{"source", g.source}, {"entries", entries}};
  });
  out["roce_v2_ipv4"] = field_json(roce_v2_ipv4, gid_json);
  out["rdma_cm"] = field_json(rdma_cm, [](const rdma::RdmaCmDefaults& cm) {
    json j = {{"configured", cm.configured}};
    // Without the configfs group the kernel's defaults apply: nothing to show.
    j["roce_mode"] = cm.configured ? json(cm.roce_mode) : json(nullptr);
    j["tos"] = cm.configured && cm.tos ? json(*cm.tos) : json(nullptr);
    return j;
  });
  out["ecn"] = field_json(ecn, [](const rdma::EcnState& e) {
    json j = {{"flavour", rdma::ecn_flavour_name(e.flavour)},
              {"source", e.source},
              {"np_params", e.np_params},
              {"rp_params", e.rp_params}};
    j["np_enabled_priorities"] = e.np_enabled ? priorities_of_mask(*e.np_enabled) : json(nullptr);
    j["rp_enabled_priorities"] = e.rp_enabled ? priorities_of_mask(*e.rp_enabled) : json(nullptr);
    j["cnp_dscp"] = e.cnp_dscp() ? json(*e.cnp_dscp()) : json(nullptr);
    j["cnp_priority"] = e.cnp_priority() ? json(*e.cnp_priority()) : json(nullptr);
    return j;
  });
  out["hw_counters"] =
      field_json(hw_counters, [](const std::map<std::string, uint64_t>& c) { return json(c); });
  return out;
}

nlohmann::ordered_json StatusReport::to_json() const {
  StatusDocument doc;
  doc.answered_by = "rocectl";
  doc.source = source;
  for (const auto& port : ports) doc.ports.push_back(status_port_entry(port));
  for (const auto& name : missing) doc.unmatched.push_back("no network interface named " + name);
  doc.other_rdma = other_rdma;
  doc.functions = functions;
  return doc.to_json();
}

}  // namespace roced
