// SPDX-License-Identifier: Apache-2.0
#pragma once
// GetStatus()'s document: the reconciler's view of every port (condition, what drifted, the last
// apply, failures) with what was read back. The shape is a contract: docs/status-json.md.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "daemon/dbus/daemon_info.hpp"
#include "daemon/lldp/peer_watch.hpp"
#include "daemon/reconcile/reconciler.hpp"

namespace roced::dbus {

// "2024-05-01T12:00:00Z"; UTC, whole seconds.
std::string iso_time(reconcile::Clock::time_point when);

nlohmann::ordered_json port_snapshot_to_json(const reconcile::PortSnapshot& snapshot);

// Pure: no I/O, so the shape is unit-tested without a bus.
// `peers`: what the peer watch knows of each port's switch, by netdev: the port's "peer"
// (daemon/lldp/peer_json.hpp, null without one). `findings`: the modules' (the switch's
// differences among them), each joining the findings of the port it names as its subject.
nlohmann::ordered_json status_to_json(const DaemonInfo& info, const std::string& status_line,
                                      const std::vector<reconcile::PortSnapshot>& ports,
                                      const reconcile::SelectionReport& selection = {},
                                      const std::map<std::string, lldp::PortPeer>& peers = {},
                                      const std::vector<finding::Finding>& findings = {});

}  // namespace roced::dbus
