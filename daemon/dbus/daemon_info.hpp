// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the daemon tells about itself on the bus (read-only properties): which build, which config
// file, which node. rocectl uses them to decide whether this daemon can answer for it.

#include <functional>
#include <string>
#include <vector>

#include "daemon/lldp/peer_watch.hpp"
#include "daemon/plan/plan.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "daemon/watchdog/storm_watchdog.hpp"

namespace roced::dbus {

// The configuration file as it is on disk now, planned without being taken (GetPendingPlan).
struct PendingPlan {
  std::vector<std::string> diagnostics;  // file:line:column: field: message; errors mean invalid
  bool valid = false;
  std::vector<std::string> changed_sections;  // against the running configuration
  plan::Plan plan;                            // when valid
};

struct DaemonInfo {
  std::string version;      // ROCED_VERSION
  std::string config_path;  // the file roced was started with; Reload() reads it again
  // The simulated node's directory (absolute, canonical) when roced runs with --sim DIR; empty on
  // the real machine.
  std::string sim_dir;
  std::string source;  // System::description: "this machine", "simulated node at DIR"
  // How Reload() reloads: roced's service, so STATUS=, the logs and the log level follow as for
  // SIGHUP. Empty: the reconciler reloads config_path itself.
  std::function<reconcile::ReloadResult()> reload;
  // The PFC storm watchdog, when it runs: GetStorms and the Storm* signals. Outlives the API.
  watchdog::StormWatchdog* storms = nullptr;
  // The switch at each port's other end (GetStatus's "peer"), when it runs. Outlives the API.
  lldp::PeerWatch* peers = nullptr;
  // What the daemon's modules find not as it should be (the switch's differences, ...), each
  // listed under the port it names. Empty: none.
  std::function<std::vector<finding::Finding>()> findings = {};
  // GetPendingPlan: the file on disk planned without being taken. Empty: the running plan.
  std::function<PendingPlan()> pending_plan = {};
  // The daemon's one-line status (STATUS=: the reconciler's, and a failed reload's problem).
  // Empty: the reconciler's.
  std::function<std::string()> status_line = {};
};

}  // namespace roced::dbus
