// SPDX-License-Identifier: Apache-2.0
#pragma once
// A NodeSample as Prometheus metric families (docs/metrics.md is the catalogue), written as the
// text exposition: pure, so the names, labels and units are unit-tested without an HTTP server.

#include <span>
#include <string>
#include <string_view>

#include "telemetry/collector.hpp"
#include "telemetry/exposition.hpp"
#include "telemetry/node_sampler.hpp"

namespace roced::telemetry {

struct ExporterInfo {
  std::string version;
};

// Whether a family takes this hw_counters file's value (the others need not be read).
bool exports_hw_counter(std::string_view counter);
// Whether a family takes this `ethtool -S` counter's value (mlx5 lists some 220 per port, of
// which the families export a fraction; the others need not be copied into a sample).
bool exports_ethtool_stat(std::string_view name);

// The ports' families, then each collector's (the daemon's modules). Families without a single
// sample are left out (a NIC without the counter exports nothing), and those `serves` refuses
// (metrics.include/exclude; all when empty).
void write_exposition(std::string& out, const NodeSample& sample, const ExporterInfo& info,
                      ExpositionWriter::Filter serves = {},
                      std::span<Collector* const> collectors = {});
inline std::string exposition_text(const NodeSample& sample, const ExporterInfo& info,
                                   ExpositionWriter::Filter serves = {},
                                   std::span<Collector* const> collectors = {}) {
  std::string out;
  write_exposition(out, sample, info, std::move(serves), collectors);
  return out;
}

}  // namespace roced::telemetry
