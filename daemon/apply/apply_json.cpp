// SPDX-License-Identifier: Apache-2.0
// The apply result as programs read it (`rocectl apply --json`, the Ansible role). The shape is a
// contract: docs/plan-json.md.
#include "daemon/apply/applier.hpp"

namespace roced::apply {

namespace {

using Json = nlohmann::ordered_json;

Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

bool written(const PortResult& port) {
  return port.outcome == PortResult::Outcome::Applied ||
         port.outcome == PortResult::Outcome::RolledBack ||
         port.outcome == PortResult::Outcome::RollbackFailed;
}

Json steps_json(const std::vector<StepResult>& steps) {
  Json out = Json::array();
  for (const auto& s : steps) {
    out.push_back({{"setting", plan::setting_name(s.change.setting, s.change.key)},
                   {"now", s.change.now},
                   {"wanted", s.change.wanted},
                   {"disruptive", s.change.disruptive},
                   {"ok", s.ok},
                   {"attempts", s.attempts},
                   {"error", text_or_null(s.error)}});
  }
  return out;
}

Json port_json(const PortResult& port) {
  Json unsupported = Json::array();
  for (const auto& u : port.unsupported) {
    unsupported.push_back(
        {{"setting", plan::setting_name(u.setting, u.key)}, {"reason", u.reason}});
  }
  return {{"netdev", port.netdev},
          {"outcome", outcome_name(port.outcome)},
          {"changed", written(port)},
          {"changes", steps_json(port.steps)},
          {"rollback", steps_json(port.rollback)},
          {"unsupported", std::move(unsupported)},
          {"warnings", finding::texts(port.findings)},
          {"findings", finding::to_json(port.findings)},
          {"headroom", text_or_null(port.headroom)},
          {"carrier", text_or_null(port.carrier)},
          {"unread", text_or_null(port.unread)},
          {"error", text_or_null(port.error)}};
}

}  // namespace

nlohmann::ordered_json apply_to_json(const ApplyResult& result) {
  Json ports = Json::array();
  for (const auto& port : result.ports) ports.push_back(port_json(port));
  return {{"ports", std::move(ports)}, {"changed", result.changed()}, {"ok", result.ok()}};
}

nlohmann::ordered_json apply_document(const ApplyContext& context, const ApplyResult& result) {
  const bool ok = result.ok() && context.not_found.empty() && context.error.empty();
  Json doc = {{"schema", kApplySchema},
              {"source", context.source},
              {"config", context.config_path},
              {"plan", context.plan ? plan::plan_to_json(*context.plan) : Json(nullptr)}};
  Json applied = apply_to_json(result);
  for (auto& [key, value] : applied.items()) doc[key] = std::move(value);
  doc["ok"] = ok;
  doc["not_found"] = context.not_found;
  doc["error"] = text_or_null(context.error);
  return doc;
}

}  // namespace roced::apply
