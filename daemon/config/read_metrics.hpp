// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `metrics:` section: where the Prometheus endpoint listens, and its optional basic auth and
// TLS (docs/config.md#metrics, docs/metrics.md).

#include "daemon/config/reader.hpp"

namespace roced::config::detail {

void read_metrics(Reader& reader, const YAML::Node& node, Location where,
                  MetricsSettings& settings);

}  // namespace roced::config::detail
