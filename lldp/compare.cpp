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

// Only the DSCPs the switch advertises: a switch lists those it classifies on purpose. A DSCP the
// host has an APP entry for is compared with it. One it has none for is mapped by the NIC's own
// DSCP-to-priority table (QPDPM), which dcbnl does not show: the factory's dscp>>3, 0 once
// mlx5e_dcbnl_ieee_delapp deleted its entry (en_dcbnl.c: it writes priority 0 to the firmware),
// or whatever an earlier setapp left there (mlx5e_dcbnl_initialize reads the table back only at
// driver load, into the driver's own copy). So that is "cannot tell", not a difference.
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
  const uint64_t listed = dcb::dscp_mapped(*host.apps);
  std::string host_side;
  std::string peer_side;
  std::string unlisted;         // "dscp 24, 40"
  std::string factory;          // "3, 5": dscp>>3 of each
  std::string unlisted_theirs;  // "dscp 24 -> 3, dscp 40 -> 5"
  for (const auto& [dscp, priority] : theirs) {
    const std::string theirs_text =
        "dscp " + std::to_string(dscp) + " -> " + std::to_string(priority);
    if ((listed >> dscp & 1) == 0) {
      unlisted += (unlisted.empty() ? "dscp " : ", ") + std::to_string(dscp);
      factory += (factory.empty() ? "" : ", ") + std::to_string(dscp >> 3);
      unlisted_theirs += (unlisted_theirs.empty() ? "" : ", ") + theirs_text;
      continue;
    }
    if (ours[dscp] == priority) continue;
    const std::string sep = host_side.empty() ? "" : ", ";
    host_side += sep + "dscp " + std::to_string(dscp) + " -> " + std::to_string(ours[dscp]);
    peer_side += sep + theirs_text;
  }
  if (!host_side.empty()) {
    add_difference(kSwitchDscpMap, host, "DSCP map differs", host_side, peer_side, out);
  }
  if (!unlisted.empty()) {
    finding::Finding f =
        finding::make(kSwitchDscpNotOnHost, host.netdev,
                      "the switch maps DSCPs the host has no APP entry for (" + unlisted_theirs +
                          "): the NIC's firmware table decides there, which dcbnl does not show",
                      unlisted + ": no APP entry (firmware table: " + factory +
                          " from the factory, 0 if deleted)",
                      unlisted_theirs);
    f.verdict = finding::Verdict::CannotTell;
    out.push_back(std::move(f));
  }
}

// The switch's priority for RoCE v2 by UDP port (APP selector 3, UDP; 4, any transport). The
// host cannot hold such an entry (mlx5e_dcbnl_ieee_setapp answers -EINVAL for any selector but
// DSCP): its RoCE traffic's priority comes from its DSCP or PCP, and the one place both sides
// must meet is the priority PFC protects, so the switch's is compared with the host's PFC.
void compare_roce_udp(const Lldpdu& peer, const HostState& host,
                      std::vector<finding::Finding>& out) {
  if (!peer.app || !host.pfc) return;
  std::string theirs;
  bool lossless = true;
  for (const auto& entry : *peer.app) {
    const bool udp = entry.selector == static_cast<uint8_t>(dcb::AppSelector::Dgram) ||
                     entry.selector == static_cast<uint8_t>(dcb::AppSelector::Any);
    if (!udp || entry.protocol != kRoceV2UdpPort || entry.priority > 7) continue;
    theirs += (theirs.empty() ? "" : ", ") + std::string("udp ") + std::to_string(entry.protocol) +
              " -> " + std::to_string(entry.priority);
    if ((host.pfc->enabled_mask >> entry.priority & 1) == 0) lossless = false;
  }
  if (theirs.empty() || lossless) return;
  add_difference(
      kSwitchRoceUdpPriority, host,
      "the switch classifies RoCE v2 by UDP port into a priority without PFC on the host",
      "PFC on " + priority_list(host.pfc->enabled_mask), theirs, out);
}

// 802.3's maximum frame size counts the whole MAC frame, destination address to FCS, an 802.1Q
// tag included (IEEE 802.3 79.3.4: 1518 for a MAC that takes basic frames only, 1522 for one that
// takes Q-tagged frames, as 802.3ac's maxUntaggedFrameSize + qTagPrefixSize). A port that trusts
// PCP carries RoCE's priority in a tag, so its frames are 4 bytes longer; one whose APP table
// could not be read is held to the untagged size, the least its frames can be.
void compare_frame_size(const Lldpdu& peer, const HostState& host,
                        std::vector<finding::Finding>& out) {
  if (!peer.max_frame_size || !host.mtu) return;
  const bool tagged = host.apps && dcb::trust_from_apps(*host.apps) == dcb::Trust::Pcp;
  const uint32_t frame = frame_size_of_mtu(*host.mtu, tagged);
  if (*peer.max_frame_size >= frame) return;
  add_difference(kSwitchMaxFrameSize, host, "the switch's maximum frame is below the host's MTU",
                 "MTU " + std::to_string(*host.mtu) +
                     (tagged ? " (802.1Q-tagged frames up to " : " (frames up to ") +
                     std::to_string(frame) + " bytes" + (tagged ? ": PCP trust)" : ")"),
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

std::string tsa_text(const std::array<uint8_t, 8>& tsa, uint8_t mask) {
  std::string text;
  for (size_t i = 0; i < 8; ++i) {
    if ((mask & (1u << i)) == 0) continue;
    text += (text.empty() ? "tc" : ", tc") + std::to_string(i) + " " +
            dcb::tsa_name(static_cast<dcb::Tsa>(tsa[i]));
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
  if (!peer.ets) return;
  // The TSA of the classes a priority uses on either side (a class nothing is in schedules
  // nothing). mlx5e_dcbnl_ieee_getets reports its own: vendor for the driver's default classes
  // (mlx5e_ets_init), ETS for any below 100 %, else the TSA last set.
  std::array<uint8_t, 8> ours_tsa{};
  for (size_t tc = 0; tc < 8; ++tc) ours_tsa[tc] = static_cast<uint8_t>(host.ets->tc_tsa[tc]);
  uint8_t used = 0;
  for (size_t p = 0; p < 8; ++p) {
    used |= static_cast<uint8_t>(1u << (host.ets->prio_tc[p] & 7));
    used |= static_cast<uint8_t>(1u << (peer.ets->prio_tc[p] & 7));
  }
  uint8_t tsa_differ = 0;
  for (size_t tc = 0; tc < 8; ++tc) {
    if ((used >> tc & 1) != 0 && ours_tsa[tc] != peer.ets->tsa[tc]) {
      tsa_differ |= static_cast<uint8_t>(1u << tc);
    }
  }
  if (tsa_differ != 0) {
    add_difference(kSwitchEtsTsa, host, "ETS scheduling differs", tsa_text(ours_tsa, tsa_differ),
                   tsa_text(peer.ets->tsa, tsa_differ), out);
  }
  // A share means something only for a class both run as ETS: mlx5e_dcbnl_ieee_getets reports
  // 0 for a strict or vendor class at 100 %, a switch may send anything for one.
  constexpr auto kEts = static_cast<uint8_t>(dcb::Tsa::Ets);
  uint8_t differ = 0;
  for (size_t tc = 0; tc < 8; ++tc) {
    if (ours_tsa[tc] != kEts || peer.ets->tsa[tc] != kEts) continue;
    if (peer.ets->tc_bw[tc] != host.ets->tc_tx_bw[tc]) differ |= static_cast<uint8_t>(1u << tc);
  }
  if (differ != 0) {
    add_difference(kSwitchEtsBandwidth, host, "ETS bandwidth differs",
                   tc_text(host.ets->tc_tx_bw, differ, "tc"),
                   tc_text(peer.ets->tc_bw, differ, "tc"), out);
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
  static constexpr std::array<const Kind*, 10> kKinds = {
      &kSwitchPfcPriorities, &kSwitchDscpMap,       &kSwitchDscpNotOnHost, &kSwitchRoceUdpPriority,
      &kSwitchMaxFrameSize,  &kSwitchEtsPriorityTc, &kSwitchEtsTsa,        &kSwitchEtsBandwidth,
      &kSwitchWilling,       &kSwitchSeveralPeers};
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
  compare_roce_udp(peer, host, report.findings);
  compare_ets(peer, host, report.findings);
  compare_willing(peer, host, report.findings);
  return report;
}

}  // namespace roced::lldp
