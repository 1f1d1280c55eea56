// SPDX-License-Identifier: Apache-2.0
#pragma once
// A NodeSample as Prometheus metric families (docs/metrics.md is the catalogue): pure, so the
// names, labels and units are unit-tested without an HTTP server.

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

#include "telemetry/node_sampler.hpp"

namespace roced::telemetry {

struct ExporterInfo {
  std::string version;
};

// Families without a single sample are left out (a NIC without the counter exports nothing).
std::vector<prometheus::MetricFamily> metric_families(const NodeSample& sample,
                                                      const ExporterInfo& info);

}  // namespace roced::telemetry
