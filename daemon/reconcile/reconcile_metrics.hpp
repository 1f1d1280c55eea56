// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reconciler's metric families (docs/metrics.md): each port's state, which settings matched
// the profile at its last check, the findings of that check, and the applies, drifts and
// corrections counted since roced started. The reconciler's last check is the answer: nothing
// is read from the port for them.

#include <vector>

#include "daemon/config/config.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "telemetry/exposition.hpp"

namespace roced::reconcile {

void add_port_config_families(telemetry::ExpositionWriter& out,
                              const std::vector<PortSnapshot>& ports, const config::Config& config);

}  // namespace roced::reconcile
