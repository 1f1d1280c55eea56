// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers shared by the rtnetlink handlers (rtnl_service.cpp, rtnl_link.cpp, rtnl_addr.cpp,
// dcbnl.cpp); private to the server, as the kernel keeps them static to each file.

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "sim/server/rtnl_service.hpp"

namespace roce_sim::server::rtnl {

// "aa:bb:cc:dd:ee:ff"; all zeros when the text is not a MAC.
inline std::array<uint8_t, 6> parse_mac(const std::string& text) {
  std::array<uint8_t, 6> mac{};
  unsigned int b[6] = {};
  if (std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) ==
      6) {
    for (size_t i = 0; i < 6; ++i) mac[i] = static_cast<uint8_t>(b[i]);
  }
  return mac;
}

// The model's ops return either sign; netlink carries -errno.
inline int normalise_errno(int err) { return err > 0 ? -err : err; }

inline Outgoing to_self(Bytes datagram) { return Outgoing{false, 0, std::move(datagram)}; }
inline Outgoing to_group(uint32_t group, Bytes datagram) {
  return Outgoing{true, group, std::move(datagram)};
}

}  // namespace roce_sim::server::rtnl
