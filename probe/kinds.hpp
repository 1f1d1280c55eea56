// SPDX-License-Identifier: Apache-2.0
#pragma once
// The findings path probing makes: a path losing probes or slow past its threshold, named by
// the place probe/localize blames; and a port that cannot probe at all.
#include <span>

#include "finding/finding.hpp"

namespace roced::probe {

inline constexpr finding::Kind kProbeLoss{
    "probe_path_loss", finding::Severity::Critical, "probe",
    "Probes sent on the lossless class from this port to peers lose more than probe.loss_ratio "
    "over probe.window: RoCE between the two loses packets there, and a collective over it "
    "stalls in retransmissions. `about` names the likely place: this port, this host, a peer, "
    "a switch (a peer group) or the one path.",
    "Read `about` and the text. This port or this host: check the port's cable, optic and "
    "counters (`rocectl status`, `ethtool -S`) and its PFC and DSCP configuration. A peer: the "
    "peer node's roced and port. A switch: the switch's ports towards that group, its PFC and "
    "buffers, and its drop counters. One path: the ECMP member link between the two; compare "
    "with `rocectl probe PEER`. The fleet's recording rules (roced:probe_loss_ratio:*) show "
    "whether other nodes see the same place."};
inline constexpr finding::Kind kProbeLatency{
    "probe_path_latency", finding::Severity::Warning, "probe",
    "The 99th percentile of the network's share of the probes' round trips (the two hosts' "
    "processing taken out) from this port passes probe.rtt_p99 over probe.window: queues build "
    "on the path, usually from congestion, PFC pausing or a slow link.",
    "Read `about` for the place, as for probe_path_loss. Look at the pause and ECN counters of "
    "the ports on the path (roce_pfc_*, roce_ecn_*), the switch's queues towards the peer group, "
    "and whether the path's links run at their speed."};
inline constexpr finding::Kind kProbeUnavailable{
    "probe_unavailable", finding::Severity::Warning, "probe",
    "Probing is configured but this port cannot probe: it has no RDMA device or no RoCE v2 "
    "address, or its probe queue pair could not be made. Its paths are not watched.",
    "Read the text for the step that failed. Check that the port has an address and a RoCE v2 "
    "GID (`rdma link`, `ibv_devinfo -v`), that roced may lock memory (LimitMEMLOCK, "
    "CAP_IPC_LOCK) and that another program does not hold probe.service_port."};

std::span<const finding::Kind* const> kinds();

}  // namespace roced::probe
