// SPDX-License-Identifier: Apache-2.0
// Reading back what plan_to_json, apply_to_json and GetStatus wrote (docs/plan-json.md,
// docs/dbus.md).
#include "cli/daemon_documents.hpp"

#include <sstream>
#include <stdexcept>

#include "cli/json_text.hpp"
#include "port/status.hpp"

namespace roced::cli {

namespace {

using Json = nlohmann::ordered_json;

// The inverse of plan::setting_name: "pfc.priorities" -> PfcPriorities, "ecn.dcqcn.rp_ai_rate"
// -> Dcqcn with key "rp_ai_rate". From the settings table, so every setting reads back.
std::pair<plan::Setting, std::string> parse_setting(const std::string& name) {
  if (auto parsed = settings::parse_setting_name(name)) return *parsed;
  throw std::invalid_argument("unknown setting \"" + name + "\"");
}

plan::Change change_from_json(const Json& item) {
  plan::Change change;
  std::tie(change.setting, change.key) = parse_setting(item.at("setting").get<std::string>());
  change.now = json_text(item.at("now"));
  change.wanted = json_text(item.at("wanted"));
  change.disruptive = item.value("disruptive", false);
  if (item.contains("disruption")) change.disruption = json_text(item["disruption"]);
  return change;
}

std::vector<plan::Unsupported> unsupported_from_json(const Json& list) {
  std::vector<plan::Unsupported> out;
  for (const auto& item : list) {
    plan::Unsupported u;
    std::tie(u.setting, u.key) = parse_setting(item.at("setting").get<std::string>());
    u.reason = json_text(item.at("reason"));
    out.push_back(std::move(u));
  }
  return out;
}

apply::PortResult::Outcome parse_outcome(const std::string& name) {
  if (auto outcome = apply::kOutcomeNames.parse(name)) return *outcome;
  throw std::invalid_argument("unknown outcome \"" + name + "\"");
}

std::vector<apply::StepResult> steps_from_json(const Json& list) {
  std::vector<apply::StepResult> out;
  for (const auto& item : list) {
    apply::StepResult step;
    step.change = change_from_json(item);
    step.ok = item.value("ok", false);
    step.attempts = item.value("attempts", 0);
    step.error = json_text(item.value("error", Json()));
    out.push_back(std::move(step));
  }
  return out;
}

}  // namespace

plan::Plan plan_from_json(const nlohmann::ordered_json& doc) {
  plan::Plan plan;
  plan.source = json_text(doc.at("source"));
  plan.config_path = json_text(doc.at("config"));
  plan.error = json_text(doc.value("error", Json()));
  plan.not_found = doc.value("not_found", std::vector<std::string>{});
  for (const auto& item : doc.value("not_managed", std::vector<std::string>{})) {
    // "lan2v3 (VF 3 of lan2)": the JSON keeps the text only.
    const auto open = item.find(" (");
    plan.not_managed.push_back(
        open == std::string::npos || item.back() != ')'
            ? plan::Plan::NotManaged{item, {}, {}}
            : plan::Plan::NotManaged{
                  item.substr(0, open), item.substr(open + 2, item.size() - open - 3), {}});
  }
  for (const auto& item : doc.at("ports")) {
    plan::PortPlan port;
    port.port.netdev = item.at("netdev").get<std::string>();
    port.port.rdma_device = json_text(item.value("rdma_device", Json()));
    if (const Json& rdma_port = item.value("rdma_port", Json()); rdma_port.is_number()) {
      port.port.rdma_port = rdma_port.get<int>();
    }
    for (const auto& change : item.at("changes")) port.changes.push_back(change_from_json(change));
    port.unsupported = unsupported_from_json(item.at("unsupported"));
    port.findings = finding::list_from_json(item.value("findings", Json::array()));
    if (item.contains("roce_v2_gid_index") && item["roce_v2_gid_index"].is_number()) {
      port.roce_v2_gid_index = item["roce_v2_gid_index"].get<int>();
    }
    port.error = json_text(item.value("error", Json()));
    plan.ports.push_back(std::move(port));
  }
  return plan;
}

apply::ApplyResult apply_result_from_json(const nlohmann::ordered_json& doc) {
  apply::ApplyResult result;
  for (const auto& item : doc.at("ports")) {
    apply::PortResult port;
    port.netdev = item.at("netdev").get<std::string>();
    port.outcome = parse_outcome(item.at("outcome").get<std::string>());
    port.steps = steps_from_json(item.at("changes"));
    port.rollback = steps_from_json(item.at("rollback"));
    port.unsupported = unsupported_from_json(item.at("unsupported"));
    port.findings = finding::list_from_json(item.value("findings", Json::array()));
    port.headroom = json_text(item.value("headroom", Json()));
    port.carrier = json_text(item.value("carrier", Json()));
    port.unread = json_text(item.value("unread", Json()));
    port.error = json_text(item.value("error", Json()));
    result.ports.push_back(std::move(port));
  }
  return result;
}

namespace {

// "  switch   leaf1 Ethernet1/1 (IEEE DCBX), 1 mismatch" and a line per finding.
void format_peer(const Json& peer, std::ostringstream& out) {
  if (!peer.is_object()) return;
  const std::string state = json_text(peer.value("state", Json()));
  const Json& sw = peer.value("switch", Json());
  out << "  switch   ";
  if (state == "not_listening") {
    out << "not listening for LLDP: " << json_text(peer.value("listen_error", Json())) << "\n";
    return;
  }
  if (state == "firmware_dcbx") {
    out << "DCBX in firmware mode: the NIC's agent answers the switch (not compared)\n";
    return;
  }
  if (!sw.is_object()) {
    out << "no LLDP heard\n";
    return;
  }
  out << json_text(sw.value("system_name", Json())) << " "
      << json_text(sw.value("port_id", Json()));
  const std::string dcbx = json_text(sw.value("dcbx", Json()));
  out << " (" << (dcbx == "ieee" ? "IEEE DCBX" : dcbx == "cee" ? "CEE DCBX" : "no DCBX TLVs");
  const Json& findings = peer.value("findings", Json::array());
  out << (findings.empty() && state == "compared" ? ", agrees" : "") << ")\n";
}

// "  link     up 100 Gb/s, mtu 9000, pfc 3" from what roced's last check read back; the error
// where a piece could not be read, nothing before the first check.
void format_observed(const Json& observed, std::ostringstream& out) {
  if (!observed.is_object()) return;
  const auto error_of = [](const Json& piece) {
    const Json& error = piece.is_object() ? piece.value("error", Json()) : Json();
    return error.is_string() ? error.get<std::string>() : std::string();
  };
  const Json& link = observed.value("link", Json());
  out << "  link     ";
  if (const std::string error = error_of(link); !error.empty() || !link.is_object()) {
    out << (error.empty() ? "not read" : error) << "\n";
  } else {
    out << json_text(link.value("state", Json()));
    if (const Json& speed = link.value("speed_mbps", Json()); speed.is_number_unsigned()) {
      out << " " << speed_text(speed.get<uint32_t>());
    }
    out << ", mtu " << link.value("mtu", 0);
    const Json& pfc = observed.value("pfc", Json());
    if (const std::string pfc_error = error_of(pfc); !pfc_error.empty()) {
      out << ", pfc " << pfc_error;
    } else if (pfc.is_object()) {
      std::string priorities;
      for (const auto& priority : pfc.value("enabled_priorities", Json::array())) {
        priorities += (priorities.empty() ? "" : ",") + std::to_string(priority.get<int>());
      }
      out << ", pfc " << (priorities.empty() ? "off" : priorities);
    }
    out << "\n";
  }
}

}  // namespace

std::string format_daemon_status_text(const nlohmann::ordered_json& doc) {
  std::ostringstream out;
  for (const auto& port : doc.at("ports")) {
    out << port.at("netdev").get<std::string>();
    if (const std::string rdma = json_text(port.value("rdma_device", Json())); !rdma.empty()) {
      out << " (" << rdma << ":" << port.value("rdma_port", 0) << ")";
    }
    out << ": " << port.at("condition").get<std::string>();
    if (const std::string error = json_text(port.value("error", Json())); !error.empty()) {
      out << " (" << error << ")";
    }
    out << "\n";
    format_observed(port.value("observed", Json()), out);
    for (const auto& drift : port.at("drift")) {
      out << "  drifted  " << drift.at("setting").get<std::string>() << ": "
          << json_text(drift.at("now")) << " (wanted " << json_text(drift.at("wanted")) << ")\n";
    }
    if (const auto& check = port.value("last_check", Json()); check.is_string()) {
      out << "  checked  " << check.get<std::string>() << "\n";
    }
    if (const auto& last = port.value("last_apply", Json()); last.is_object()) {
      out << "  applied  " << json_text(last.value("time", Json())) << " "
          << json_text(last.value("outcome", Json()));
      if (const std::string error = json_text(last.value("error", Json())); !error.empty()) {
        out << ": " << error;
      }
      out << "\n";
    }
    if (const int failures = port.value("consecutive_failures", 0); failures > 0) {
      out << "  failures " << failures << " in a row";
      if (const auto& retry = port.value("next_retry", Json()); retry.is_string()) {
        out << ", next try " << retry.get<std::string>();
      }
      out << "\n";
    }
    format_peer(port.value("peer", Json()), out);
    for (const auto& found : finding::list_from_json(port.value("findings", Json::array()))) {
      out << "  " << finding::headline(found) << "\n";
    }
  }
  const auto& daemon = doc.at("daemon");
  out << "roced " << json_text(daemon.value("version", Json())) << " on "
      << json_text(daemon.value("source", Json())) << ": "
      << json_text(daemon.value("status", Json())) << "\n";
  return out.str();
}

}  // namespace roced::cli
