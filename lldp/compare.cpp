// SPDX-License-Identifier: Apache-2.0
#include "lldp/compare.hpp"

#include <array>
#include <map>

namespace roced::lldp {
namespace {

// The switch's PFC priorities: the IEEE TLV, else an enabled CEE PFC feature.
std::optional<uint8_t> peer_pfc(const Lldpdu& peer) {
  if (peer.pfc) return peer.pfc->enabled_mask;
  if (peer.cee && peer.cee->pfc && peer.cee->pfc->feature.enabled) {
    return peer.cee->pfc->enabled_mask;
  }
  return std::nullopt;
}

// Priority -> traffic class: IEEE ETS configuration, else CEE priority groups.
std::optional<std::array<uint8_t, 8>> peer_prio_tc(const Lldpdu& peer) {
  if (peer.ets) return peer.ets->prio_tc;
  if (peer.cee && peer.cee->priority_groups && peer.cee->priority_groups->feature.enabled) {
    return peer.cee->priority_groups->prio_pg;
  }
  return std::nullopt;
}

using finding::Kind;

// "PFC priorities differ: host 3, switch 4".
void add_difference(const Kind& kind, const HostState& host, std::string words, std::string ours,
                    std::string theirs, std::vector<finding::Finding>& out) {
  std::string text = std::move(words) + ": host " + ours + ", switch " + theirs;
  out.push_back(
      finding::make(kind, host.netdev, std::move(text), std::move(ours), std::move(theirs)));
}

void compare_pfc(const Lldpdu& peer, const HostState& host, std::vector<finding::Finding>& out) {
  const auto theirs = peer_pfc(peer);
  if (!theirs || !host.pfc || *theirs == host.pfc->enabled_mask) return;
  add_difference(kSwitchPfcPriorities, host, "PFC priorities differ",
                 priority_list(host.pfc->enabled_mask), priority_list(*theirs), out);
}

// Only the DSCPs the switch advertises: a switch lists those it classifies on purpose, and mlx5
// reads an unlisted DSCP as priority 0, which says nothing about what the switch meant.
void compare_dscp(const Lldpdu& peer, const HostState& host, std::vector<finding::Finding>& out) {
  if (!peer.app || !host.apps) return;
  std::map<uint16_t, uint8_t> theirs;
  for (const auto& entry : *peer.app) {
    if (entry.selector == static_cast<uint8_t>(dcb::AppSelector::Dscp) && entry.protocol < 64) {
      theirs[entry.protocol] = entry.priority;
    }
  }
  if (theirs.empty()) return;
  if (dcb::trust_from_apps(*host.apps) != dcb::Trust::Dscp) {
    add_difference(kSwitchDscpMap, host, "DSCP map differs", "PCP trust (no DSCP map)",
                   std::to_string(theirs.size()) + " DSCP entries", out);
    return;
  }
  const auto ours = dcb::dscp_map_from_apps(*host.apps);
  std::string host_side;
  std::string peer_side;
  for (const auto& [dscp, priority] : theirs) {
    if (ours[dscp] == priority) continue;
    const std::string sep = host_side.empty() ? "" : ", ";
    host_side += sep + "dscp " + std::to_string(dscp) + " -> " + std::to_string(ours[dscp]);
    peer_side += sep + "dscp " + std::to_string(dscp) + " -> " + std::to_string(priority);
  }
  if (!host_side.empty()) {
    add_difference(kSwitchDscpMap, host, "DSCP map differs", host_side, peer_side, out);
  }
}

void compare_frame_size(const Lldpdu& peer, const HostState& host,
                        std::vector<finding::Finding>& out) {
  if (!peer.max_frame_size || !host.mtu) return;
  if (*peer.max_frame_size >= frame_size_of_mtu(*host.mtu)) return;
  add_difference(kSwitchMaxFrameSize, host, "the switch's maximum frame is below the host's MTU",
                 "MTU " + std::to_string(*host.mtu) + " (frames up to " +
                     std::to_string(frame_size_of_mtu(*host.mtu)) + " bytes)",
                 std::to_string(*peer.max_frame_size) + " bytes", out);
}

std::string tc_text(const std::array<uint8_t, 8>& values, uint8_t mask, const char* what) {
  std::string text;
  for (size_t i = 0; i < 8; ++i) {
    if ((mask & (1u << i)) == 0) continue;
    text += (text.empty() ? "" : ", ") + std::string(what) + std::to_string(i) + " " +
            std::to_string(values[i]);
  }
  return text;
}

void compare_ets(const Lldpdu& peer, const HostState& host, std::vector<finding::Finding>& out) {
  if (!host.ets) return;
  if (const auto theirs = peer_prio_tc(peer)) {
    uint8_t differ = 0;
    for (size_t p = 0; p < 8; ++p) {
      if ((*theirs)[p] != host.ets->prio_tc[p]) differ |= static_cast<uint8_t>(1u << p);
    }
    if (differ != 0) {
      add_difference(kSwitchEtsPriorityTc, host, "ETS priority to traffic class differs",
                     tc_text(host.ets->prio_tc, differ, "prio "), tc_text(*theirs, differ, "prio "),
                     out);
    }
  }
  if (peer.ets) {
    uint8_t differ = 0;
    for (size_t tc = 0; tc < 8; ++tc) {
      if (peer.ets->tc_bw[tc] != host.ets->tc_tx_bw[tc]) differ |= static_cast<uint8_t>(1u << tc);
    }
    if (differ != 0) {
      add_difference(kSwitchEtsBandwidth, host, "ETS bandwidth differs",
                     tc_text(host.ets->tc_tx_bw, differ, "tc"),
                     tc_text(peer.ets->tc_bw, differ, "tc"), out);
    }
  }
}

// A willing switch takes the configuration of a peer that advertises one (802.1Qaz 37.1.1): the
// host advertises none (roced listens only), so the switch's own settings stand, until something
// on the host (lldpad, the NIC's firmware agent) starts advertising.
void compare_willing(const Lldpdu& peer, const HostState& host,
                     std::vector<finding::Finding>& out) {
  std::string which;
  if (peer.pfc && peer.pfc->willing) which = "PFC";
  if (peer.ets && peer.ets->willing) which += which.empty() ? "ETS" : ", ETS";
  if (which.empty()) return;
  add_difference(kSwitchWilling, host, "the switch is willing to take a peer's settings",
                 "not advertising (roced only listens)", "willing (" + which + ")", out);
}

}  // namespace

std::string priority_list(uint8_t mask) {
  std::string text;
  for (int p = 0; p < 8; ++p) {
    if ((mask & (1u << p)) != 0) text += (text.empty() ? "" : ",") + std::to_string(p);
  }
  return text.empty() ? "none" : text;
}

std::span<const finding::Kind* const> kinds() {
  static constexpr std::array<const Kind*, 7> kKinds = {
      &kSwitchPfcPriorities, &kSwitchDscpMap, &kSwitchMaxFrameSize, &kSwitchEtsPriorityTc,
      &kSwitchEtsBandwidth,  &kSwitchWilling, &kSwitchSeveralPeers};
  return kKinds;
}

PeerReport compare(const Neighbours& neighbours, const HostState& host) {
  if (host.dcbx && (*host.dcbx & dcb::kDcbxHost) == 0) return {PeerState::FirmwareDcbx, {}};
  const Neighbour* current = neighbours.current();
  if (current == nullptr) return {PeerState::NoPeer, {}};
  PeerReport report{PeerState::Compared, {}};
  const Lldpdu& peer = current->lldpdu;
  if (neighbours.all().size() > 1) {
    add_difference(kSwitchSeveralPeers, host, "several LLDP senders on one port", "one cable",
                   std::to_string(neighbours.all().size()) + " senders", report.findings);
  }
  // 802.3's maximum frame size is not DCBX: a switch may send it without any DCBX TLV.
  compare_frame_size(peer, host, report.findings);
  if (!peer.has_dcbx()) {
    report.state = PeerState::NoDcbx;
    return report;
  }
  compare_pfc(peer, host, report.findings);
  compare_dscp(peer, host, report.findings);
  compare_ets(peer, host, report.findings);
  compare_willing(peer, host, report.findings);
  return report;
}

}  // namespace roced::lldp
