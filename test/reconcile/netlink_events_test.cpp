// SPDX-License-Identifier: Apache-2.0
// parse_notifications: RTNLGRP_LINK, RTNLGRP_DCB and address messages as the kernel lays them out,
// several to a datagram, and what must be skipped.
#include "daemon/reconcile/netlink_events.hpp"

#include <gtest/gtest.h>
#include <linux/dcbnl.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <sys/socket.h>

#include <vector>

#include "daemon/reconcile/reconciler.hpp"

namespace roced::reconcile {
namespace {

using Bytes = std::vector<uint8_t>;

void append(Bytes& datagram, nl_msg* msg) {
  const nlmsghdr* header = nlmsg_hdr(msg);
  const auto* bytes = reinterpret_cast<const uint8_t*>(header);
  datagram.insert(datagram.end(), bytes, bytes + NLMSG_ALIGN(header->nlmsg_len));
  nlmsg_free(msg);
}

nl_msg* link_message(uint16_t type, const char* name, int ifindex, unsigned flags, uint32_t mtu) {
  nl_msg* msg = nlmsg_alloc_simple(type, 0);
  ifinfomsg info{};
  info.ifi_index = ifindex;
  info.ifi_flags = flags;
  nlmsg_append(msg, &info, sizeof info, NLMSG_ALIGNTO);
  if (name != nullptr) nla_put_string(msg, IFLA_IFNAME, name);
  nla_put_u32(msg, IFLA_MTU, mtu);
  return msg;
}

nl_msg* dcb_message(uint16_t type, const char* name) {
  nl_msg* msg = nlmsg_alloc_simple(type, 0);
  dcbmsg header{};
  header.cmd = DCB_CMD_IEEE_SET;
  nlmsg_append(msg, &header, sizeof header, NLMSG_ALIGNTO);
  nla_put_string(msg, DCB_ATTR_IFNAME, name);
  nla_put_u8(msg, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST);
  return msg;
}

TEST(NetlinkEvents, LinkAndDcbNotificationsInOneDatagram) {
  Bytes datagram;
  append(datagram, link_message(RTM_NEWLINK, "lan3", 7, IFF_UP | IFF_LOWER_UP, 9000));
  append(datagram, dcb_message(RTM_SETDCB, "lan4"));
  append(datagram, link_message(RTM_DELLINK, "lan5", 9, 0, 1500));
  append(datagram, dcb_message(RTM_GETDCB, "lan2"));

  const auto events = parse_notifications(datagram);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].kind, NetlinkEvent::Kind::LinkChanged);
  EXPECT_EQ(events[0].netdev, "lan3");
  EXPECT_EQ(events[0].ifindex, 7);
  EXPECT_EQ(events[0].mtu, 9000u);
  EXPECT_TRUE(events[0].admin_up);
  EXPECT_TRUE(events[0].carrier);
  EXPECT_EQ(events[1].kind, NetlinkEvent::Kind::DcbChanged);
  EXPECT_EQ(events[1].netdev, "lan4");
  EXPECT_EQ(events[2].kind, NetlinkEvent::Kind::LinkRemoved);
  EXPECT_EQ(events[2].netdev, "lan5");
  EXPECT_FALSE(events[2].admin_up);
  EXPECT_EQ(events[3].kind, NetlinkEvent::Kind::DcbChanged);
  EXPECT_EQ(events[3].netdev, "lan2");
}

nl_msg* address_message(uint16_t type, unsigned char family, uint32_t ifindex) {
  nl_msg* msg = nlmsg_alloc_simple(type, 0);
  ifaddrmsg ifa{};
  ifa.ifa_family = family;
  ifa.ifa_index = ifindex;
  nlmsg_append(msg, &ifa, sizeof ifa, NLMSG_ALIGNTO);
  return msg;
}

// An address coming or going moves the GID table: the event names the interface by index only
// (IPv6 notifications carry no name).
TEST(NetlinkEvents, AddressNotificationsNameTheInterfaceIndex) {
  Bytes datagram;
  append(datagram, address_message(RTM_NEWADDR, AF_INET6, 12));
  append(datagram, address_message(RTM_DELADDR, AF_INET, 5));
  append(datagram, address_message(RTM_NEWADDR, AF_INET, 0));  // no interface: skipped
  const auto events = parse_notifications(datagram);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, NetlinkEvent::Kind::AddressChanged);
  EXPECT_EQ(events[0].ifindex, 12);
  EXPECT_TRUE(events[0].netdev.empty());
  EXPECT_EQ(events[1].kind, NetlinkEvent::Kind::AddressChanged);
  EXPECT_EQ(events[1].ifindex, 5);
}

TEST(NetlinkEvents, SkipsOtherTypesNamelessMessagesAndGarbage) {
  Bytes datagram;
  append(datagram, link_message(RTM_NEWLINK, nullptr, 3, IFF_UP, 1500));  // no IFLA_IFNAME
  append(datagram, address_message(RTM_NEWROUTE, AF_INET, 3));
  EXPECT_TRUE(parse_notifications(datagram).empty());

  const Bytes garbage = {1, 2, 3};
  EXPECT_TRUE(parse_notifications(garbage).empty());
  EXPECT_TRUE(parse_notifications(Bytes{}).empty());

  // A header that claims more bytes than there are ends the datagram.
  Bytes truncated;
  append(truncated, link_message(RTM_NEWLINK, "lan3", 7, IFF_UP, 9000));
  truncated.resize(truncated.size() - 8);
  EXPECT_TRUE(parse_notifications(truncated).empty());
}

TEST(NetlinkEvents, ConditionAndEventNames) {
  EXPECT_EQ(condition_name(PortCondition::InSync), "in-sync");
  EXPECT_EQ(condition_name(PortCondition::Vanished), "vanished");
  EXPECT_EQ(event_kind_name(PortEvent::Kind::ApplyFailed), "apply-failed");
  EXPECT_EQ(event_kind_name(PortEvent::Kind::Corrected), "corrected");
}

}  // namespace
}  // namespace roced::reconcile
