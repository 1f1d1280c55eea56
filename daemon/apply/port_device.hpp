// SPDX-License-Identifier: Apache-2.0
#pragma once
// Internal to the applier: the port as the applier writes and reads it (settings::PortDevice:
// its reads and one call for any write::Write). SystemPortDevice reads and writes through a
// System; the unit tests put a scripted device in front of it.

#include <memory>
#include <string>
#include <vector>

#include "daemon/apply/applier.hpp"
#include "daemon/settings/device.hpp"
#include "dcb/types.hpp"
#include "port/status.hpp"

namespace roced::apply {

using PortDevice = settings::PortDevice;  // daemon/settings/device.hpp

// The real thing (or roce-sim): every request of one port over one rtnetlink socket.
std::unique_ptr<PortDevice> system_port_device(System& system, const DiscoveredPort& port);

// apply_port on any device: the unit tests' entry point.
PortResult apply_port_on(PortDevice& device, const plan::PortPlan& port_plan,
                         const ApplyOptions& options);

}  // namespace roced::apply
