// SPDX-License-Identifier: Apache-2.0
#include "telemetry/stats_cache.hpp"

namespace roced::telemetry {

void StatsCache::put(const std::string& netdev,
                     std::shared_ptr<const std::vector<std::string>> names,
                     std::vector<uint64_t> values) {
  if (!names || names->size() != values.size()) return;  // not one string set's values
  const std::lock_guard lock(mutex_);
  readings_[netdev] = Reading{std::move(names), std::move(values), Clock::now()};
}

std::optional<StatsCache::Reading> StatsCache::fresh(const std::string& netdev,
                                                     Clock::duration max_age) const {
  if (max_age <= Clock::duration::zero()) return std::nullopt;
  const std::lock_guard lock(mutex_);
  const auto found = readings_.find(netdev);
  if (found == readings_.end() || Clock::now() - found->second.at > max_age) return std::nullopt;
  return found->second;
}

}  // namespace roced::telemetry
