// SPDX-License-Identifier: Apache-2.0
#pragma once
// Internal to the applier: the port as the applier writes and reads it, one call per write
// request (settings::PortDevice). SystemPortDevice speaks DCB netlink, rtnetlink, ethtool and
// files through a System; the unit tests put an in-memory port behind the same calls.

#include <memory>
#include <string>
#include <vector>

#include "daemon/apply/applier.hpp"
#include "daemon/settings/device.hpp"
#include "dcb/types.hpp"
#include "port/status.hpp"
#include "rdma/ecn.hpp"

namespace roced::apply {

using PortDevice = settings::PortDevice;  // daemon/settings/device.hpp

// The real thing (or roce-sim): every request of one port over one rtnetlink socket.
std::unique_ptr<PortDevice> system_port_device(System& system, const DiscoveredPort& port);

// apply_port on any device: the unit tests' entry point.
PortResult apply_port_on(PortDevice& device, const plan::PortPlan& port_plan,
                         const ApplyOptions& options);

}  // namespace roced::apply
