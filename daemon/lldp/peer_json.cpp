// SPDX-License-Identifier: Apache-2.0
#include "daemon/lldp/peer_json.hpp"

namespace roced::lldp {
namespace {

using Json = nlohmann::ordered_json;

std::string dcbx_name(const lldp::Lldpdu& l) {
  if (l.pfc || l.ets || l.app || l.ets_recommendation) return "ieee";
  if (l.cee) return "cee";
  return "none";
}

std::vector<int> priorities(uint8_t mask) {
  std::vector<int> out;
  for (int p = 0; p < 8; ++p) {
    if ((mask & (1u << p)) != 0) out.push_back(p);
  }
  return out;
}

Json switch_json(const lldp::Neighbour& n) {
  const lldp::Lldpdu& l = n.lldpdu;
  Json out;
  out["system_name"] = l.system_name;
  out["port_id"] = l.port_id;
  out["port_description"] = l.port_description;
  out["chassis_id"] = l.chassis_id;
  out["source_mac"] = lldp::mac_text(l.source);
  out["ttl_s"] = l.ttl;
  out["management_addresses"] = l.management_addresses;
  out["dcbx"] = dcbx_name(l);
  Json pfc = nullptr;
  if (l.pfc) {
    pfc = {{"priorities", priorities(l.pfc->enabled_mask)},
           {"willing", l.pfc->willing},
           {"capability", l.pfc->cap}};
  } else if (l.cee && l.cee->pfc) {
    pfc = {{"priorities", priorities(l.cee->pfc->enabled_mask)},
           {"willing", l.cee->pfc->feature.willing},
           {"enabled", l.cee->pfc->feature.enabled}};
  }
  out["pfc"] = pfc;
  Json dscp = Json::object();
  for (const auto& entry : l.app.value_or(std::vector<dcb::AppEntry>{})) {
    if (entry.selector == static_cast<uint8_t>(dcb::AppSelector::Dscp)) {
      dscp[std::to_string(entry.protocol)] = entry.priority;
    }
  }
  out["dscp"] = dscp;
  out["ets_priority_tc"] = l.ets ? Json(l.ets->prio_tc) : Json(nullptr);
  out["max_frame_size"] = l.max_frame_size ? Json(*l.max_frame_size) : Json(nullptr);
  return out;
}

// The peer's findings as this document has always shown them (name, mismatch or notice, host,
// switch): the status schema only ever adds keys. The port's "findings" has them as findings.
Json legacy_findings(const std::vector<finding::Finding>& findings) {
  Json out = Json::array();
  for (const auto& f : findings) {
    std::string name = f.id.starts_with("switch_") ? f.id.substr(7) : f.id;
    if (name == "willing") name = "peer_willing";
    out.push_back({{"name", name},
                   {"severity", f.severity == finding::Severity::Critical ? "mismatch" : "notice"},
                   {"host", f.wanted},
                   {"switch", f.found},
                   {"text", f.text}});
  }
  return out;
}

}  // namespace

Json peer_to_json(const PortPeer& peer) {
  Json out;
  out["state"] = std::string(lldp::kPeerStateNames.name(peer.report.state));
  out["listen_error"] = peer.listen_error.empty() ? Json(nullptr) : Json(peer.listen_error);
  out["switch"] = peer.neighbour ? switch_json(*peer.neighbour) : Json(nullptr);
  out["neighbours"] = peer.neighbours;
  out["findings"] = legacy_findings(peer.report.findings);
  out["frames"] = peer.frames;
  Json dropped = Json::object();
  for (const auto& [reason, count] : peer.dropped) dropped[reason] = count;
  out["dropped"] = dropped;
  return out;
}

}  // namespace roced::lldp
