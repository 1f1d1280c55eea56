// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the switch at the other end of each port says about itself, and how it differs from the
// port: the daemon's state (daemon/peers), turned into metric families by metric_families.cpp
// (docs/metrics.md).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "finding/finding.hpp"

namespace roced::telemetry {

struct PeerStats {
  std::string netdev;
  std::string state;  // "compared", "no_peer", "no_dcbx", "firmware_dcbx", "not_listening"
  // The switch port, when one is heard (text from the wire, made printable by the decoder).
  std::string system_name;
  std::string port_id;
  std::string port_description;
  std::string chassis_id;
  std::vector<finding::Finding> findings;  // served in roced_finding with the port's own
  uint64_t frames = 0;
  std::map<std::string, uint64_t> dropped;  // by reason
};

// Every state a port's peer can be in, for a state family with one series each.
inline const std::vector<std::string>& peer_states() {
  static const std::vector<std::string> states = {"compared", "no_peer", "no_dcbx", "firmware_dcbx",
                                                  "not_listening"};
  return states;
}

}  // namespace roced::telemetry
