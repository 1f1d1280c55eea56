// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the storm watchdog has seen and done: its state, not read from the NIC, shown by D-Bus
// GetStorms (storm_json.hpp) and as metric families (storm_metrics.hpp, docs/metrics.md).

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ethtool/ethtool_names.hpp"

namespace roced::watchdog {

// Detection latency (from the storm's onset, as the counters place it, to its detection), in
// cumulative buckets like a Prometheus histogram.
struct LatencyHistogram {
  static constexpr std::array<double, 10> kBounds = {0.01, 0.02, 0.05, 0.1, 0.2,
                                                     0.5,  1,    2,    5,   10};  // seconds
  std::array<uint64_t, kBounds.size()> buckets{};  // observations <= kBounds[i]
  uint64_t count = 0;
  double sum = 0;  // seconds

  void observe(std::chrono::nanoseconds latency) {
    const double seconds = std::chrono::duration<double>(latency).count();
    for (size_t i = 0; i < kBounds.size(); ++i) {
      if (seconds <= kBounds[i]) ++buckets[i];
    }
    ++count;
    sum += seconds;
  }
};

// One lossless priority and direction of one port.
struct StormStats {
  std::string netdev;
  int priority = 0;
  Direction direction = Direction::rx;
  bool active = false;      // detected and not yet restored
  bool remediated = false;  // roced's action is in effect on the NIC now
  bool held = false;        // the action budget is spent: kept in the safe state past the storm
  uint64_t detections = 0;
  uint64_t restorations = 0;
  std::map<std::pair<std::string, std::string>, uint64_t> actions;  // (action, "ok"|"failed")
  std::map<std::string, uint64_t> escalations;                      // by reason
  // roced's latest action on this priority and direction and how it went ("ok", "failed"),
  // whether or not it is still in effect; empty before the first.
  std::optional<std::pair<std::string, std::string>> last_action;
  LatencyHistogram detection_latency;
};

struct WatchdogStats {
  std::chrono::milliseconds poll_interval{0};  // configured
  // In use: poll_interval unless the poll budget needs longer; `budget_limit` says which share
  // ("cpu", "firmware") set it, "none" when the configuration did.
  std::chrono::nanoseconds effective_interval{0};
  std::string budget_limit = "none";
  // The latest a storm is detected at that interval, with the reads as they now take.
  std::chrono::nanoseconds detection_bound{0};
  std::chrono::nanoseconds read_cpu{0};                       // the loop's CPU time in rounds
  std::map<std::string, std::chrono::nanoseconds> read_time;  // by netdev: its statistics reads
  uint64_t polls = 0;                                         // poll rounds over every port
  uint64_t late_polls = 0;  // rounds that began more than half a poll late
  std::vector<StormStats> storms;
};

}  // namespace roced::watchdog
