// SPDX-License-Identifier: Apache-2.0
#include "daemon/plan/findings.hpp"

#include <algorithm>
#include <array>

#include "daemon/plan/plan.hpp"
#include "daemon/settings/findings.hpp"

namespace roced::plan {

namespace {
constexpr std::array<const finding::Kind*, 5> kKinds = {
    &kGidTableUnreadable, &kNoRocev2Gid, &kGidIndexMoved, &kLagSlavesDiffer, &kLagSlaveUnmanaged};
}  // namespace

std::vector<finding::Finding> findings_of(const PortPlan& plan) {
  std::vector<finding::Finding> out = plan.findings;
  for (const auto& item : plan.unsupported) {
    out.push_back(settings::unsupported_finding(item, plan.port.netdev));
  }
  return out;
}

std::span<const finding::Kind* const> kinds() { return kKinds; }

std::vector<finding::Finding> unmanaged_slave_findings(const std::vector<DiscoveredPort>& managed) {
  const auto is_managed = [&](const std::string& netdev) {
    return std::any_of(managed.begin(), managed.end(),
                       [&](const DiscoveredPort& port) { return port.netdev == netdev; });
  };
  std::vector<finding::Finding> out;
  for (const auto& bond : managed) {
    if (!bond.is_lag_bond()) continue;
    std::string with;
    std::string without;
    for (const auto& slave : bond.slaves) {
      std::string& list = is_managed(slave) ? with : without;
      list += (list.empty() ? "" : ", ") + slave;
    }
    if (without.empty()) continue;
    finding::Finding found = finding::make(
        kLagSlaveUnmanaged, bond.netdev,
        "the RoCE LAG's slave " + without + " is not managed: DCB is set on " +
            (with.empty() ? std::string("no slave") : with) + " only, so flows hashed to " +
            without + " are lossy, and an MTU change on " + bond.netdev + " changes " + without +
            "'s too (the bonding driver sets every slave's)");
    found.about = without;
    out.push_back(std::move(found));
  }
  return out;
}

}  // namespace roced::plan
