#pragma once
// Sampling one port: ethtool statistics, RDMA hw_counters and link state, each source read
// independently so one failure does not hide the others.

#include "daemon/discovery.hpp"
#include "netlink/system.hpp"
#include "telemetry/sample.hpp"

namespace roced::telemetry {

PortSample sample_port(System& system, const DiscoveredPort& port);

}  // namespace roced::telemetry
