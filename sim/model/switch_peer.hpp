// SPDX-License-Identifier: Apache-2.0
#pragma once
// The switch port at the other end of a port's cable, as far as the host can see it: the LLDP
// frames it sends (IEEE 802.1AB) with its DCBX TLVs (IEEE 802.1Qaz, or the older CEE TLV) and
// 802.3's maximum frame size. The encoder is written from the standards' layouts and not from
// roced's decoder, so the two check each other.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roce_sim {

struct SwitchEts {
  bool willing = false;
  std::array<uint8_t, 8> prio_tc{};
  std::array<uint8_t, 8> tc_bw{};
  std::array<uint8_t, 8> tsa{};  // 0 strict, 2 ETS
  bool operator==(const SwitchEts&) const = default;
};

// Which DCBX TLVs the switch sends: IEEE 802.1Qaz, the older CEE TLV, or none at all.
enum class SwitchDcbx : uint8_t { Ieee, Cee, None };

struct SwitchPeer {
  std::string system_name = "leaf1";
  std::string port = "Ethernet1/1";  // port ID (interface name) and port description
  std::string chassis_mac = "0c:42:a1:00:00:01";
  uint16_t ttl = 120;          // seconds: 4 x the transmit interval, as 802.1AB's default
  uint32_t interval_s = 30;    // msgTxInterval (802.1AB 9.2.5.7)
  std::optional<uint8_t> pfc;  // enabled priorities' mask; unset: no PFC TLV
  bool pfc_willing = false;
  std::vector<std::pair<uint8_t, uint8_t>> dscp;  // DSCP -> priority, as APP entries (selector 5)
  // UDP port -> priority, as APP entries with selector 3 (802.1Qaz D.2.12): how a switch
  // classifies RoCE v2 by its port 4791 whatever the DSCP.
  std::vector<std::pair<uint16_t, uint8_t>> udp_ports;
  std::optional<SwitchEts> ets;
  std::optional<uint16_t> max_frame_size;
  SwitchDcbx dcbx = SwitchDcbx::Ieee;  // CEE sends PFC and ETS as CEE features, and no DSCP
  bool operator==(const SwitchPeer&) const = default;
};

// LLDP transmission on the switch port (802.1AB adminStatus): sending, stopped (its neighbour
// entry at the host then ages out with the TTL), or one shutdown LLDPDU (TTL 0) and stopped.
enum class SwitchLldp : uint8_t { On, Off, Shutdown };

// What a node file's `switch:` or a scenario's `switch` event changes; unset fields stay.
struct SwitchPeerChange {
  std::optional<std::string> system_name;
  std::optional<std::string> port;
  std::optional<uint8_t> pfc;  // mask; 0 is a PFC TLV with no priority on
  std::optional<bool> willing;
  std::optional<std::vector<std::pair<uint8_t, uint8_t>>> dscp;
  std::optional<std::array<uint8_t, 8>> ets_bandwidth;
  std::optional<std::array<uint8_t, 8>> prio_tc;
  std::optional<std::array<uint8_t, 8>> ets_tsa;  // per TC: 0 strict, 2 ETS; unset: ETS on all
  std::optional<std::vector<std::pair<uint16_t, uint8_t>>> udp_ports;
  std::optional<uint16_t> max_frame_size;
  std::optional<SwitchDcbx> dcbx;
  std::optional<uint16_t> ttl;
  std::optional<uint32_t> interval_s;
  std::optional<SwitchLldp> lldp;
  void apply_to(SwitchPeer& peer) const;
};

// One LLDP frame to the nearest-bridge address from `source_mac` ("aa:bb:.."), padded to 60
// bytes as an Ethernet MAC sends it. `ttl` overrides the peer's (0: a shutdown LLDPDU).
std::vector<uint8_t> lldp_frame(const SwitchPeer& peer, const std::string& source_mac,
                                std::optional<uint16_t> ttl = std::nullopt);

// Bytes from a MAC's text; all zero when it is not one.
std::array<uint8_t, 6> mac_bytes(const std::string& text);

}  // namespace roce_sim
