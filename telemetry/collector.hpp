// SPDX-License-Identifier: Apache-2.0
#pragma once
// Metric families that something other than the ports' counters knows: each daemon module
// writes its own (the reconciler its ports' configuration state, the storm watchdog its storms,
// the peer watch its switches). The exporter asks every collector it was given at each scrape,
// after the ports' own families; telemetry itself knows none of their concepts.

#include <functional>
#include <utility>

#include "telemetry/exposition.hpp"

namespace roced::telemetry {

class Collector {
 public:
  virtual ~Collector() = default;
  // Called on a scrape's thread, beside the collector's own threads: read shared state under
  // its lock. A family without samples is left out, as for the ports' counters.
  virtual void collect(ExpositionWriter& out) = 0;
};

// A collector made of a function: for families whose state is at hand (tests, benchmarks).
class FunctionCollector final : public Collector {
 public:
  explicit FunctionCollector(std::function<void(ExpositionWriter&)> write)
      : write_(std::move(write)) {}
  void collect(ExpositionWriter& out) override { write_(out); }

 private:
  std::function<void(ExpositionWriter&)> write_;
};

}  // namespace roced::telemetry
