// SPDX-License-Identifier: Apache-2.0
#include "daemon/metrics/port_targets.hpp"

#include <algorithm>

#include "daemon/settings/spec.hpp"

namespace roced::metrics {

telemetry::ConfigState config_state(const reconcile::PortSnapshot& port) {
  telemetry::ConfigState state;
  state.state = reconcile::condition_name(port.condition);
  state.applies_ok = port.counters.applies_ok;
  state.applies_failed = port.counters.applies_failed;
  state.drifts = port.counters.drifts;
  state.corrections = port.counters.corrections;
  state.last_check = port.last_check;
  const plan::PortPlan& plan = port.last_plan;
  // Not yet checked, or unreadable: no claim either way.
  if (!port.last_check || !plan.error.empty()) return state;
  state.findings = plan::findings_of(plan);
  // A claim for each setting the profile manages (the row's own rule) and the port can take.
  for (const settings::Row& row : settings::rows()) {
    if (!row.manages(plan.desired)) continue;
    const auto same = [&row](const auto& item) { return item.setting == row.info->id; };
    if (std::any_of(plan.unsupported.begin(), plan.unsupported.end(), same)) continue;
    state.in_sync[std::string(row.info->key)] =
        std::none_of(plan.changes.begin(), plan.changes.end(), same);
  }
  return state;
}

std::vector<telemetry::PortTarget> port_targets(const std::vector<reconcile::PortSnapshot>& ports,
                                                const config::Config& config) {
  std::vector<telemetry::PortTarget> targets;
  for (const auto& port : ports) {
    telemetry::PortTarget target;
    target.port = port.port;
    if (port.condition == reconcile::PortCondition::Vanished) {
      target.vanished = true;  // its state alone: there is nothing to read
      targets.push_back(std::move(target));
      continue;
    }
    const config::Profile& profile = config.profile_for(port.port.netdev);
    target.gid_family = profile.roce.gid_family;
    target.expected_gid_index = profile.roce.gid_index;
    target.config = config_state(port);
    target.config->lossless_priorities = profile.pfc_priorities;
    targets.push_back(std::move(target));
  }
  return targets;
}

}  // namespace roced::metrics
