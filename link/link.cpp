// SPDX-License-Identifier: Apache-2.0
#include "link/link.hpp"

#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <cstdio>

#include "os/rtnl_request.hpp"
#include "util/enum_names.hpp"

namespace roced {

namespace {

std::string format_mac(const nlattr* attr) {
  if (attr == nullptr) return {};
  const auto* bytes = static_cast<const uint8_t*>(nla_data(attr));
  std::string text;
  for (int i = 0; i < nla_len(attr); ++i) {
    char octet[4];
    std::snprintf(octet, sizeof(octet), i == 0 ? "%02x" : ":%02x", bytes[i]);
    text += octet;
  }
  return text;
}

// One RTM_NEWLINK message (a reply to RTM_GETLINK) -> LinkInfo; rtnl_fill_ifinfo is the layout.
Result<LinkInfo> parse_link(NlMessage& message) {
  nlmsghdr* header = message.header();
  if (header->nlmsg_type != RTM_NEWLINK || !nlmsg_valid_hdr(header, sizeof(ifinfomsg))) {
    return Error{EBADMSG, "RTM_GETLINK: unexpected reply"};
  }
  nlattr* tb[IFLA_MAX + 1] = {};
  if (int err = nlmsg_parse(header, sizeof(ifinfomsg), tb, IFLA_MAX, nullptr); err < 0) {
    return Error{EBADMSG, std::string("RTM_GETLINK: malformed reply: ") + nl_geterror(err)};
  }
  const auto* info = static_cast<const ifinfomsg*>(nlmsg_data(header));
  LinkInfo link;
  link.ifindex = info->ifi_index;
  link.admin_up = (info->ifi_flags & IFF_UP) != 0;
  link.carrier = (info->ifi_flags & IFF_LOWER_UP) != 0;
  link.name = attr_string(tb[IFLA_IFNAME]);
  attr_u32(tb[IFLA_MTU], link.mtu);
  attr_u32(tb[IFLA_MIN_MTU], link.min_mtu);
  attr_u32(tb[IFLA_MAX_MTU], link.max_mtu);
  attr_u8(tb[IFLA_OPERSTATE], link.operstate);
  link.mac = format_mac(tb[IFLA_ADDRESS]);
  if (tb[IFLA_LINKINFO] != nullptr) {
    nlattr* linkinfo[IFLA_INFO_MAX + 1] = {};
    if (nla_parse_nested(linkinfo, IFLA_INFO_MAX, tb[IFLA_LINKINFO], nullptr) == 0) {
      link.kind = attr_string(linkinfo[IFLA_INFO_KIND]);
    }
  }
  return link;
}

Result<std::unique_ptr<NetlinkSocket>> open_socket(System& system) {
  if (!system.open_rtnl) return Error{EINVAL, "no netlink transport configured"};
  return system.open_rtnl();
}

}  // namespace

// RFC 2863 states as iproute2 prints them. IF_OPER_* are an unnamed enum in linux/if.h.
using OperState = decltype(IF_OPER_UP);
constexpr auto kOperStateNames = enum_names<OperState>({
    {IF_OPER_UNKNOWN, "unknown"},
    {IF_OPER_NOTPRESENT, "notpresent"},
    {IF_OPER_DOWN, "down"},
    {IF_OPER_LOWERLAYERDOWN, "lowerlayerdown"},
    {IF_OPER_TESTING, "testing"},
    {IF_OPER_DORMANT, "dormant"},
    {IF_OPER_UP, "up"},
});
static_assert(kOperStateNames.covers<IF_OPER_UP>(), "name every IF_OPER_* state");

std::string operstate_name(uint8_t operstate) {
  // Checked first: a value past the last enumerator is outside the enum's range.
  if (operstate <= IF_OPER_UP) {
    return std::string(kOperStateNames.name(static_cast<OperState>(operstate)));
  }
  return "operstate " + std::to_string(operstate);
}

Result<std::vector<LinkInfo>> LinkClient::list() {
  auto socket = open_socket(system_);
  if (!socket) return socket.error();
  ifinfomsg request_header{};
  request_header.ifi_family = AF_UNSPEC;
  NlMsgPtr request = new_request(RTM_GETLINK, NLM_F_DUMP, &request_header, sizeof(request_header));
  auto replies = rtnl_request(**socket, request.get(), "RTM_GETLINK dump");
  if (!replies) return replies.error();
  std::vector<LinkInfo> links;
  for (auto& reply : *replies) {
    auto link = parse_link(reply);
    if (!link) return link.error();
    links.push_back(std::move(*link));
  }
  return links;
}

Result<LinkInfo> LinkClient::get(const std::string& name) {
  if (name.empty() || name.size() >= IFNAMSIZ)
    return Error{EINVAL, "'" + name + "': bad interface name"};
  auto socket = open_socket(system_);
  if (!socket) return socket.error();
  ifinfomsg request_header{};
  request_header.ifi_family = AF_UNSPEC;
  NlMsgPtr request = new_request(RTM_GETLINK, 0, &request_header, sizeof(request_header));
  nla_put_string(request.get(), IFLA_IFNAME, name.c_str());
  auto replies = rtnl_request(**socket, request.get(), name + ": RTM_GETLINK");
  if (!replies) return replies.error();
  if (replies->empty()) return Error{EBADMSG, name + ": RTM_GETLINK: empty reply"};
  auto link = parse_link(replies->front());
  if (!link) return Error{link.error().code, name + ": " + link.error().message};
  return link;
}

namespace {

// RTM_NEWLINK on an existing link by ifindex (do_setlink); `fill` adds the change.
template <class Fill>
Result<void> change_link(System& system, LinkClient& links, const std::string& name,
                         const std::string& what, Fill fill) {
  auto current = links.get(name);
  if (!current) return current.error();
  auto socket = open_socket(system);
  if (!socket) return socket.error();
  ifinfomsg request_header{};
  request_header.ifi_family = AF_UNSPEC;
  request_header.ifi_index = current->ifindex;
  fill(request_header);
  NlMsgPtr request = new_request(RTM_NEWLINK, 0, &request_header, sizeof(request_header));
  fill(request.get());
  auto replies = rtnl_request(**socket, request.get(), name + ": " + what);
  if (!replies) return replies.error();
  return ok();
}

}  // namespace

Result<void> LinkClient::set_mtu(const std::string& name, uint32_t mtu) {
  struct Fill {
    uint32_t mtu;
    void operator()(ifinfomsg&) const {}
    void operator()(nl_msg* msg) const { nla_put_u32(msg, IFLA_MTU, mtu); }
  };
  return change_link(system_, *this, name, "set MTU " + std::to_string(mtu), Fill{mtu});
}

Result<void> LinkClient::set_admin_up(const std::string& name, bool up) {
  struct Fill {
    bool up;
    void operator()(ifinfomsg& header) const {
      header.ifi_flags = up ? static_cast<unsigned>(IFF_UP) : 0u;
      header.ifi_change = IFF_UP;
    }
    void operator()(nl_msg*) const {}
  };
  return change_link(system_, *this, name, up ? "set up" : "set down", Fill{up});
}

}  // namespace roced
