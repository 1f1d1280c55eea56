// SPDX-License-Identifier: Apache-2.0
#pragma once
// The switch's advertisement beside the port's own DCB state. Each difference is a named Finding
// with both sides as a person reads them. Only what the switch advertises is compared: a switch
// that sends no ETS TLV has no ETS finding, a switch with no DCBX TLV at all is a state of its
// own, and in firmware DCBX mode the NIC's agent talks to the switch, so nothing is compared.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dcb/types.hpp"
#include "lldp/neighbours.hpp"

namespace roced::lldp {

// The port as read back; a part that could not be read is left empty and not compared.
struct HostState {
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

enum class Severity : uint8_t {
  Mismatch,  // RoCE traffic is lossy or dropped because of it
  Notice,    // worth knowing, may be intended (ETS weights differ per direction)
};
inline constexpr auto kSeverityNames =
    enum_names<Severity>({{Severity::Mismatch, "mismatch"}, {Severity::Notice, "notice"}});
static_assert(kSeverityNames.covers<Severity::Notice>(), "name every Severity");

struct Finding {
  std::string name;  // "pfc_priorities", "dscp_map", "max_frame_size", "ets_priority_tc", ...
  Severity severity = Severity::Mismatch;
  std::string host;  // "3"
  std::string peer;  // "4"
  bool operator==(const Finding&) const = default;
};

struct PeerReport {
  PeerState state = PeerState::NoPeer;
  std::vector<Finding> findings;
  bool operator==(const PeerReport&) const = default;
};

PeerReport compare(const Neighbours& neighbours, const HostState& host);

// Finding names, for docs and the metric's label values.
inline constexpr const char* kFindingPfcPriorities = "pfc_priorities";
inline constexpr const char* kFindingDscpMap = "dscp_map";
inline constexpr const char* kFindingMaxFrameSize = "max_frame_size";
inline constexpr const char* kFindingEtsPriorityTc = "ets_priority_tc";
inline constexpr const char* kFindingEtsBandwidth = "ets_bandwidth";
inline constexpr const char* kFindingPeerWilling = "peer_willing";
inline constexpr const char* kFindingSeveralPeers = "several_peers";

// The largest Ethernet frame an MTU makes, as 802.3's maximum frame size counts it: header (14)
// and FCS (4) around the payload; an 802.1Q tag would add 4.
inline constexpr uint32_t frame_size_of_mtu(uint32_t mtu) { return mtu + 18; }

// "3", "3,4", "none": priorities whose bit is set.
std::string priority_list(uint8_t mask);

}  // namespace roced::lldp
