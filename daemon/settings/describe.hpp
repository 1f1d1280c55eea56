// SPDX-License-Identifier: Apache-2.0
#pragma once
// The compact text of each setting's value, as a plan line shows it: "3" / "none" for PFC, only
// the differing entries of a DSCP map, the differing parts of ETS.

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "daemon/settings/profile.hpp"
#include "dcb/types.hpp"

namespace roced::settings::describe {

std::string priorities(uint8_t mask);     // "3", "3,4", "none"
std::string dcbx(uint8_t observed_mode);  // "host (ieee)", "firmware", "firmware (cee)"
std::string dcbx(DcbxMode wanted_mode);   // "host", "firmware"
std::string trust(dcb::Trust trust);      // "dscp", "pcp"
std::string stall(uint16_t raw);          // "off", "auto", "500 ms"

// Every DSCP (bit d of a mapped mask).
inline constexpr uint64_t kAllDscps = ~uint64_t{0};
// A whole DSCP map against the firmware default: "d>>3", "d>>3 except 46->3 48->7". A DSCP
// outside `mapped` has no APP entry: the NIC uses its firmware map for it, which dcbnl does not
// show ("10->fw").
std::string dscp_map(const std::array<uint8_t, 64>& map, uint64_t mapped = kAllDscps);
// Only the DSCPs whose priority differs or is not known: {"10->fw 26->0", "10->1 26->3"}. When
// many differ, or the port has no DSCP entries at all (now_empty: "none"), the two whole maps.
std::pair<std::string, std::string> dscp_map_diff(const std::array<uint8_t, 64>& now,
                                                  uint64_t now_mapped,
                                                  const std::array<uint8_t, 64>& wanted,
                                                  bool now_empty);

struct EtsText {
  std::array<uint8_t, 8> prio_tc{};
  std::array<dcb::Tsa, 8> tsa{};
  std::array<uint8_t, 8> bandwidth{};
};
// "prio_tc 1,0,2,3,4,5,6,7 tc all vendor" / "tc 10,10,10,50,10,5,strict,5": a TC shows its
// bandwidth when it is an ETS TC, else its TSA. Only the parts named are shown.
std::string ets(const EtsText& ets, bool show_prio_tc, bool show_tcs);

// "prio2buffer 0,0,0,1,0,0,0,0 size 0:262144 1:131072" (sizes in bytes, zero sizes left out).
std::string buffers(const std::array<uint8_t, 8>& prio2buffer, const std::array<uint32_t, 8>& size);

// "tc 3:25Gbit 7:400Mbit" (TCs without a cap left out), "no caps".
std::string maxrate(const std::array<uint64_t, 8>& tc_kbps);

}  // namespace roced::settings::describe
