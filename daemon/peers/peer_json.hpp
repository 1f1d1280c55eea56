// SPDX-License-Identifier: Apache-2.0
#pragma once
// A port's peer in the status document (docs/status-json.md, "peer"), and as the metrics take it.

#include <nlohmann/json.hpp>

#include "daemon/peers/peer_watch.hpp"
#include "telemetry/peer_stats.hpp"

namespace roced::peers {

nlohmann::ordered_json peer_to_json(const PortPeer& peer);
telemetry::PeerStats peer_stats(const PortPeer& peer);

}  // namespace roced::peers
