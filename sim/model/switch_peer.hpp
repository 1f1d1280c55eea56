// SPDX-License-Identifier: Apache-2.0
#pragma once
// The switch port at the other end of a port's cable, as far as the host can see it: the LLDP
// frames it sends (IEEE 802.1AB) with its DCBX TLVs (IEEE 802.1Qaz, or the older CEE TLV) and
// 802.3's maximum frame size. The encoder is written from the standards' layouts and not from
// roced's decoder, so the two check each other.

#include <array>
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
};

struct SwitchPeer {
  std::string system_name = "leaf1";
  std::string port = "Ethernet1/1";  // port ID (interface name) and port description
  std::string chassis_mac = "0c:42:a1:00:00:01";
  uint16_t ttl = 120;          // seconds: 4 x the transmit interval, as 802.1AB's default
  uint32_t interval_s = 30;    // msgTxInterval (802.1AB 9.2.5.7)
  std::optional<uint8_t> pfc;  // enabled priorities' mask; unset: no PFC TLV
  bool pfc_willing = false;
  std::vector<std::pair<uint8_t, uint8_t>> dscp;  // DSCP -> priority, as APP entries (selector 5)
  std::optional<SwitchEts> ets;
  std::optional<uint16_t> max_frame_size;
  bool cee = false;  // the CEE DCBX TLV (OUI 00-1B-21) instead of the IEEE ones: PFC and PGs
  bool operator==(const SwitchPeer&) const = default;
};

// One LLDP frame to the nearest-bridge address from `source_mac` ("aa:bb:.."), padded to 60
// bytes as an Ethernet MAC sends it. `ttl` overrides the peer's (0: a shutdown LLDPDU).
std::vector<uint8_t> lldp_frame(const SwitchPeer& peer, const std::string& source_mac,
                                std::optional<uint16_t> ttl = std::nullopt);

// Bytes from a MAC's text; all zero when it is not one.
std::array<uint8_t, 6> mac_bytes(const std::string& text);

}  // namespace roce_sim
