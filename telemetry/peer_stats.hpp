// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the switch at the other end of each port says about itself, and how it differs from the
// port: the daemon's state (daemon/peers), turned into metric families by metric_families.cpp
// (docs/metrics.md).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace roced::telemetry {

struct PeerFindingStats {
  std::string name;      // "pfc_priorities"
  std::string severity;  // "mismatch", "notice"
  std::string host;      // "3"
  std::string peer;      // "4"
};

struct PeerStats {
  std::string netdev;
  std::string state;  // "compared", "no_peer", "no_dcbx", "firmware_dcbx", "not_listening"
  // The switch port, when one is heard (text from the wire, made printable by the decoder).
  std::string system_name;
  std::string port_id;
  std::string port_description;
  std::string chassis_id;
  std::vector<PeerFindingStats> findings;
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
