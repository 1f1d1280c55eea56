// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reconciler's ears: one NETLINK_ROUTE socket joined to RTNLGRP_LINK, RTNLGRP_DCB and the IPv4
// and IPv6 address groups, and the notifications it receives reduced to "this netdev changed /
// appeared / went away / got or lost an address".

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "os/system.hpp"

namespace roced::reconcile {

struct NetlinkEvent {
  enum class Kind {
    LinkChanged,     // RTM_NEWLINK: a netdev registered, or its state changed
    LinkRemoved,     // RTM_DELLINK: a netdev unregistered (driver unbind or reload)
    DcbChanged,      // RTM_SETDCB / RTM_GETDCB notification: its DCB state was (re)set
    AddressChanged,  // RTM_NEWADDR / RTM_DELADDR: the GID table follows; `ifindex` only
  } kind = Kind::LinkChanged;
  std::string netdev;  // empty for AddressChanged
  int ifindex = 0;
  // Link notifications only: what the reconciler compares to tell news from repeats.
  uint32_t mtu = 0;
  bool admin_up = false;
  bool carrier = false;
};

// The notifications in one datagram; anything else (other message types, malformed or nameless
// messages) is skipped.
std::vector<NetlinkEvent> parse_notifications(std::span<const uint8_t> datagram);

// A socket for notifications only (never for requests: see rtnl_request.hpp).
Result<std::unique_ptr<NetlinkSocket>> open_event_socket(System& system);

}  // namespace roced::reconcile
