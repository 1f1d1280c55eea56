// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reconciler's view of each port as telemetry targets: which ports to sample, the GID family
// and index their profile names, and the configuration state of the last check.

#include <vector>

#include "daemon/reconcile/reconciler.hpp"
#include "telemetry/node_sampler.hpp"

namespace roced::metrics {

// Pure: one target per snapshot that is not Vanished (a vanished port has nothing to read).
std::vector<telemetry::PortTarget> port_targets(const std::vector<reconcile::PortSnapshot>& ports,
                                                const config::Config& config);

// The configuration state of one snapshot: per setting group the profile manages, matched at the
// last check; groups the port cannot take are left out; nothing at all when the last check could not read the port.
telemetry::ConfigState config_state(const reconcile::PortSnapshot& port);

}  // namespace roced::metrics
