// SPDX-License-Identifier: Apache-2.0
#pragma once
// The storm watchdog's state as JSON: D-Bus GetStorms (docs/dbus.md).

#include <nlohmann/json.hpp>

#include "daemon/watchdog/storm_stats.hpp"
#include "watchdog/settings.hpp"

namespace roced::watchdog {

nlohmann::ordered_json storms_to_json(const watchdog::WatchdogSettings& settings,
                                      const WatchdogStats& stats);

}  // namespace roced::watchdog
