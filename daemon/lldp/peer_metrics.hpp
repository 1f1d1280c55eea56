// SPDX-License-Identifier: Apache-2.0
#pragma once
// The peer watch's metric families (docs/metrics.md): who each port's switch port is, the
// comparison's state and findings, and the LLDP frames heard and dropped.

#include <vector>

#include "daemon/lldp/peer_watch.hpp"
#include "telemetry/exposition.hpp"

namespace roced::lldp {

void add_peer_families(telemetry::ExpositionWriter& out, const std::vector<PortPeer>& peers);

}  // namespace roced::lldp
