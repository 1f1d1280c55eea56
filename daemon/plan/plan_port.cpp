// SPDX-License-Identifier: Apache-2.0
// plan_port: desired against observed for one port, the settings table's rows in Setting order,
// then the GID check, which is no setting. Pure: it reads only its arguments.
#include <algorithm>
#include <iterator>

#include "daemon/plan/planner.hpp"
#include "daemon/settings/spec.hpp"

namespace roced::plan {

namespace detail {

void PortPlanner::change(Setting setting, std::string now, std::string wanted, std::string key) {
  Change change;
  change.setting = setting;
  change.key = std::move(key);
  change.now = std::move(now);
  change.wanted = std::move(wanted);
  out.changes.push_back(std::move(change));
}

void PortPlanner::disruptive_change(Setting setting, std::string now, std::string wanted,
                                    std::string disruption) {
  change(setting, std::move(now), std::move(wanted));
  out.changes.back().disruptive = true;
  out.changes.back().disruption = std::move(disruption);
}

void PortPlanner::unsupported(Setting setting, std::string reason, std::string key) {
  out.unsupported.push_back(Unsupported{setting, std::move(key), std::move(reason)});
}

void PortPlanner::read_error(const std::string& what, const std::string& reason) {
  // Several settings share one read (DCB): say it once.
  const std::string message = "cannot read " + what + ": " + reason;
  if (out.error.find(message) != std::string::npos) return;
  if (!out.error.empty()) out.error += "; ";
  out.error += message;
}

}  // namespace detail

PortPlan plan_port(const DiscoveredPort& port, const config::Profile& desired,
                   const PortStatus& observed) {
  PortPlan out;
  out.port = port;
  out.desired = desired;
  out.observed = observed;
  if (!observed.link.ok()) {
    // No link, no port to plan: every other read is suspect.
    detail::PortPlanner planner{desired, observed, out};
    planner.read_error("the link", observed.link.reason);
    return out;
  }
  detail::PortPlanner planner{desired, observed, out};
  settings::Findings found;
  if (port.is_mlx5()) {
    for (const settings::Row& row : settings::rows()) row.plan(port, desired, observed, found);
  } else {
    // roced's DCB, stall prevention and ECN semantics are mlx5's: reported unsupported.
    detail::plan_mlx5_only_unsupported(planner);
    for (const settings::Row& row : settings::rows()) {
      if (row.info->scope == settings::Scope::AnyRoce) row.plan(port, desired, observed, found);
    }
  }
  out.changes = std::move(found.changes);
  out.unsupported.insert(out.unsupported.end(), std::make_move_iterator(found.unsupported.begin()),
                         std::make_move_iterator(found.unsupported.end()));
  out.warnings = std::move(found.warnings);
  out.error = std::move(found.error);
  detail::plan_gid(planner);
  // The applier rolls back to `observed`: what could not be read cannot be changed safely.
  if (!out.error.empty()) out.changes.clear();
  std::stable_sort(out.changes.begin(), out.changes.end(),
                   [](const Change& a, const Change& b) { return a.setting < b.setting; });
  return out;
}

}  // namespace roced::plan
