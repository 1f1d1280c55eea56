// SPDX-License-Identifier: Apache-2.0
#pragma once
// rtnetlink as the kernel answers it, over the simulated NETLINK_ROUTE sockets: links
// (net/core/rtnetlink.c), addresses (net/ipv4/devinet.c, net/ipv6/addrconf.c), DCB
// (net/dcb/dcbnl.c), and the roce-sim control messages of uapi/roce_sim.h. Each reply layout
// lives next to the kernel function it follows, split as the kernel splits them: rtnl_link.cpp,
// rtnl_addr.cpp, dcbnl.cpp; rtnl_service.cpp only dispatches.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/model/node.hpp"
#include "sim/server/nl_wire.hpp"
#include "sim/server/write_counter.hpp"

struct ifinfomsg;  // <linux/rtnetlink.h>

namespace roce_sim::server {

// What the kernel knows about one netlink socket: its port id and multicast groups.
struct NlPeer {
  uint32_t pid = 0;
  std::set<uint32_t> groups;
  bool net_admin = true;  // CAP_NET_ADMIN in the client's effective set when it connected
};

// A roce-sim control message (uapi/roce_sim.h ROCE_SIM_NLMSG_CTL) applied to the connection's
// state as bind() and setsockopt() would change a netlink socket's; false for any other message.
bool apply_control_message(const NlRequest& request, NlPeer& peer);

// One datagram to send: to the requesting connection, or to every member of a group.
struct Outgoing {
  bool multicast = false;
  uint32_t group = 0;
  Bytes datagram;
  bool generic = false;  // a generic netlink group's: for NETLINK_GENERIC sockets only
};

// A link as rtnl_fill_ifinfo reads it from a net_device.
struct LinkView {
  std::string name;
  int ifindex = 0;
  bool admin_up = false;
  bool carrier = false;
  uint32_t mtu = 1500, min_mtu = 68, max_mtu = 9978;
  uint64_t carrier_changes = 0;
  std::string mac;
  std::string pci;
  int master = 0;    // a bond slave's bond (IFLA_MASTER); 0 for none
  int link = 0;      // an upper device's port (IFLA_LINK, from ndo_get_iflink); 0 for none
  std::string kind;  // IFLA_INFO_KIND of a stacked netdev ("bond", "vlan", "macvlan")
  uint32_t vlan_id = 0;
};

class RtnlService {
 public:
  // `writes`, when given, counts the clients' set requests (DCB sets, link sets).
  explicit RtnlService(Node& node, WriteCounter* writes = nullptr) : node_(node), writes_(writes) {}

  // One datagram from a connection; returns what to send, in the kernel's order.
  std::vector<Outgoing> handle(ByteView datagram, NlPeer& peer);
  // Notifications for model events raised outside a request (scenario, driver reloads).
  std::vector<Outgoing> drain_events();

  // Request kinds seen (for --verbose).
  std::vector<std::string> take_request_log();

 private:
  int dispatch(const NlRequest& request, const NlPeer& peer, std::vector<Outgoing>& out,
               bool& dumped);
  int get_link(const NlRequest& request, const NlPeer& peer, std::vector<Outgoing>& out,
               bool& dumped);
  int set_link(const NlRequest& request);
  int do_setlink(Port& port, const ifinfomsg& ifi, const AttrTable& attrs);
  int del_link(const NlRequest& request);
  int get_addr(const NlRequest& request, const NlPeer& peer, std::vector<Outgoing>& out,
               bool& dumped);
  int dcb(const NlRequest& request, const NlPeer& peer, std::vector<Outgoing>& out);

  LinkView view(Port& port);
  void events_to(std::vector<Outgoing>& out);

  void count_write(const std::string& netdev) {
    if (writes_) writes_->count(netdev);
  }

  Node& node_;
  WriteCounter* writes_;
  std::map<int, LinkView> last_view_;  // by ifindex: what RTM_DELLINK reports for a vanished port
  std::vector<std::string> request_log_;
};

// The layouts, exposed for tests and for the notification paths.
Bytes link_message(const LinkView& link, uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid,
                   uint32_t change);
Bytes dcb_ieee_message(const Port& port, uint16_t type, uint8_t cmd, uint16_t flags, uint32_t seq,
                       uint32_t pid);

}  // namespace roce_sim::server
