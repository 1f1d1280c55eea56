// SPDX-License-Identifier: Apache-2.0
#pragma once
// The storm watchdog's metric families (docs/metrics.md): its rounds and their cost, and each
// lossless priority's storms, actions and escalations.

#include "daemon/watchdog/storm_stats.hpp"
#include "telemetry/exposition.hpp"

namespace roced::watchdog {

void add_storm_families(telemetry::ExpositionWriter& out, const WatchdogStats& stats);

}  // namespace roced::watchdog
