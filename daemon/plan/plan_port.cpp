// SPDX-License-Identifier: Apache-2.0
// plan_port: desired against observed for one port, one function per setting, in Setting order.
// Pure: it reads only its arguments.
#include <algorithm>

#include "daemon/plan/planner.hpp"
#include "daemon/settings/spec.hpp"

namespace roced::plan {

namespace detail {

namespace {

constexpr const char* kMtuChannelReset =
    "mlx5 rebuilds its channels on an MTU change (mlx5e_change_mtu -> "
    "mlx5e_safe_switch_params): traffic stops briefly, the link stays up";
constexpr const char* kMtuQueueRestart =
    "drivers may restart their queues on an MTU change: traffic can stop briefly";
// Below this the RoCE path MTU cannot be 4096 (4096 payload + RoCE v2 headers).
constexpr uint32_t kRoceMtuFloor = 4200;

}  // namespace

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

void plan_mtu(PortPlanner& p) {
  const LinkInfo& link = *p.have.link.value;
  const uint32_t want = p.want.mtu;
  if (want < kRoceMtuFloor) {
    p.warn("MTU " + std::to_string(want) + " < " + std::to_string(kRoceMtuFloor) +
           ": the RoCE path MTU drops below 4096");
  }
  if (link.mtu == want) return;
  if (link.max_mtu != 0 && want > link.max_mtu) {
    p.unsupported(Setting::Mtu, "MTU " + std::to_string(want) + " is above this link's maximum " +
                                    std::to_string(link.max_mtu));
    return;
  }
  if (link.min_mtu != 0 && want < link.min_mtu) {
    p.unsupported(Setting::Mtu, "MTU " + std::to_string(want) + " is below this link's minimum " +
                                    std::to_string(link.min_mtu));
    return;
  }
  p.disruptive_change(Setting::Mtu, std::to_string(link.mtu), std::to_string(want),
                      p.out.port.is_mlx5() ? kMtuChannelReset : kMtuQueueRestart);
}

void plan_stall_prevention(PortPlanner& p) {
  const auto* stall =
      p.need(p.have.stall_prevention, Setting::StallPrevention, "PFC stall prevention");
  if (!stall) return;
  const uint16_t want = p.want.stall_prevention.tunable_value();
  // Auto and a manual 100 ms read back alike; either satisfies the other.
  if (StallPrevention::same_setting(stall->raw, want)) return;
  p.change(Setting::StallPrevention, describe::stall(stall->raw), describe::stall(want));
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
  if (port.is_mlx5()) {
    // The settings whose rows are written (DCB) plan from the settings table.
    settings::Findings found;
    for (const settings::Row& row : settings::rows()) {
      if (row.plan) row.plan(port, desired, observed, found);
    }
    out.changes = std::move(found.changes);
    out.unsupported = std::move(found.unsupported);
    out.warnings = std::move(found.warnings);
    out.error = std::move(found.error);
    detail::plan_mtu(planner);
    detail::plan_stall_prevention(planner);
    detail::plan_ecn(planner);
  } else {
    detail::plan_mlx5_only_unsupported(planner);
    detail::plan_mtu(planner);
  }
  detail::plan_rdma_cm(planner);
  detail::plan_gid(planner);
  // The applier rolls back to `observed`: what could not be read cannot be changed safely.
  if (!out.error.empty()) out.changes.clear();
  std::stable_sort(out.changes.begin(), out.changes.end(),
                   [](const Change& a, const Change& b) { return a.setting < b.setting; });
  return out;
}

}  // namespace roced::plan
