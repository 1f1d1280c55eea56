// SPDX-License-Identifier: Apache-2.0
// The RoCE v2 GID index: no setting, a check and its warnings.
#include "daemon/plan/planner.hpp"
#include "rdma/gid.hpp"

namespace roced::plan::detail {

void plan_gid(PortPlanner& p) {
  const Field<GidStatus>& gids = p.have.gids;
  if (!gids.ok()) {
    // No RDMA device is already reported by the rdma_cm settings; anything else is worth a word.
    if (!gids.unsupported_here()) p.warn("cannot read the GID table: " + gids.error);
    return;
  }
  const std::string& family = p.want.roce.gid_family;
  const auto entry = family == "ipv6"
                         ? rdma::roce_v2_ipv6_entry(gids.value->entries, p.out.port.netdev)
                         : rdma::roce_v2_ipv4_entry(gids.value->entries, p.out.port.netdev);
  const auto& jobs_use = p.want.roce.gid_index;
  if (!entry) {
    std::string warning = "no RoCE v2 GID with an " +
                          std::string(family == "ipv6" ? "IPv6" : "IPv4") + " address on " +
                          p.out.port.netdev;
    if (jobs_use) warning += ", the config says jobs use " + std::to_string(*jobs_use);
    p.warn(warning);
    return;
  }
  p.out.roce_v2_gid_index = entry->index;
  if (jobs_use && *jobs_use != entry->index) {
    p.warn("RoCE v2 GID index is " + std::to_string(entry->index) + ", the config says jobs use " +
           std::to_string(*jobs_use));
  }
}

}  // namespace roced::plan::detail
