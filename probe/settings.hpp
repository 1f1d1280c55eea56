// SPDX-License-Identifier: Apache-2.0
#pragma once
// Path probing's settings as the config file gives them (`probe:`), with their range checks;
// the YAML loader (daemon/config) reads the keys and reports validate()'s problems at the key
// they are about. Off unless switched on: a node sends nothing to another until its operator
// names the peers.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace roced::probe {

struct ProbePeer {
  std::string address;  // the peer port's IPv4 or IPv6 address, as its RoCE v2 GID holds it
  std::string group;    // its switch (or any grouping): the series and the blame name groups
  bool operator==(const ProbePeer&) const = default;
};

struct ProbeProblem {
  std::string field;  // as written under `probe:`: "rate", "peers[2].address"
  std::string message;
  bool operator==(const ProbeProblem&) const = default;
};

struct ProbeSettings {
  bool enabled = false;
  std::vector<ProbePeer> peers;
  // Probes a second from each port, and for the whole node: R-Pingmesh's agent default is 10 a
  // target within its ToR (yuuki/rpingmesh configs: target_probe_rate_per_second).
  double rate = 10;
  double budget = 100;
  // A path is bad past 2 % loss or a p99 network RTT of 500 µs over 30 s (yuuki/rpingmesh's
  // analyzer defaults, analysis_window_sec 30).
  double loss_ratio = 0.02;
  std::chrono::microseconds rtt_p99{500};
  std::chrono::seconds window{30};
  // A probe whose first answer has not come by then is lost.
  std::chrono::milliseconds timeout{1000};
  // The UD Q_Key probes carry; a responder's QP takes nothing else (the HCA drops a datagram
  // whose Q_Key differs). Below 0x80000000: the high bit asks for a privileged Q_Key.
  uint32_t q_key = 0x524f4345;  // "ROCE"
  // Each port also probes the node's other ports: a host-side fault then shows as such.
  bool self_probe = true;
  // The rdma_cm port (RDMA_PS_UDP's own space, not a UDP port) each node's probe service
  // listens on; every node of a fleet uses the same.
  uint16_t service_port = 7471;

  // Every problem, in field order; empty when the settings are usable.
  std::vector<ProbeProblem> validate() const;
  bool operator==(const ProbeSettings&) const = default;
};

inline constexpr double kMaxProbeRate = 1000;
inline constexpr double kMaxProbeBudget = 100000;

}  // namespace roced::probe
