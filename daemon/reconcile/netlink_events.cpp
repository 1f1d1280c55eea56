// SPDX-License-Identifier: Apache-2.0
// RTNLGRP_LINK, RTNLGRP_DCB and the address groups' notifications -> NetlinkEvent. The layouts are
// the kernel's: rtnl_fill_ifinfo (struct ifinfomsg + IFLA_*), dcbnl_notify (struct dcbmsg +
// DCB_ATTR_IFNAME) and inet_fill_ifaddr / inet6_fill_ifaddr (struct ifaddrmsg).
#include "daemon/reconcile/netlink_events.hpp"

#include <linux/dcbnl.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>

#include <utility>

#include "os/netlink_message.hpp"

namespace roced::reconcile {

namespace {

bool parse_link(const nlmsghdr* header, NetlinkEvent& event) {
  if (!nlmsg_valid_hdr(header, sizeof(ifinfomsg))) return false;
  nlattr* tb[IFLA_MAX + 1] = {};
  if (nlmsg_parse(const_cast<nlmsghdr*>(header), sizeof(ifinfomsg), tb, IFLA_MAX, nullptr) < 0) {
    return false;
  }
  const auto* info = static_cast<const ifinfomsg*>(nlmsg_data(header));
  event.kind = header->nlmsg_type == RTM_DELLINK ? NetlinkEvent::Kind::LinkRemoved
                                                 : NetlinkEvent::Kind::LinkChanged;
  event.netdev = attr_string(tb[IFLA_IFNAME]);
  event.ifindex = info->ifi_index;
  event.admin_up = (info->ifi_flags & IFF_UP) != 0;
  event.carrier = (info->ifi_flags & IFF_LOWER_UP) != 0;
  attr_u32(tb[IFLA_MTU], event.mtu);
  return !event.netdev.empty();
}

bool parse_dcb(const nlmsghdr* header, NetlinkEvent& event) {
  if (!nlmsg_valid_hdr(header, sizeof(dcbmsg))) return false;
  const nlattr* name =
      nlmsg_find_attr(const_cast<nlmsghdr*>(header), sizeof(dcbmsg), DCB_ATTR_IFNAME);
  event.kind = NetlinkEvent::Kind::DcbChanged;
  event.netdev = attr_string(name);
  return !event.netdev.empty();
}

// An address came or went: the RoCE GID table follows the netdev's addresses, so the RoCE v2 GID
// index may have moved. IPv6 messages carry no name (IFA_LABEL is IPv4's): the reconciler maps
// the index to its port.
bool parse_address(const nlmsghdr* header, NetlinkEvent& event) {
  if (!nlmsg_valid_hdr(header, sizeof(ifaddrmsg))) return false;
  const auto* address = static_cast<const ifaddrmsg*>(nlmsg_data(header));
  event.kind = NetlinkEvent::Kind::AddressChanged;
  event.ifindex = static_cast<int>(address->ifa_index);
  return event.ifindex > 0;
}

}  // namespace

std::vector<NetlinkEvent> parse_notifications(std::span<const uint8_t> datagram) {
  std::vector<NetlinkEvent> events;
  // Copied so the headers are aligned whatever buffer the datagram came in.
  NlMessage copy(datagram);
  nlmsghdr* header = copy.header();
  int remaining = static_cast<int>(copy.bytes().size());
  if (remaining < static_cast<int>(sizeof(nlmsghdr))) return events;
  for (; nlmsg_ok(header, remaining); header = nlmsg_next(header, &remaining)) {
    NetlinkEvent event;
    bool parsed = false;
    switch (header->nlmsg_type) {
      case RTM_NEWLINK:
      case RTM_DELLINK:
        parsed = parse_link(header, event);
        break;
      case RTM_NEWADDR:
      case RTM_DELADDR:
        parsed = parse_address(header, event);
        break;
      case RTM_GETDCB:  // what drivers with a firmware DCBX agent send
      case RTM_SETDCB:  // dcbnl_ieee_notify after a set
        parsed = parse_dcb(header, event);
        break;
      default:
        break;
    }
    if (parsed) events.push_back(std::move(event));
  }
  return events;
}

Result<std::unique_ptr<NetlinkSocket>> open_event_socket(System& system) {
  if (!system.open_rtnl) return Error{EINVAL, "no netlink transport configured"};
  auto socket = system.open_rtnl();
  if (!socket) return socket.error();
  const std::pair<uint32_t, const char*> groups[] = {{RTNLGRP_LINK, "RTNLGRP_LINK"},
                                                     {RTNLGRP_DCB, "RTNLGRP_DCB"},
                                                     {RTNLGRP_IPV4_IFADDR, "RTNLGRP_IPV4_IFADDR"},
                                                     {RTNLGRP_IPV6_IFADDR, "RTNLGRP_IPV6_IFADDR"}};
  for (const auto& [group, name] : groups) {
    if (auto joined = (*socket)->join_group(group); !joined) {
      return Error{joined.error().code,
                   "joining " + std::string(name) + ": " + joined.error().message};
    }
  }
  return socket;
}

}  // namespace roced::reconcile
