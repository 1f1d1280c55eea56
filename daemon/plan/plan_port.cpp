// SPDX-License-Identifier: Apache-2.0
// plan_port: desired against observed for one port. The settings table plans each setting; this
// file frames the port (the link first), runs the rows in Setting order and adds the GID check,
// which is no setting. Pure: it reads only its arguments.
#include <algorithm>

#include "daemon/plan/plan.hpp"
#include "daemon/settings/spec.hpp"
#include "rdma/gid.hpp"

namespace roced::plan {

namespace {

// No change: the RoCE v2 GID index of the configured family, and its warnings.
void plan_gid(const config::Profile& want, const PortStatus& have, PortPlan& out) {
  const Field<GidStatus>& gids = have.gids;
  if (!gids.ok()) {
    // No RDMA device is already reported by the rdma_cm settings; anything else is worth a word.
    if (!gids.unsupported_here())
      out.findings.push_back(finding::cannot_tell(kGidTableUnreadable, out.port.netdev,
                                                  "cannot read the GID table: " + gids.error));
    return;
  }
  const std::string& family = want.roce.gid_family;
  const auto entry = family == "ipv6"
                         ? rdma::roce_v2_ipv6_entry(gids.value->entries, out.port.netdev)
                         : rdma::roce_v2_ipv4_entry(gids.value->entries, out.port.netdev);
  const auto& jobs_use = want.roce.gid_index;
  if (!entry) {
    std::string warning = "no RoCE v2 GID with an " +
                          std::string(family == "ipv6" ? "IPv6" : "IPv4") + " address on " +
                          out.port.netdev;
    if (jobs_use) warning += ", the config says jobs use " + std::to_string(*jobs_use);
    const GidStatus& table = *gids.value;
    if (table.slots > 0 && table.entries.size() >= table.slots) {
      warning += ": the GID table is full (" + std::to_string(table.slots) + " entries";
      if (table.foreign.count > 0) {
        std::string names;
        for (const auto& name : table.foreign.netdevs) names += (names.empty() ? "" : ", ") + name;
        warning += ", " + std::to_string(table.foreign.count) +
                   " of them of netdevs in other network namespaces: " + names + ", pods";
      }
      warning += "), so the kernel had no entry left for the address";
    }
    out.findings.push_back(finding::make(kNoRocev2Gid, out.port.netdev, warning,
                                         jobs_use ? std::to_string(*jobs_use) : std::string(),
                                         "none"));
    return;
  }
  out.roce_v2_gid_index = entry->index;
  if (jobs_use && *jobs_use != entry->index) {
    out.findings.push_back(finding::make(kGidIndexMoved, out.port.netdev,
                                         "RoCE v2 GID index is " + std::to_string(entry->index) +
                                             ", the config says jobs use " +
                                             std::to_string(*jobs_use),
                                         std::to_string(*jobs_use), std::to_string(entry->index)));
  }
}

}  // namespace

PortPlan plan_port(const DiscoveredPort& port, const config::Profile& desired,
                   const PortStatus& observed) {
  PortPlan out;
  out.port = port;
  out.desired = desired;
  out.observed = observed;
  settings::Planned found;
  if (!observed.link.ok()) {
    // No link, no port to plan: every other read is suspect.
    found.read_error("the link", observed.link.reason);
    out.error = std::move(found.error);
    return out;
  }
  for (const settings::Row& row : settings::rows()) row.plan(port, desired, observed, found);
  out.changes = std::move(found.changes);
  out.unsupported = std::move(found.unsupported);
  out.findings = std::move(found.findings);
  out.error = std::move(found.error);
  plan_gid(desired, observed, out);
  // What could not be read is not changed (no change was planned for it: the applier could not
  // roll it back); every other setting still is.
  out.partly_read = !out.error.empty();
  // Rows run in Setting order already; the sort keeps the contract if a row ever plans late.
  std::stable_sort(out.changes.begin(), out.changes.end(),
                   [](const Change& a, const Change& b) { return a.setting < b.setting; });
  return out;
}

}  // namespace roced::plan
