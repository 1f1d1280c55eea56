// SPDX-License-Identifier: Apache-2.0
// GetStatus()'s document: the status document (docs/status-json.md) with roced's view filled in.
#include "daemon/dbus/status_document.hpp"

#include <ctime>

#include "daemon/lldp/peer_json.hpp"
#include "port/status_document.hpp"

namespace roced::dbus {

namespace {

using Json = nlohmann::ordered_json;

Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

Json time_or_null(const std::optional<reconcile::Clock::time_point>& when) {
  return when ? Json(iso_time(*when)) : Json(nullptr);
}

// What the last check found different, in the plan's own words (setting, now, wanted).
Json drift_json(const plan::PortPlan& plan) {
  Json drift = Json::array();
  for (const auto& c : plan.changes) {
    drift.push_back({{"setting", plan::setting_name(c.setting, c.key)},
                     {"now", c.now},
                     {"wanted", c.wanted},
                     {"disruptive", c.disruptive}});
  }
  return drift;
}

Json unsupported_json(const plan::PortPlan& plan) {
  Json out = Json::array();
  for (const auto& u : plan.unsupported) {
    out.push_back({{"setting", plan::setting_name(u.setting, u.key)}, {"reason", u.reason}});
  }
  return out;
}

Json last_apply_json(const reconcile::PortSnapshot& snapshot) {
  if (!snapshot.last_apply) return nullptr;
  const apply::PortResult& result = *snapshot.last_apply;
  Json written = Json::array();
  for (const auto& step : result.steps) {
    if (step.ok) written.push_back(plan::setting_name(step.change.setting, step.change.key));
  }
  return {{"time", time_or_null(snapshot.last_apply_time)},
          {"outcome", apply::outcome_name(result.outcome)},
          {"settings", std::move(written)},
          {"error", text_or_null(result.error)},
          {"findings", finding::to_json(result.findings)}};
}

}  // namespace

std::string iso_time(reconcile::Clock::time_point when) {
  const std::time_t seconds = reconcile::Clock::to_time_t(when);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

nlohmann::ordered_json port_snapshot_to_json(const reconcile::PortSnapshot& snapshot) {
  const plan::PortPlan& plan = snapshot.last_plan;
  PortView view;
  view.condition = reconcile::condition_name(snapshot.condition);
  // After a correction the reconciler keeps the plan it corrected from: in sync means nothing
  // differs any more, whatever that plan listed.
  view.drift = snapshot.condition == reconcile::PortCondition::InSync ||
                       snapshot.condition == reconcile::PortCondition::Held
                   ? Json::array()
                   : drift_json(plan);
  view.unsupported = unsupported_json(plan);
  view.warnings = finding::texts(plan.findings);
  view.findings = finding::to_json(plan::findings_of(plan));
  view.error = text_or_null(plan.error);
  view.last_check = time_or_null(snapshot.last_check);
  view.last_apply = last_apply_json(snapshot);
  view.consecutive_failures = snapshot.consecutive_failures;
  view.next_retry = time_or_null(snapshot.next_retry);
  return status_port_entry(snapshot.port, std::move(view),
                           snapshot.last_check ? plan.observed.to_json() : Json(nullptr));
}

nlohmann::ordered_json status_to_json(const DaemonInfo& info, const std::string& status_line,
                                      const std::vector<reconcile::PortSnapshot>& ports,
                                      const reconcile::SelectionReport& selection,
                                      const std::map<std::string, lldp::PortPeer>& peers,
                                      const std::vector<finding::Finding>& findings) {
  StatusDocument doc;
  doc.answered_by = "roced";
  doc.source = info.source;
  doc.daemon = {{"version", info.version},
                {"config", info.config_path},
                {"source", info.source},
                {"sim_dir", text_or_null(info.sim_dir)},
                {"status", status_line}};
  for (const auto& snapshot : ports) {
    nlohmann::ordered_json entry = port_snapshot_to_json(snapshot);
    const auto peer = peers.find(snapshot.port.netdev);
    entry["peer"] = peer == peers.end() ? Json(nullptr) : lldp::peer_to_json(peer->second);
    // The modules' findings join the port's own: one list of what is not as it should be.
    for (const auto& found : findings) {
      if (found.subject == snapshot.port.netdev)
        entry["findings"].push_back(finding::to_json(found));
    }
    doc.ports.push_back(std::move(entry));
  }
  doc.unmatched = selection.unmatched;
  doc.other_rdma = selection.other_rdma;
  return doc.to_json();
}

}  // namespace roced::dbus
