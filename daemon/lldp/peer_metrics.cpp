// SPDX-License-Identifier: Apache-2.0
#include "daemon/lldp/peer_metrics.hpp"

#include "telemetry/finding_family.hpp"

namespace roced::lldp {

namespace {

using telemetry::FamilySpec;
using telemetry::LabelSet;
using telemetry::MetricType;

constexpr FamilySpec kPeerInfo{
    "roced_lldp_peer_info", MetricType::gauge,
    "1 for the switch port LLDP hears on the port: its system name, port ID and chassis ID."};
constexpr FamilySpec kPeerState{
    "roced_lldp_peer_state", MetricType::gauge,
    "1 for the port's peer state: compared, no_peer, no_dcbx, firmware_dcbx, not_listening."};
constexpr FamilySpec kLldpFrames{"roced_lldp_frames_total", MetricType::counter,
                                 "LLDP frames received on the port."};
constexpr FamilySpec kLldpDropped{
    "roced_lldp_frames_dropped_total", MetricType::counter,
    "LLDP frames dropped: truncated, malformed, not_lldp, crowded (too many senders)."};

}  // namespace

void add_peer_families(telemetry::ExpositionWriter& out, const std::vector<PortPeer>& peers) {
  for (const auto& peer : peers) {
    const LabelSet port = {{"netdev", peer.netdev}};
    // One series per state the peer can be in, 1 for its own, so a rule needs no absent().
    for (const auto& entry : lldp::kPeerStateNames) {
      out.add(kPeerState, port.with({{"state", entry.name}}),
              entry.value == peer.report.state ? 1 : 0);
    }
    if (peer.neighbour && !peer.neighbour->lldpdu.chassis_id.empty()) {
      const lldp::Lldpdu& heard = peer.neighbour->lldpdu;
      out.add(kPeerInfo,
              port.with({{"system_name", heard.system_name},
                         {"port_id", heard.port_id},
                         {"port_description", heard.port_description},
                         {"chassis_id", heard.chassis_id}}),
              1);
    }
    telemetry::add_findings(out, peer.netdev, peer.report.findings);
    out.add(kLldpFrames, port, static_cast<double>(peer.frames));
    for (const auto& [reason, count] : peer.dropped) {
      out.add(kLldpDropped, port.with({{"reason", reason}}), static_cast<double>(count));
    }
  }
}

}  // namespace roced::lldp
