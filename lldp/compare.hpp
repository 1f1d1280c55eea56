// SPDX-License-Identifier: Apache-2.0
#pragma once
// The switch's advertisement beside the port's own DCB state. Each difference is a finding of its
// own kind (below) with both sides as a person reads them: the host's as `wanted`, the switch's
// as `found`. Only what the switch advertises is compared: a switch
// that sends no ETS TLV has no ETS finding, a switch with no DCBX TLV at all is a state of its
// own, and in firmware DCBX mode the NIC's agent talks to the switch, so nothing is compared.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dcb/types.hpp"
#include "finding/finding.hpp"
#include "lldp/neighbours.hpp"

namespace roced::lldp {

// The port as read back; a part that could not be read is left empty and not compared.
struct HostState {
  std::string netdev;           // the findings' subject
  std::optional<uint8_t> dcbx;  // DCB_ATTR_DCBX
  std::optional<dcb::Pfc> pfc;
  std::optional<std::vector<dcb::AppEntry>> apps;
  std::optional<dcb::Ets> ets;
  std::optional<uint32_t> mtu;
};

enum class PeerState : uint8_t {
  NotListening,  // the port's LLDP socket could not be opened (the reason is beside it)
  NoPeer,        // nothing heard within a TTL
  FirmwareDcbx,  // the NIC's own DCBX agent answers the switch
  NoDcbx,        // a neighbour without DCBX TLVs
  Compared,      // findings, if any, are the differences
};
inline constexpr auto kPeerStateNames =
    enum_names<PeerState>({{PeerState::NotListening, "not_listening"},
                           {PeerState::NoPeer, "no_peer"},
                           {PeerState::FirmwareDcbx, "firmware_dcbx"},
                           {PeerState::NoDcbx, "no_dcbx"},
                           {PeerState::Compared, "compared"}});
static_assert(kPeerStateNames.covers<PeerState::Compared>(), "name every PeerState");

// critical: RoCE traffic on the link is lossy or dropped because of it. info: worth knowing, may
// be intended (ETS weights differ per direction).
inline constexpr finding::Kind kSwitchPfcPriorities{
    "switch_pfc_priorities", finding::Severity::Critical, "switch",
    "The switch advertises PFC on other priorities than the port has: pause frames for RoCE's "
    "priority are not sent or not honoured on this link.",
    "Decide which side differs from the fabric's design and fix it there (the switch's QoS "
    "policy or profile.pfc.priorities); roced only listens."};
inline constexpr finding::Kind kSwitchDscpMap{
    "switch_dscp_map", finding::Severity::Critical, "switch",
    "The switch maps a DSCP it advertises to another priority than the port does (or the port "
    "trusts PCP): RoCE traffic lands in a lossy class on one side.",
    "Make profile.dscp_map and the switch's DSCP-to-priority map agree for RoCE's and CNP's "
    "DSCPs."};
// No APP entry on the host for a DSCP the switch lists: the NIC's firmware table (QPDPM) maps it,
// which dcbnl does not show (dscp>>3 from the factory, 0 once mlx5e_dcbnl_ieee_delapp deleted
// its entry, or whatever an earlier setapp left there), so roced cannot tell whether they agree.
inline constexpr finding::Kind kSwitchDscpNotOnHost{
    "switch_dscp_not_on_host", finding::Severity::Warning, "switch",
    "The switch maps a DSCP to a priority, and the port has no APP entry for it: the NIC's "
    "firmware table decides (dscp>>3 from the factory, 0 once an entry was deleted), which the "
    "host cannot read.",
    "If the DSCP carries RoCE or CNP traffic, add it to profile.dscp_map with the switch's "
    "priority, so both sides say it."};
// UDP port 4791 (RoCE v2) classified by the switch (APP selector 3, or 4: any transport). mlx5
// cannot hold such an entry (mlx5e_dcbnl_ieee_setapp takes the DSCP selector only), so the
// priority is compared with the port's lossless ones.
inline constexpr finding::Kind kSwitchRoceUdpPriority{
    "switch_roce_udp_priority", finding::Severity::Critical, "switch",
    "The switch classifies RoCE v2 by UDP port 4791 into a priority the port has no PFC on: the "
    "switch pauses a priority the port's RoCE traffic is not on.",
    "Make the switch's RoCE classification and profile.pfc.priorities name the same priority."};
inline constexpr finding::Kind kSwitchMaxFrameSize{
    "switch_max_frame_size", finding::Severity::Critical, "switch",
    "The switch's maximum frame size is below the frames the port's MTU makes: the switch drops "
    "full-size RoCE frames.",
    "Raise the switch port's MTU (at least the port's MTU + 18, + 22 where the port trusts PCP "
    "and its frames carry an 802.1Q tag), or lower profile.mtu."};
inline constexpr finding::Kind kSwitchEtsPriorityTc{
    "switch_ets_priority_tc", finding::Severity::Info, "switch",
    "The switch puts a priority in another traffic class than the port does.",
    "Usually harmless (each side schedules its own egress); align them if the fabric's design "
    "says so."};
inline constexpr finding::Kind kSwitchEtsTsa{
    "switch_ets_tsa", finding::Severity::Info, "switch",
    "The switch schedules a traffic class with another algorithm (strict, ETS, vendor) than the "
    "port does.",
    "Usually harmless (each side schedules its own egress); align them if the fabric's design "
    "says so."};
inline constexpr finding::Kind kSwitchEtsBandwidth{
    "switch_ets_bandwidth", finding::Severity::Info, "switch",
    "The switch's ETS bandwidth shares differ from the port's, for classes both run as ETS.",
    "Often intended (the weights of each direction may differ); align them if not."};
inline constexpr finding::Kind kSwitchWilling{
    "switch_willing", finding::Severity::Info, "switch",
    "The switch is willing to take a peer's DCB settings; roced advertises none, so the "
    "switch's own stand until something on the host (lldpad, a firmware agent) advertises.",
    "Make the switch not willing, or make sure nothing on the host advertises DCBX."};
inline constexpr finding::Kind kSwitchSeveralPeers{
    "switch_several_peers", finding::Severity::Info, "switch",
    "More than one LLDP sender is heard on the port (a hub, a tap, a misconfigured breakout): "
    "the first one is compared.",
    "Check the cabling; a port meant for RoCE has one switch port at its other end."};

struct PeerReport {
  PeerState state = PeerState::NoPeer;
  std::vector<finding::Finding> findings;
  bool operator==(const PeerReport&) const = default;
};

PeerReport compare(const Neighbours& neighbours, const HostState& host);

// Every kind above, for the catalogue.
std::span<const finding::Kind* const> kinds();

// The largest Ethernet frame an MTU makes, as 802.3's maximum frame size counts it (IEEE 802.3
// 79.3.4: the MAC frame from destination address to FCS, so a tag counts): header (14) and FCS
// (4) around the payload, and 4 for the 802.1Q tag a PCP-trusting port's RoCE frames carry.
inline constexpr uint32_t frame_size_of_mtu(uint32_t mtu, bool tagged = false) {
  return mtu + 18 + (tagged ? 4 : 0);
}

// The UDP port of RoCE v2 (IBTA RoCEv2 annex A17).
inline constexpr uint16_t kRoceV2UdpPort = 4791;

// "3", "3,4", "none": priorities whose bit is set.
std::string priority_list(uint8_t mask);

}  // namespace roced::lldp
