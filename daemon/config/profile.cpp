// SPDX-License-Identifier: Apache-2.0
// The profile's defaults and the small rules every layer shares (which ports, which profile).
#include <fnmatch.h>

#include <algorithm>

#include "daemon/config/config.hpp"

namespace roced::config {

uint16_t StallPrevention::tunable_value() const {
  switch (mode) {
    case Mode::Off:
      return 0;
    case Mode::Auto:
      return 0xffff;
    case Mode::Manual:
      return timeout_ms;
  }
  return 0xffff;
}

Profile default_profile() {
  Profile profile;
  // The firmware's own map, d >> 3: RoCE's DSCP 26 -> 3 and the CNPs' DSCP 48 -> 6.
  for (int dscp = 0; dscp < 64; ++dscp) {
    profile.dscp_map[dscp] = static_cast<uint8_t>(dscp >> 3);
  }
  // One TC per priority; RoCE's TC3 gets half the link under load, CNPs (TC6) go strict so they
  // are never queued behind the data they throttle.
  profile.ets.prio_tc = {0, 1, 2, 3, 4, 5, 6, 7};
  profile.ets.tsa.fill(dcb::Tsa::Ets);
  profile.ets.tsa[6] = dcb::Tsa::Strict;
  profile.ets.bandwidth = {10, 10, 10, 50, 10, 5, 0, 5};
  return profile;
}

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

std::string Diagnostic::to_string() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  out += ": ";
  if (severity == Severity::Warning) out += "warning: ";
  if (!field.empty()) out += field + ": ";
  return out + message;
}

}  // namespace roced::config
