// SPDX-License-Identifier: Apache-2.0
#include "link/addresses.hpp"

#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "os/rtnl_request.hpp"

namespace roced {

namespace {

// One RTM_NEWADDR message (net/ipv4/devinet.c inet_fill_ifaddr, net/ipv6/addrconf.c
// inet6_fill_ifaddr); false when it holds no address of a family we know.
bool parse_address(NlMessage& message, int& ifindex, Address16& out) {
  nlmsghdr* header = message.header();
  if (header->nlmsg_type != RTM_NEWADDR || !nlmsg_valid_hdr(header, sizeof(ifaddrmsg))) {
    return false;
  }
  nlattr* tb[IFA_MAX + 1] = {};
  if (nlmsg_parse(header, sizeof(ifaddrmsg), tb, IFA_MAX, nullptr) < 0) return false;
  const auto* info = static_cast<const ifaddrmsg*>(nlmsg_data(header));
  ifindex = static_cast<int>(info->ifa_index);
  out = {};
  if (info->ifa_family == AF_INET) {
    const nlattr* attr = tb[IFA_LOCAL] != nullptr ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
    if (attr == nullptr || nla_len(attr) != 4) return false;
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, nla_data(attr), 4);
    return true;
  }
  if (info->ifa_family == AF_INET6) {
    const nlattr* attr = tb[IFA_ADDRESS];
    if (attr == nullptr || nla_len(attr) != 16) return false;
    std::memcpy(out.data(), nla_data(attr), 16);
    return true;
  }
  return false;
}

}  // namespace

Result<std::map<int, std::vector<Address16>>> read_addresses(System& system) {
  if (!system.open_rtnl) return Error{EINVAL, "no netlink transport configured"};
  auto socket = system.open_rtnl();
  if (!socket) return socket.error();
  ifaddrmsg request_header{};
  request_header.ifa_family = AF_UNSPEC;
  NlMsgPtr request = new_request(RTM_GETADDR, NLM_F_DUMP, &request_header, sizeof(request_header));
  auto replies = rtnl_request(**socket, request.get(), "RTM_GETADDR dump");
  if (!replies) return replies.error();
  std::map<int, std::vector<Address16>> addresses;
  for (auto& reply : *replies) {
    int ifindex = 0;
    Address16 address{};
    if (parse_address(reply, ifindex, address)) addresses[ifindex].push_back(address);
  }
  return addresses;
}

}  // namespace roced
