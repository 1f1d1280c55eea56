// SPDX-License-Identifier: Apache-2.0
#include "daemon/reconcile/reconcile_module.hpp"

#include "daemon/plan/findings.hpp"
#include "daemon/reconcile/reconcile_metrics.hpp"

namespace roced::reconcile {

void ReconcileModule::reconfigure(const config::Config& before, const config::Config& after) {
  (void)before;
  (void)reconciler_.reload(after);  // a validated snapshot: it always takes it
}

bool ReconcileModule::healthy(std::chrono::steady_clock::time_point now) const {
  (void)now;  // the reconciler keeps its own health window on its own clock
  return reconciler_.healthy();
}

std::vector<finding::Finding> ReconcileModule::findings() const {
  std::vector<DiscoveredPort> managed;
  for (const auto& port : reconciler_.snapshot()) {
    if (port.condition != PortCondition::Vanished) managed.push_back(port.port);
  }
  return plan::unmanaged_slave_findings(managed);
}

void ReconcileModule::collect(telemetry::ExpositionWriter& out) {
  add_port_config_families(out, reconciler_.snapshot(), reconciler_.config());
}

}  // namespace roced::reconcile
