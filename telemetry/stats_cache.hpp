// SPDX-License-Identifier: Apache-2.0
#pragma once
// The latest full ETHTOOL_GSTATS reading of each port, as the storm poller made it, so that a
// scrape serves it instead of asking the NIC again: on mlx5 each read is dozens of firmware
// commands (PPCNT per counter group, one per priority). Thread-safe.

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace roced::telemetry {

class StatsCache {
 public:
  using Clock = std::chrono::steady_clock;
  struct Reading {
    std::shared_ptr<const std::vector<std::string>> names;  // the string set the values follow
    std::vector<uint64_t> values;
    Clock::time_point at;  // when it was put (the read just ended)
  };

  void put(const std::string& netdev, std::shared_ptr<const std::vector<std::string>> names,
           std::vector<uint64_t> values);
  // The port's reading if it is at most `max_age` old (never with max_age 0).
  std::optional<Reading> fresh(const std::string& netdev, Clock::duration max_age) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Reading> readings_;
};

}  // namespace roced::telemetry
