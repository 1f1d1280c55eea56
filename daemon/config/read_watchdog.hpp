// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `watchdog:` section: how roced watches for PFC storms and what it does about them
// (docs/config.md#watchdog). The ranges and the rules between keys are watchdog/settings.hpp's.

#include "daemon/config/reader.hpp"

namespace roced::config::detail {

void read_watchdog(Reader& reader, const YAML::Node& node, Location where,
                   watchdog::WatchdogSettings& settings);

}  // namespace roced::config::detail
