// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `health:` section: how often the NIC's own health is read and the thresholds it is judged
// by (docs/config.md#health). The ranges are health/settings.hpp's.

#include "daemon/config/reader.hpp"

namespace roced::config::detail {

void read_health(Reader& reader, const YAML::Node& node, Location where,
                 health::HealthSettings& settings);

}  // namespace roced::config::detail
