// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `probe:` section: path probing's peers, rates and thresholds (docs/config.md#probe). The
// ranges are probe/settings.hpp's.

#include "daemon/config/reader.hpp"

namespace roced::config::detail {

void read_probe(Reader& reader, const YAML::Node& node, Location where,
                probe::ProbeSettings& settings);

}  // namespace roced::config::detail
