// SPDX-License-Identifier: Apache-2.0
#pragma once
// A port's peer in the status document (docs/status-json.md, "peer").

#include <nlohmann/json.hpp>

#include "daemon/lldp/peer_watch.hpp"

namespace roced::lldp {

nlohmann::ordered_json peer_to_json(const PortPeer& peer);

}  // namespace roced::lldp
