// SPDX-License-Identifier: Apache-2.0
#pragma once
// The storm watchdog's state as JSON: D-Bus GetStorms (docs/dbus.md).

#include <nlohmann/json.hpp>

#include "daemon/storms/storm_stats.hpp"
#include "watchdog/settings.hpp"

namespace roced::storms {

nlohmann::ordered_json storms_to_json(const watchdog::WatchdogSettings& settings,
                                      const WatchdogStats& stats);

}  // namespace roced::storms
