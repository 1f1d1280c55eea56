// SPDX-License-Identifier: Apache-2.0
#pragma once
// The status document (docs/status-json.md): one shape whoever answers. roced fills a port's
// reconcile keys (condition, drift, last apply...) from its memory; rocectl reading the ports
// itself has no such view and leaves the same keys null, so a script reads both alike.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "port/discovery.hpp"
#include "port/status.hpp"

namespace roced {

// The status document's version, its first key: a change that could break a reader makes a new
// one (keys are only ever added within a version).
inline constexpr const char* kStatusSchema = "roced.status/v1";

// roced's judgement of a port. Without roced every key is null (warnings, findings empty).
struct PortView {
  nlohmann::ordered_json condition = nullptr;  // "in-sync", "drifted", ...
  nlohmann::ordered_json drift = nullptr;      // [{setting, now, wanted, disruptive}]
  nlohmann::ordered_json unsupported = nullptr;
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  // Everything roced finds not as it should be on the port (finding::to_json each): the plan's
  // findings, the settings it cannot take, the switch's differences.
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  nlohmann::ordered_json error = nullptr;
  nlohmann::ordered_json last_check = nullptr;
  nlohmann::ordered_json last_apply = nullptr;
  nlohmann::ordered_json consecutive_failures = nullptr;
  nlohmann::ordered_json next_retry = nullptr;
};

// One entry of "ports": identity, the view, and `observed` (PortStatus::to_json, or null when
// nothing was read yet).
nlohmann::ordered_json status_port_entry(const DiscoveredPort& port, PortView view,
                                         nlohmann::ordered_json observed);

// rocectl reading a port itself: the view is empty but for `error`, the link's when it could not
// be read (then nothing else was).
nlohmann::ordered_json status_port_entry(const PortStatus& status);

struct StatusDocument {
  std::string answered_by;  // "roced" (over D-Bus) or "rocectl" (it read the ports itself)
  std::string source;       // System::description
  nlohmann::ordered_json daemon = nullptr;  // {version, config, source, sim_dir, status}
  nlohmann::ordered_json ports = nlohmann::ordered_json::array();  // status_port_entry()s
  // What was asked for and matches no port, in words: a --port that is no netdev, a
  // ports.netdevs entry that selects nothing.
  std::vector<std::string> unmatched;
  std::vector<DiscoveredPort> other_rdma;  // RDMA ports of drivers not selected
  // The ports' functions (VFs, representors, sub-functions) that were not read: rocectl lists
  // them; roced, which keeps only the ports it manages, leaves the key null.
  std::optional<std::vector<DiscoveredPort>> functions;

  nlohmann::ordered_json to_json() const;
};

}  // namespace roced
