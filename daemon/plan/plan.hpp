// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Plan: desired (the config's profile for a port) against observed (read back from the NIC),
// as an ordered list of changes. It is the one thing `rocectl plan`, `rocectl apply --check
// --diff`, the logs and the D-Bus API show, and what the applier executes.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "daemon/config/config.hpp"
#include "daemon/plan/findings.hpp"
#include "daemon/settings/outcome.hpp"
#include "daemon/settings/setting.hpp"
#include "os/system.hpp"
#include "port/discovery.hpp"
#include "port/status.hpp"

namespace roced::plan {

// The settings, in the order the applier writes them, and their names: the settings table
// (daemon/settings/setting.hpp), under the name the rest of the daemon has always used.
using settings::Setting;
// The profile's YAML key under `profile:`, so a plan line leads straight to the config:
// "dcbx", "pfc.priorities", ..., "ecn.dcqcn.<key>" (the table's key, and the knob for DCQCN).
// The table's own function, so a call that finds it by argument lookup finds the same one.
using settings::setting_name;
// The config key of the setting without a knob: "ecn.dcqcn" for every DCQCN knob.
std::string setting_group_name(Setting setting);
// Every Setting, in apply order.
const std::vector<Setting>& all_settings();
// Whether `profile` asks for the setting at all (the setting's row decides): buffers,
// per-priority ECN and DCQCN knobs are left to the driver unless named, the DSCP map means
// something only under DSCP trust; every other setting always has a wanted value.
bool profile_manages(const config::Profile& profile, Setting setting);

// A change, and a setting this port cannot take (DCB on a veth, no stall prevention in firmware,
// the inbox driver's lack of per-priority ECN enable): reported, never a failure of the run. The
// settings table's types (daemon/settings/outcome.hpp).
using settings::Change;
using settings::Unsupported;
// What another netdev of a bond holds (Lacking::RoceLag), once per reason with its settings
// ("dcbx, trust, ..."): a bond's slaves carry its DCB, a LAG's bond its RDMA device.
std::vector<std::pair<std::string, std::string>> elsewhere_by_reason(
    const std::vector<Unsupported>& unsupported);

struct PortPlan {
  DiscoveredPort port;
  config::Profile desired;
  PortStatus observed;          // what the changes were computed from; the applier rolls back to it
  std::vector<Change> changes;  // in Setting order
  std::vector<Unsupported> unsupported;
  // What no change fixes: the GID jobs use, an MTU below RoCE's, slaves that differ (findings.hpp).
  std::vector<finding::Finding> findings;
  std::optional<int> roce_v2_gid_index;  // of the configured family, when found
  std::string error;  // what could not be read: the link (nothing planned), or some settings
  // `error` names only some settings (their reads failed); the changes of the others stand and
  // are applied. A port is never left unconfigured because one unrelated part cannot be read.
  bool partly_read = false;

  bool in_sync() const { return error.empty() && changes.empty(); }
  bool disruptive() const;
};

struct Plan {
  std::string source;  // System::description
  std::string config_path;
  std::vector<PortPlan> ports;         // the selected ports, in discovery order
  std::vector<std::string> not_found;  // selected names (not globs) that are no netdev here
  // Functions of a port a glob matched and roced leaves alone.
  struct NotManaged {
    std::string netdev;  // "lan2v3"
    std::string role;    // "VF 3 of lan2" (DiscoveredPort::role_detail)
    std::string parent;  // "lan2" for a VF or representor; empty for the others and from JSON
    PortRole kind = PortRole::Vf;
    std::string text() const { return netdev + " (" + role + ")"; }  // as plan JSON has it
  };
  std::vector<NotManaged> not_managed;
  std::string error;  // the ports could not be listed at all

  bool has_changes() const;
  bool has_errors() const;
};

// Pure: no I/O. The unit tests' entry point.
PortPlan plan_port(const DiscoveredPort& port, const config::Profile& desired,
                   const PortStatus& observed);

// The profile a port is planned against: the config's own, or (in the daemon) with the storm
// watchdog's hold applied.
using DesiredProfile = std::function<config::Profile(const std::string& netdev)>;

// Discovers the ports the config selects, reads each one, plans it (against `desired` when given).
Plan make_plan(System& system, const config::Config& config, const DesiredProfile& desired = {});
// Re-reads and re-plans one port (the applier's verification and the daemon's drift check).
PortPlan replan_port(System& system, const DiscoveredPort& port, const config::Profile& desired);

// How text output looks: colour (ANSI SGR) for what takes links down, on a terminal.
struct TextStyle {
  bool colour = false;
};
// Per port, or per group of ports with the same plan: changes as "setting  now -> wanted".
std::string format_plan_text(const Plan& plan, const TextStyle& style = {});
// The plan document's version, its first key: a change that could break a reader makes a new one.
inline constexpr const char* kPlanSchema = "roced.plan/v1";
nlohmann::ordered_json plan_to_json(const Plan& plan);

}  // namespace roced::plan
