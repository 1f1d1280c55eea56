// SPDX-License-Identifier: Apache-2.0
#include "daemon/plan/findings.hpp"

#include <array>

#include "daemon/plan/plan.hpp"
#include "daemon/settings/findings.hpp"

namespace roced::plan {

namespace {
constexpr std::array<const finding::Kind*, 4> kKinds = {&kGidTableUnreadable, &kNoRocev2Gid,
                                                        &kGidIndexMoved, &kLagSlavesDiffer};
}  // namespace

std::vector<finding::Finding> findings_of(const PortPlan& plan) {
  std::vector<finding::Finding> out = plan.findings;
  for (const auto& item : plan.unsupported) {
    out.push_back(settings::unsupported_finding(item, plan.port.netdev));
  }
  return out;
}

std::span<const finding::Kind* const> kinds() { return kKinds; }

}  // namespace roced::plan
