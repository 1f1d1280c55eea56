// SPDX-License-Identifier: Apache-2.0
// Link messages as net/core/rtnetlink.c answers them: rtnl_fill_ifinfo, rtnl_getlink,
// rtnl_dump_ifinfo, rtnl_setlink/rtnl_newlink (do_setlink) and rtnl_dellink.

#include <arpa/inet.h>
#include <linux/if.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "sim/server/rtnl_internal.hpp"
#include "sim/server/rtnl_service.hpp"

namespace roce_sim::server {

using rtnl::normalise_errno;
using rtnl::to_self;

// Link layout: net/core/rtnetlink.c rtnl_fill_ifinfo (6.1), the attributes a physical mlx5 netdev
// carries, in the kernel's order. Values the model does not track are mlx5e defaults.
Bytes link_message(const LinkView& link, uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid,
                   uint32_t change) {
  const bool running = link.admin_up;            // netif_running
  const bool oper_up = running && link.carrier;  // netif_oper_up
  NlMessage m(type, flags, seq, pid);
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_type = ARPHRD_ETHER;
  ifi.ifi_index = link.ifindex;
  // dev_get_flags
  ifi.ifi_flags = IFF_BROADCAST | IFF_MULTICAST;
  if (link.admin_up) ifi.ifi_flags |= IFF_UP;
  if (oper_up) ifi.ifi_flags |= IFF_RUNNING | IFF_LOWER_UP;
  ifi.ifi_change = change;
  m.put_header(ifi);

  const uint64_t down_count = link.carrier_changes / 2;
  const uint64_t up_count = link.carrier_changes - down_count;
  m.put_string(IFLA_IFNAME, link.name);
  m.put_u32(IFLA_TXQLEN, 1000);
  m.put_u8(IFLA_OPERSTATE, oper_up ? IF_OPER_UP : IF_OPER_DOWN);
  m.put_u8(IFLA_LINKMODE, 0);
  m.put_u32(IFLA_MTU, link.mtu);
  m.put_u32(IFLA_MIN_MTU, link.min_mtu);
  m.put_u32(IFLA_MAX_MTU, link.max_mtu);
  m.put_u32(IFLA_GROUP, 0);
  m.put_u32(IFLA_PROMISCUITY, 0);
  m.put_u32(IFLA_NUM_TX_QUEUES, 512);
  m.put_u32(IFLA_GSO_MAX_SEGS, 65535);
  m.put_u32(IFLA_GSO_MAX_SIZE, 65536);
  m.put_u32(IFLA_GRO_MAX_SIZE, 65536);
  m.put_u32(IFLA_TSO_MAX_SIZE, 524280);
  m.put_u32(IFLA_TSO_MAX_SEGS, 65535);
  m.put_u32(IFLA_NUM_RX_QUEUES, 64);
  if (link.master != 0) m.put_u32(IFLA_MASTER, static_cast<uint32_t>(link.master));
  if (link.link != 0) m.put_u32(IFLA_LINK, static_cast<uint32_t>(link.link));  // nla_put_iflink
  m.put_u8(IFLA_CARRIER, oper_up ? 1 : 0);
  m.put_string(IFLA_QDISC, "mq");
  m.put_u32(IFLA_CARRIER_CHANGES, static_cast<uint32_t>(link.carrier_changes));
  m.put_u32(IFLA_CARRIER_UP_COUNT, static_cast<uint32_t>(up_count));
  m.put_u32(IFLA_CARRIER_DOWN_COUNT, static_cast<uint32_t>(down_count));
  m.put_u8(IFLA_PROTO_DOWN, 0);
  rtnl_link_ifmap map{};  // rtnl_fill_link_ifmap
  m.put_attr(IFLA_MAP, &map, sizeof map);
  const auto mac = rtnl::parse_mac(link.mac);
  const std::array<uint8_t, 6> broadcast = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  m.put_attr(IFLA_ADDRESS, mac.data(), mac.size());
  m.put_attr(IFLA_BROADCAST, broadcast.data(), broadcast.size());
  rtnl_link_stats64 stats64{};  // rtnl_fill_stats: the model keeps no netdev totals here
  m.put_attr(IFLA_STATS64, &stats64, sizeof stats64);
  rtnl_link_stats stats{};
  m.put_attr(IFLA_STATS, &stats, sizeof stats);
  const size_t xdp = m.begin_nest(IFLA_XDP);  // rtnl_xdp_fill: nothing attached
  m.put_u8(IFLA_XDP_ATTACHED, XDP_ATTACHED_NONE);
  m.end_nest(xdp);
  if (!link.kind.empty()) {  // rtnl_link_fill: the rtnl_link_ops' kind, and a VLAN's ID
    const size_t info = m.begin_nest(IFLA_LINKINFO);
    m.put_string(IFLA_INFO_KIND, link.kind);
    if (link.kind == "vlan") {
      // vlan_netlink.c vlan_fill_info: the protocol, the ID, and the flags vlan_newlink set.
      const size_t data = m.begin_nest(IFLA_INFO_DATA);
      m.put_u16(IFLA_VLAN_PROTOCOL, htons(ETH_P_8021Q));
      m.put_u16(IFLA_VLAN_ID, static_cast<uint16_t>(link.vlan_id));
      const ifla_vlan_flags vlan_flags{VLAN_FLAG_REORDER_HDR, ~0u};
      m.put_attr(IFLA_VLAN_FLAGS, &vlan_flags, sizeof vlan_flags);
      m.end_nest(data);
    }
    m.end_nest(info);
  }
  m.put_attr(IFLA_PERM_ADDRESS, mac.data(), mac.size());
  if (!link.pci.empty()) {
    m.put_string(IFLA_PARENT_DEV_NAME, link.pci);
    m.put_string(IFLA_PARENT_DEV_BUS_NAME, "pci");
  }
  return m.finish();
}

LinkView RtnlService::view(Port& port) {
  LinkView v;
  v.name = port.netdev();
  v.ifindex = node_.ifindex(port.netdev());
  v.admin_up = port.admin_up();
  v.carrier = port.carrier();
  v.mtu = port.mtu();
  v.min_mtu = port.min_mtu();
  v.max_mtu = port.max_mtu();
  v.carrier_changes = port.carrier_changes();
  v.mac = port.spec().mac;
  v.pci = port.spec().pci_address;
  v.master = port.spec().bond.empty() ? 0 : node_.ifindex(port.spec().bond);
  v.link = port.spec().is_upper() ? node_.ifindex(port.spec().upper_of) : 0;
  v.kind = port.spec().is_bond() ? "bond" : port.spec().upper_kind;
  v.vlan_id = port.spec().vlan_id;
  last_view_[v.ifindex] = v;
  return v;
}

// rtnl_getlink / rtnl_dump_ifinfo
int RtnlService::get_link(const NlRequest& request, const NlPeer& peer, std::vector<Outgoing>& out,
                          bool& dumped) {
  const uint32_t seq = request.header.nlmsg_seq;
  if (request.header.nlmsg_flags & NLM_F_DUMP) {
    dumped = true;
    Bytes datagram;
    for (Port* port : node_.ports()) {
      Bytes message = link_message(view(*port), RTM_NEWLINK, NLM_F_MULTI, seq, peer.pid, 0);
      datagram.insert(datagram.end(), message.begin(), message.end());
    }
    append_done(datagram, seq, peer.pid);
    out.push_back(to_self(std::move(datagram)));
    return 0;
  }
  ifinfomsg ifi{};
  if (request.payload.size() < sizeof ifi) return -EINVAL;
  std::memcpy(&ifi, request.payload.data(), sizeof ifi);
  AttrTable attrs = parse_attrs(request.payload.subspan(NLMSG_ALIGN(sizeof ifi)));
  Port* port = nullptr;
  if (ifi.ifi_index > 0) {
    port = node_.find(ifi.ifi_index);
  } else if (attrs.count(IFLA_IFNAME)) {
    port = node_.find(attr_string(attrs[IFLA_IFNAME]));
  } else if (attrs.count(IFLA_ALT_IFNAME)) {
    port = node_.find(attr_string(attrs[IFLA_ALT_IFNAME]));
  } else {
    return -EINVAL;
  }
  if (!port) return -ENODEV;
  out.push_back(to_self(link_message(view(*port), RTM_NEWLINK, 0, seq, peer.pid, 0)));
  return 0;
}

// rtnl_setlink / rtnl_newlink on an existing device: finds the device, counts the write, and
// leaves the attributes to do_setlink.
int RtnlService::set_link(const NlRequest& request) {
  ifinfomsg ifi{};
  if (request.payload.size() < sizeof ifi) return -EINVAL;
  std::memcpy(&ifi, request.payload.data(), sizeof ifi);
  AttrTable attrs = parse_attrs(request.payload.subspan(NLMSG_ALIGN(sizeof ifi)));
  Port* port = nullptr;
  if (ifi.ifi_index > 0) {
    port = node_.find(ifi.ifi_index);
  } else if (attrs.count(IFLA_IFNAME)) {
    port = node_.find(attr_string(attrs[IFLA_IFNAME]));
  }
  const bool wants_mtu = attrs.count(IFLA_MTU) != 0;
  const bool wants_flags = ifi.ifi_flags != 0 || ifi.ifi_change != 0;
  // A request that sets something is a write, whether it changes anything or fails; naming
  // attributes alone (an empty set) is not.
  const bool sets_something =
      wants_mtu || wants_flags || std::any_of(attrs.begin(), attrs.end(), [](const auto& attr) {
        return attr.first != IFLA_IFNAME && attr.first != IFLA_EXT_MASK &&
               attr.first != IFLA_ALT_IFNAME;
      });
  if (sets_something) {
    std::string named = port ? port->netdev() : std::string();
    if (!port && attrs.count(IFLA_IFNAME)) named = attr_string(attrs[IFLA_IFNAME]);
    count_write(named);
  }
  if (!port && ifi.ifi_index <= 0 && !attrs.count(IFLA_IFNAME) &&
      request.header.nlmsg_type == RTM_SETLINK) {
    return -EINVAL;
  }
  if (!port) {
    if (request.header.nlmsg_type == RTM_NEWLINK && (request.header.nlmsg_flags & NLM_F_CREATE)) {
      return -EOPNOTSUPP;  // creating virtual links (IFLA_LINKINFO kinds) is not simulated
    }
    return -ENODEV;
  }
  if (request.header.nlmsg_type == RTM_NEWLINK && (request.header.nlmsg_flags & NLM_F_EXCL))
    return -EEXIST;
  return do_setlink(*port, ifi, attrs);
}

// do_setlink: IFLA_MTU (dev_set_mtu_ext), then the flags (dev_change_flags with
// rtnl_dev_combine_flags).
int RtnlService::do_setlink(Port& port, const ifinfomsg& ifi, const AttrTable& attrs) {
  const bool wants_mtu = attrs.count(IFLA_MTU) != 0;
  const bool wants_flags = ifi.ifi_flags != 0 || ifi.ifi_change != 0;
  if (!wants_mtu && !wants_flags) return 0;
  // One injected error per request; an MTU set also matches `op: link`.
  if (const int injected = normalise_errno(
          node_.take_injected_error(port.netdev(), wants_mtu ? SetOp::Mtu : SetOp::Link));
      injected != 0) {
    return injected;
  }
  bool changed = false;
  if (wants_mtu) {
    uint32_t mtu = 0;
    if (!attr_as(attrs, IFLA_MTU, mtu)) return -EINVAL;
    if (mtu != port.mtu()) {
      if (const int err = node_.set_mtu(port, mtu); err != 0) return normalise_errno(err);
      changed = true;
    }
  }
  if (wants_flags) {
    uint32_t current = port.admin_up() ? IFF_UP : 0;
    uint32_t flags = ifi.ifi_flags;  // "ifi_change == 0 is treated as ~0"
    if (ifi.ifi_change) flags = (flags & ifi.ifi_change) | (current & ~ifi.ifi_change);
    const bool up = (flags & IFF_UP) != 0;
    if (up != port.admin_up()) {
      if (const int err = port.set_admin_up(up); err != 0) return normalise_errno(err);
      changed = true;
    }
  }
  if (changed) node_.note_link_changed(port.netdev());
  return 0;
}

// rtnl_dellink: a device without rtnl_link_ops (a physical port) cannot be deleted.
int RtnlService::del_link(const NlRequest& request) {
  ifinfomsg ifi{};
  if (request.payload.size() < sizeof ifi) return -EINVAL;
  std::memcpy(&ifi, request.payload.data(), sizeof ifi);
  AttrTable attrs = parse_attrs(request.payload.subspan(NLMSG_ALIGN(sizeof ifi)));
  Port* port = nullptr;
  if (ifi.ifi_index > 0) {
    port = node_.find(ifi.ifi_index);
  } else if (attrs.count(IFLA_IFNAME)) {
    port = node_.find(attr_string(attrs[IFLA_IFNAME]));
  } else {
    return -EINVAL;
  }
  return port ? -EOPNOTSUPP : -ENODEV;
}

}  // namespace roce_sim::server
