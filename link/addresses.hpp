// SPDX-License-Identifier: Apache-2.0
#pragma once
// rtnetlink addresses: every IPv4 and IPv6 address of this network namespace (an RTM_GETADDR
// dump, as `ip address` reads them).

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "os/system.hpp"

namespace roced {

// An address as 16 bytes: IPv6 as it is, IPv4 mapped (::ffff:a.b.c.d), the form a RoCE GID
// takes for it (roce_gid_mgmt.c: ipv6_addr_set_v4mapped).
using Address16 = std::array<uint8_t, 16>;

// Every address by the ifindex of its netdev (ifa_index): IFA_LOCAL of IPv4 ones (on a
// point-to-point link IFA_ADDRESS is the peer's), IFA_ADDRESS of IPv6 ones.
Result<std::map<int, std::vector<Address16>>> read_addresses(System& system);

}  // namespace roced
