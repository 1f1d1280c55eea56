// SPDX-License-Identifier: Apache-2.0
#include "daemon/telemetry/port_targets.hpp"

namespace roced::telemetry {

std::vector<telemetry::PortTarget> port_targets(const std::vector<reconcile::PortSnapshot>& ports,
                                                const config::Config& config) {
  std::vector<telemetry::PortTarget> targets;
  for (const auto& port : ports) {
    if (port.condition == reconcile::PortCondition::Vanished) continue;
    telemetry::PortTarget target;
    target.port = port.port;
    const config::Profile& profile = config.profile_for(port.port.netdev);
    target.gid_family = profile.roce.gid_family;
    target.expected_gid_index = profile.roce.gid_index;
    targets.push_back(std::move(target));
  }
  return targets;
}

}  // namespace roced::telemetry
