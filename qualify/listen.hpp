// SPDX-License-Identifier: Apache-2.0
#pragma once
// The switch's side, asked of the real NIC: does the LLDP the switch sends reach the netdev,
// where roced's peer watch listens (AF_PACKET)? In firmware DCBX mode mlx5's own agent speaks
// LLDP, and whether it also passes the frames up is not in any driver source: only a real port
// answers it.
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "os/system.hpp"
#include "qualify/observe.hpp"
#include "qualify/report.hpp"
#include "util/stop_signal.hpp"
#include "util/time_source.hpp"

namespace roced::qualify {

// Listens on every observed port at once for `how_long` (or until each has heard a frame, or a
// stop) and judges each: the check `switch_lldp_heard`, keyed by netdev. The evidence names
// what the switch advertises and how it differs from the port, never the switch's names.
std::map<std::string, Check> listen_for_switches(System& system, TimeSource& time,
                                                 const StopSignal& stop,
                                                 const std::vector<Observation>& ports,
                                                 std::chrono::seconds how_long);

}  // namespace roced::qualify
