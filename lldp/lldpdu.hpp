// SPDX-License-Identifier: Apache-2.0
#pragma once
// One LLDPDU as a switch sends it (IEEE 802.1AB-2016 clause 8), with the DCBX TLVs roced compares:
// IEEE 802.1Qaz (OUI 00-80-C2) ETS, PFC and application priority, IEEE 802.3 maximum frame size
// (OUI 00-12-0F) and the older CEE DCBX TLV (OUI 00-1B-21). Every text field came off the wire:
// it is kept printable (display_text) before it reaches a log line or a metric label.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dcb/types.hpp"

namespace roced::lldp {

inline constexpr uint16_t kEthertype = 0x88cc;
// The nearest-bridge group address (802.1AB 7.1): what a switch port sends to and no bridge
// forwards, so a frame here comes from the port the cable goes to.
inline constexpr std::array<uint8_t, 6> kNearestBridge = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};

// IEEE 802.1Qaz D.2.9 ETS Configuration and D.2.10 ETS Recommendation.
struct Ets {
  bool willing = false;  // configuration only
  bool cbs = false;      // configuration only
  uint8_t max_tcs = 0;   // configuration only; 0 means 8
  std::array<uint8_t, 8> prio_tc{};
  std::array<uint8_t, 8> tc_bw{};  // percent
  std::array<uint8_t, 8> tsa{};    // dcb::Tsa values: 0 strict, 1 CBS, 2 ETS, 255 vendor
  bool operator==(const Ets&) const = default;
};

// IEEE 802.1Qaz D.2.11 PFC Configuration.
struct Pfc {
  bool willing = false;
  bool mbc = false;
  uint8_t cap = 0;
  uint8_t enabled_mask = 0;  // bit p: PFC on priority p
  bool operator==(const Pfc&) const = default;
};

// The CEE DCBX TLV's feature flags (DCBX base protocol 1.01, as Intel's ice driver reads them:
// drivers/net/ethernet/intel/ice/ice_dcb.c, ice_parse_cee_tlv).
struct CeeFeature {
  uint8_t oper_version = 0;
  uint8_t max_version = 0;
  bool enabled = false;
  bool willing = false;
  bool error = false;
  bool operator==(const CeeFeature&) const = default;
};
struct CeePriorityGroups {
  CeeFeature feature;
  std::array<uint8_t, 8> prio_pg{};  // priority -> priority group (15: no bandwidth limit)
  std::array<uint8_t, 8> pg_bw{};    // percent
  uint8_t num_tcs = 0;
  bool operator==(const CeePriorityGroups&) const = default;
};
struct CeePfc {
  CeeFeature feature;
  uint8_t enabled_mask = 0;
  uint8_t num_tcs = 0;
  bool operator==(const CeePfc&) const = default;
};
struct CeeAppEntry {
  uint16_t protocol = 0;
  uint8_t selector = 0;  // 0: ethertype, 1: TCP/UDP port
  uint32_t oui = 0;
  uint8_t priority_map = 0;  // bit p: priority p
  bool operator==(const CeeAppEntry&) const = default;
};
struct CeeApp {
  CeeFeature feature;
  std::vector<CeeAppEntry> entries;
  bool operator==(const CeeApp&) const = default;
};
struct Cee {
  uint8_t oper_version = 0;
  uint8_t max_version = 0;
  uint32_t sequence = 0;
  uint32_t acknowledged = 0;
  std::optional<CeePriorityGroups> priority_groups;
  std::optional<CeePfc> pfc;
  std::optional<CeeApp> app;
  bool operator==(const Cee&) const = default;
};

struct Lldpdu {
  std::array<uint8_t, 6> source{};  // the sender's MAC
  uint8_t chassis_id_subtype = 0;
  std::string chassis_id;  // display form: a MAC as aa:bb:.., an address as text
  uint8_t port_id_subtype = 0;
  std::string port_id;
  uint16_t ttl = 0;  // seconds; 0 is a shutdown LLDPDU: forget the sender
  std::string port_description;
  std::string system_name;
  std::string system_description;
  std::vector<std::string> management_addresses;

  std::optional<Ets> ets;
  std::optional<Ets> ets_recommendation;
  std::optional<Pfc> pfc;
  std::optional<std::vector<dcb::AppEntry>> app;  // IEEE selectors, 5 = DSCP
  std::optional<uint16_t> max_frame_size;
  std::optional<Cee> cee;
  size_t unknown_tlvs = 0;

  // Any DCBX TLV, IEEE or CEE: a peer without one does not take part in DCBX.
  bool has_dcbx() const { return ets || ets_recommendation || pfc || app || cee; }
  bool operator==(const Lldpdu&) const = default;
};

// Why a frame was dropped; each is counted (roced_lldp_frames_dropped_total{reason}).
enum class DropReason : uint8_t {
  NotLldp,    // another ethertype or destination: a socket filter should not have let it through
  Truncated,  // a TLV runs past the frame's end, or a required TLV is shorter than its fields
  Malformed,  // the mandatory TLVs missing or out of order, a length the TLV's type forbids
  Crowded,    // a new sender on a port that already has kMaxNeighbours (lldp/neighbours.hpp)
};
inline constexpr auto kDropReasonNames =
    enum_names<DropReason>({{DropReason::NotLldp, "not_lldp"},
                            {DropReason::Truncated, "truncated"},
                            {DropReason::Malformed, "malformed"},
                            {DropReason::Crowded, "crowded"}});
static_assert(kDropReasonNames.covers<DropReason::Crowded>(), "name every DropReason");

struct Decoded {
  std::optional<Lldpdu> lldpdu;
  DropReason reason = DropReason::Malformed;  // when lldpdu is empty
  std::string error;                          // what was wrong, for the debug log
};

// An Ethernet frame as AF_PACKET's SOCK_RAW gives it (destination, source, ethertype, payload;
// one 802.1Q tag is skipped), decoded without reading a byte outside `frame`.
Decoded decode_frame(std::span<const uint8_t> frame);
// The LLDPDU alone (the Ethernet payload).
Decoded decode_lldpdu(std::span<const uint8_t> payload);

// Bytes from the wire as text that is safe in a log line, a JSON string and a metric label:
// printable ASCII kept, anything else as \xNN, at most `limit` bytes of input.
std::string display_text(std::span<const uint8_t> bytes, size_t limit = 255);
std::string mac_text(std::span<const uint8_t> mac);  // "aa:bb:cc:dd:ee:ff"

}  // namespace roced::lldp
