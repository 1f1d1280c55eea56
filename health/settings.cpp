// SPDX-License-Identifier: Apache-2.0
#include "health/settings.hpp"

namespace roced::health {

namespace {

void check_range(std::vector<HealthProblem>& problems, std::string field, uint64_t value,
                 uint64_t low, uint64_t high) {
  if (value >= low && value <= high) return;
  problems.push_back({std::move(field), std::to_string(value) + " is out of range (" +
                                            std::to_string(low) + "-" + std::to_string(high) +
                                            ")"});
}

}  // namespace

std::vector<HealthProblem> HealthSettings::validate() const {
  std::vector<HealthProblem> problems;
  if (interval < kMinHealthInterval || interval > kMaxHealthInterval) {
    problems.push_back(
        {"interval", std::to_string(interval.count()) + " ms is out of range (1s-10m)"});
  }
  check_range(problems, "symbol_errors_per_second", symbol_errors_per_second, 1, 1'000'000'000);
  check_range(problems, "symbol_errors_per_hour", symbol_errors_per_hour, 1, 1'000'000'000'000);
  check_range(problems, "link_flaps_per_10m", link_flaps_per_10m, 1, 1000);
  if (optics_interval < kMinOpticsInterval || optics_interval > kMaxOpticsInterval) {
    problems.push_back({"optics_interval",
                        std::to_string(optics_interval.count()) + " ms is out of range (1s-1h)"});
  }
  // A per-second threshold above the hour's would never be reached before the hour's.
  if (symbol_errors_per_hour < symbol_errors_per_second) {
    problems.push_back({"symbol_errors_per_hour",
                        "is below symbol_errors_per_second: one second above the rate would "
                        "already be above the hour's count"});
  }
  return problems;
}

}  // namespace roced::health
