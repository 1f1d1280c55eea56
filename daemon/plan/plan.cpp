// SPDX-License-Identifier: Apache-2.0
// The Plan's aggregates and the two entry points that read the system: make_plan (every
// selected port) and replan_port (one port, for the applier's verification and drift checks).
#include "daemon/plan/plan.hpp"

#include <algorithm>

#include "daemon/plan/planning_system.hpp"
#include "daemon/settings/profile_reader.hpp"
#include "daemon/settings/spec.hpp"
#include "port/gid_owners.hpp"

namespace roced::plan {

namespace {

namespace fs = std::filesystem;
const fs::path kClassNet = "/sys/class/net";

bool has_glob(const std::string& pattern) {
  return pattern.find_first_of("*?[") != std::string::npos;
}

// The netdev's driver (basename of device/driver), read before the full discovery so ports the
// selection drops cost one readlink (and a look for their own RDMA device).
std::string driver_of(const FileTree& files, const std::string& netdev) {
  auto target = files.read_link(kClassNet / netdev / "device" / "driver");
  if (!target) return {};
  return target->lexically_normal().filename().string();
}

// Planning reads only what it compares: the driver info (its tree decides how some settings
// behave), no hw_counters, and the GID table only up to the entry it looks for.
StatusOptions planning_reads() {
  StatusOptions options;
  options.hw_counters = false;
  options.gid_table = false;
  return options;
}

// The GID table from index 0 up to this netdev's RoCE v2 entry of `family` (all of it when there
// is none): plan_gid picks the same entry from it as from the whole table, after reading a few
// slots instead of 255.
Field<GidStatus> read_gids_for_plan(System& system, const DiscoveredPort& port,
                                    const std::string& family) {
  const FileTree& files = *system.files;
  const auto select = family == "ipv6" ? rdma::roce_v2_ipv6_entry : rdma::roce_v2_ipv4_entry;
  auto owners = GidOwners::of(system);
  auto table = rdma::read_gid_table_until(
      files, port.rdma_device, port.rdma_port, [&](const rdma::GidEntry& entry) {
        const auto match = select({entry}, port.netdev);
        return match && match->ndev == port.netdev && !owners.elsewhere(entry);
      });
  if (!table) {
    return Field<GidStatus>::from(table.error(), "the GID table");
  }
  owners.mark(*table);
  GidStatus status{"sysfs", std::move(*table)};
  if (!select(status.entries, port.netdev)) {  // read to the end: say why there is none
    status.slots = rdma::gid_table_slots(files, port.rdma_device, port.rdma_port).value_or(0);
    status.foreign = rdma::foreign_entries(files, status.entries);
  }
  return Field<GidStatus>::of(std::move(status));
}

// `system` is a planning_view: its requests share one rtnetlink socket.
PortPlan read_and_plan(System& system, const DiscoveredPort& port, const config::Profile& desired) {
  PortStatus observed = read_port_status(system, port, planning_reads());
  if (!port.rdma_device.empty()) {
    observed.gids = read_gids_for_plan(system, port, desired.roce.gid_family);
  }
  return plan_port(port, desired, observed);
}

// The keys whose values a RoCE LAG's slaves are given differently, among those the slaves must
// share (SettingInfo::slaves_agree).
std::vector<std::string> slave_differences(const config::Profile& a, const config::Profile& b) {
  std::vector<std::string> differ;
  for (const settings::ProfileKey& key : settings::profile_keys()) {
    if (key.slaves_agree && !key.same(a, b)) differ.emplace_back(key.key);
  }
  return differ;
}

// A warning on each RoCE LAG bond whose slaves the configuration gives different DCB.
void warn_when_slaves_differ(Plan& plan, const config::Config& config,
                             const DesiredProfile& desired) {
  const auto profile_of = [&](const std::string& netdev) {
    return desired ? desired(netdev) : config.profile_for(netdev);
  };
  for (PortPlan& port : plan.ports) {
    if (!port.port.is_lag_bond() || port.port.slaves.size() < 2) continue;
    const std::string& first = port.port.slaves.front();
    const config::Profile reference = profile_of(first);
    for (size_t i = 1; i < port.port.slaves.size(); ++i) {
      const auto differ = slave_differences(reference, profile_of(port.port.slaves[i]));
      if (differ.empty()) continue;
      std::string keys;
      for (const auto& key : differ) keys += (keys.empty() ? "" : ", ") + key;
      finding::Finding differs =
          finding::make(kLagSlavesDiffer, port.port.netdev,
                        "the RoCE LAG's slaves " + first + " and " + port.port.slaves[i] +
                            " are given different " + keys +
                            ": flows hashed to one slave would not be treated as on the other");
      differs.about = keys;
      port.findings.push_back(std::move(differs));
    }
  }
}

// The "set on its slaves" lines of a bond with unmanaged slaves name only those that are.
void name_managed_slaves(Plan& plan) {
  const auto managed = [&](const std::string& netdev) {
    return std::any_of(plan.ports.begin(), plan.ports.end(),
                       [&](const PortPlan& port) { return port.port.netdev == netdev; });
  };
  for (PortPlan& port : plan.ports) {
    if (!port.port.is_lag_bond()) continue;
    std::string with;
    std::string without;
    for (const auto& slave : port.port.slaves) {
      std::string& list = managed(slave) ? with : without;
      list += (list.empty() ? "" : ", ") + slave;
    }
    if (without.empty()) continue;
    for (auto& item : port.unsupported) {
      if (item.kind != settings::Lacking::RoceLag) continue;
      item.reason = "a bond has no DCB of its own: set on its managed slaves (" +
                    (with.empty() ? std::string("none") : with) + "), not on " + without;
    }
  }
}

}  // namespace

std::string setting_group_name(Setting setting) { return std::string(settings::key_of(setting)); }

const std::vector<Setting>& all_settings() {
  static const std::vector<Setting> all = [] {
    std::vector<Setting> out;
    for (const settings::SettingInfo& row : settings::kSettings) out.push_back(row.id);
    return out;
  }();
  return all;
}

bool profile_manages(const config::Profile& profile, Setting setting) {
  return settings::row(setting).manages(profile);
}

std::vector<std::pair<std::string, std::string>> elsewhere_by_reason(
    const std::vector<Unsupported>& unsupported) {
  std::vector<std::pair<std::string, std::string>> grouped;  // settings, reason
  for (const auto& u : unsupported) {
    if (u.kind != settings::Lacking::RoceLag) continue;
    auto it = std::find_if(grouped.begin(), grouped.end(),
                           [&](const auto& entry) { return entry.second == u.reason; });
    if (it == grouped.end()) it = grouped.insert(grouped.end(), {std::string(), u.reason});
    it->first += (it->first.empty() ? "" : ", ") + setting_name(u.setting, u.key);
  }
  return grouped;
}

bool PortPlan::disruptive() const {
  return std::any_of(changes.begin(), changes.end(), [](const Change& c) { return c.disruptive; });
}

bool Plan::has_changes() const {
  return std::any_of(ports.begin(), ports.end(),
                     [](const PortPlan& port) { return !port.changes.empty(); });
}

bool Plan::has_errors() const {
  return !error.empty() || std::any_of(ports.begin(), ports.end(),
                                       [](const PortPlan& port) { return !port.error.empty(); });
}

PortPlan replan_port(System& system, const DiscoveredPort& port, const config::Profile& desired) {
  System view = planning_view(system);
  return read_and_plan(view, port, desired);
}

Plan make_plan(System& caller_system, const config::Config& config, const DesiredProfile& desired) {
  System system = planning_view(caller_system);
  Plan plan;
  plan.source = system.description;
  plan.config_path = config.path;
  const FileTree& files = *system.files;
  for (const auto& name : config.ports.netdevs) {
    if (!has_glob(name) && !files.exists(kClassNet / name)) plan.not_found.push_back(name);
  }
  auto names = files.list(kClassNet);
  if (!names) {
    plan.error = "cannot list the network interfaces: " + names.error().message;
    return plan;
  }
  NetdevDescriber describer(files);
  for (const auto& name : *names) {
    // /sys/class/net also holds plain files (bonding_masters): a netdev has an ifindex.
    if (!files.exists(kClassNet / name / "ifindex")) continue;
    // The RDMA driver only when the netdev's own does not settle it: most netdevs are mlx5's.
    const std::string driver = driver_of(files, name);
    if (!config.ports.selects(name, driver) &&
        !config.ports.selects(name, driver, read_own_rdma_driver(files, name))) {
      continue;
    }
    auto port = describer.describe(name);
    if (!port) continue;  // vanished since the listing
    if (!config.ports.selects(*port)) {
      plan.not_managed.push_back({name, port->role_detail, port->parent, port->role});
      continue;
    }
    plan.ports.push_back(
        read_and_plan(system, *port, desired ? desired(name) : config.profile_for(name)));
  }
  warn_when_slaves_differ(plan, config, desired);
  std::vector<DiscoveredPort> managed;
  for (const auto& port : plan.ports) managed.push_back(port.port);
  for (auto& found : unmanaged_slave_findings(managed)) {
    for (auto& port : plan.ports) {
      if (port.port.netdev == found.subject) port.findings.push_back(found);
    }
  }
  name_managed_slaves(plan);
  return plan;
}

}  // namespace roced::plan
