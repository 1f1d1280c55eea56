// SPDX-License-Identifier: Apache-2.0
// The plan as programs read it (`rocectl plan --json`, `rocectl apply --check --json`, the
// Ansible role). The shape is a contract: docs/plan-json.md.
#include "daemon/plan/plan.hpp"

namespace roced::plan {

namespace {

using Json = nlohmann::ordered_json;

Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

std::vector<std::string> not_managed_texts(const Plan& plan) {
  std::vector<std::string> texts;
  for (const auto& function : plan.not_managed) texts.push_back(function.text());
  return texts;
}

Json port_json(const PortPlan& port) {
  Json changes = Json::array();
  for (const auto& c : port.changes) {
    changes.push_back({{"setting", setting_name(c.setting, c.key)},
                       {"now", c.now},
                       {"wanted", c.wanted},
                       {"disruptive", c.disruptive},
                       {"disruption", text_or_null(c.disruption)}});
  }
  Json unsupported = Json::array();
  for (const auto& u : port.unsupported) {
    unsupported.push_back({{"setting", setting_name(u.setting, u.key)}, {"reason", u.reason}});
  }
  return {
      {"netdev", port.port.netdev},
      {"rdma_device", text_or_null(port.port.rdma_device)},
      {"rdma_port", port.port.rdma_device.empty() ? Json(nullptr) : Json(port.port.rdma_port)},
      {"in_sync", port.in_sync()},
      {"disruptive", port.disruptive()},
      {"changes", std::move(changes)},
      {"unsupported", std::move(unsupported)},
      {"warnings", finding::texts(port.findings)},
      {"findings", finding::to_json(port.findings)},
      {"roce_v2_gid_index", port.roce_v2_gid_index ? Json(*port.roce_v2_gid_index) : Json(nullptr)},
      {"error", text_or_null(port.error)}};
}

}  // namespace

nlohmann::ordered_json plan_to_json(const Plan& plan) {
  Json ports = Json::array();
  for (const auto& port : plan.ports) ports.push_back(port_json(port));
  return {{"schema", kPlanSchema},
          {"source", plan.source},
          {"config", plan.config_path},
          {"ports", std::move(ports)},
          {"not_found", plan.not_found},
          {"changes_pending", plan.has_changes()},
          {"error", text_or_null(plan.error)},
          {"not_managed", not_managed_texts(plan)}};
}

}  // namespace roced::plan
