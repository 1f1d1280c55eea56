// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reconciler's view of each port as telemetry targets: which ports to sample, and the GID
// family and index their profile names.

#include <vector>

#include "daemon/reconcile/reconciler.hpp"
#include "telemetry/node_sampler.hpp"

namespace roced::telemetry {

// Pure: one target per snapshot that is not Vanished (a vanished port has nothing to read; the
// reconciler's own families say it vanished).
std::vector<telemetry::PortTarget> port_targets(const std::vector<reconcile::PortSnapshot>& ports,
                                                const config::Config& config);

}  // namespace roced::telemetry
