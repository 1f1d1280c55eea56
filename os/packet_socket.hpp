// SPDX-License-Identifier: Apache-2.0
#pragma once
// LLDP frames from the kernel: an AF_PACKET socket bound to one netdev and ethertype 0x88cc,
// with the nearest-bridge group address joined (as lldpd and lldpad do; the memberships are
// counted, so they coexist) and a socket filter, so the kernel copies nothing else to roced.

#include <memory>
#include <string>

#include "os/system.hpp"

namespace roced {

// Needs CAP_NET_RAW (af_packet.c packet_create); EPERM without it.
Result<std::unique_ptr<FrameSocket>> open_lldp_packet_socket(const std::string& netdev);

}  // namespace roced
