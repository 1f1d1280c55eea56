// SPDX-License-Identifier: Apache-2.0
#pragma once
// The storm watchdog's metric families (docs/metrics.md): its rounds and their cost, and each
// lossless priority's storms, actions and escalations.

#include "daemon/storms/storm_stats.hpp"
#include "telemetry/exposition.hpp"

namespace roced::storms {

void add_storm_families(telemetry::ExpositionWriter& out, const WatchdogStats& stats);

}  // namespace roced::storms
