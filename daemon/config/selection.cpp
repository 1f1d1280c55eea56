// SPDX-License-Identifier: Apache-2.0
// The small rules every layer shares: which ports, which profile.
#include <fnmatch.h>

#include <algorithm>

#include "daemon/config/config.hpp"

namespace roced::config {

namespace {
bool matches_any(const std::vector<std::string>& patterns, const std::string& name) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& pattern) {
    return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
  });
}
}  // namespace

bool PortSelection::selects(const std::string& netdev, const std::string& driver,
                            const std::string& rdma_driver) const {
  const auto named = [&](const std::string& name) {
    return std::find(drivers.begin(), drivers.end(), name) != drivers.end();
  };
  // An auxiliary driver is named <module>.<name> (an SF's mlx5_core.sf): the module is what
  // ports.drivers names.
  const std::string module = driver.substr(0, driver.find('.'));
  if (!drivers.empty() && !named(module) && (rdma_driver.empty() || !named(rdma_driver))) {
    return false;
  }
  if (!matches_any(netdevs, netdev)) return false;
  return !matches_any(exclude, netdev);
}

bool PortSelection::selects(const DiscoveredPort& port) const {
  if (!selects(port.netdev, port.driver, port.own_rdma_driver())) return false;
  return port.managed_by_default() ||
         std::find(netdevs.begin(), netdevs.end(), port.netdev) != netdevs.end();
}

const Profile& Config::profile_for(const std::string& netdev) const {
  for (const auto& override_entry : overrides) {
    if (fnmatch(override_entry.pattern.c_str(), netdev.c_str(), 0) == 0) {
      return override_entry.profile;
    }
  }
  return profile;
}

}  // namespace roced::config
