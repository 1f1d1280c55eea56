// SPDX-License-Identifier: Apache-2.0
// Address dumps as the kernel answers RTM_GETADDR: net/ipv4/devinet.c (inet_dump_ifaddr) and
// net/ipv6/addrconf.c (inet6_dump_addr), from the ports' addresses as they are now.

#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>

#include "sim/server/rtnl_internal.hpp"
#include "sim/server/rtnl_service.hpp"

namespace roce_sim::server {

namespace {

// One RTM_GETADDR dump in progress: its messages are appended to `datagram`.
struct AddrDump {
  uint32_t seq;
  uint32_t pid;
  Bytes& datagram;
};

// An address as the ports' specs hold it; every one is permanent.
struct AddrView {
  const void* addr;
  size_t len;
  uint8_t prefix;
  uint8_t scope;
  int ifindex;
};

NlMessage new_addr_message(const AddrDump& dump, int af, const AddrView& a) {
  NlMessage m(RTM_NEWADDR, NLM_F_MULTI, dump.seq, dump.pid);
  ifaddrmsg ifa{};
  ifa.ifa_family = static_cast<uint8_t>(af);
  ifa.ifa_prefixlen = a.prefix;
  ifa.ifa_flags = IFA_F_PERMANENT;
  ifa.ifa_scope = a.scope;
  ifa.ifa_index = static_cast<uint32_t>(a.ifindex);
  m.put_header(ifa);
  return m;
}

ifa_cacheinfo permanent_cacheinfo() {
  ifa_cacheinfo cache{};
  cache.ifa_prefered = 0xffffffffu;
  cache.ifa_valid = 0xffffffffu;
  return cache;
}

// net/ipv4/devinet.c inet_fill_ifaddr
void inet_fill_ifaddr(const AddrDump& dump, const AddrView& a, const std::string& label,
                      const void* broadcast) {
  NlMessage m = new_addr_message(dump, AF_INET, a);
  const ifa_cacheinfo cache = permanent_cacheinfo();
  m.put_attr(IFA_ADDRESS, a.addr, a.len);
  m.put_attr(IFA_LOCAL, a.addr, a.len);
  if (broadcast) m.put_attr(IFA_BROADCAST, broadcast, a.len);
  m.put_string(IFA_LABEL, label);
  m.put_u32(IFA_FLAGS, IFA_F_PERMANENT);
  m.put_attr(IFA_CACHEINFO, &cache, sizeof cache);
  m.append_to(dump.datagram);
}

// net/ipv6/addrconf.c inet6_fill_ifaddr
void inet6_fill_ifaddr(const AddrDump& dump, const AddrView& a) {
  NlMessage m = new_addr_message(dump, AF_INET6, a);
  const ifa_cacheinfo cache = permanent_cacheinfo();
  m.put_attr(IFA_ADDRESS, a.addr, a.len);
  m.put_attr(IFA_CACHEINFO, &cache, sizeof cache);
  m.put_u32(IFA_FLAGS, IFA_F_PERMANENT);
  m.append_to(dump.datagram);
}

// The port's addresses of one family as they are now (scenario address events change them), in
// the order they were added; IPv6 ones hold a ':'.
std::vector<std::string> addresses_of(const Port& port, bool ipv6) {
  std::vector<std::string> out;
  for (const std::string& cidr : port.rdma().addresses()) {
    if ((cidr.find(':') != std::string::npos) == ipv6) out.push_back(cidr);
  }
  return out;
}

// "10.0.0.1/24": the address and its prefix, `fallback` when the length is not written.
void split_cidr(const std::string& cidr, std::string& ip, int& prefix, int fallback) {
  const auto slash = cidr.find('/');
  ip = cidr.substr(0, slash);
  prefix = slash == std::string::npos ? fallback : std::atoi(cidr.c_str() + slash + 1);
}

// net/ipv4/devinet.c inet_dump_ifaddr
void inet_dump_ifaddr(Node& node, const AddrDump& dump) {
  for (Port* port : node.ports()) {
    for (const std::string& cidr : addresses_of(*port, false)) {
      std::string ip;
      int prefix = 32;
      split_cidr(cidr, ip, prefix, 32);
      in_addr addr{};
      if (inet_pton(AF_INET, ip.c_str(), &addr) != 1) continue;
      in_addr broadcast = addr;
      if (prefix < 32) {
        const uint32_t host_mask = prefix == 0 ? 0xffffffffu : (0xffffffffu >> prefix);
        broadcast.s_addr = htonl(ntohl(addr.s_addr) | host_mask);
      }
      const AddrView a{&addr, sizeof addr, static_cast<uint8_t>(prefix), RT_SCOPE_UNIVERSE,
                       node.ifindex(port->netdev())};
      inet_fill_ifaddr(dump, a, port->netdev(), prefix < 31 ? &broadcast : nullptr);
    }
  }
}

// net/ipv6/addrconf.c addrconf_ifid_eui48: fe80::/64 with the MAC's modified EUI-64.
in6_addr link_local_of(const std::string& mac_text) {
  const auto mac = rtnl::parse_mac(mac_text);
  in6_addr link_local{};
  link_local.s6_addr[0] = 0xfe;
  link_local.s6_addr[1] = 0x80;
  link_local.s6_addr[8] = static_cast<uint8_t>(mac[0] ^ 0x02);
  link_local.s6_addr[9] = mac[1];
  link_local.s6_addr[10] = mac[2];
  link_local.s6_addr[11] = 0xff;
  link_local.s6_addr[12] = 0xfe;
  link_local.s6_addr[13] = mac[3];
  link_local.s6_addr[14] = mac[4];
  link_local.s6_addr[15] = mac[5];
  return link_local;
}

// net/ipv6/addrconf.c inet6_dump_addr
void inet6_dump_addr(Node& node, const AddrDump& dump) {
  for (Port* port : node.ports()) {
    const int ifindex = node.ifindex(port->netdev());
    for (const std::string& cidr : addresses_of(*port, true)) {
      std::string ip;
      int prefix = 128;
      split_cidr(cidr, ip, prefix, 128);
      in6_addr addr{};
      if (inet_pton(AF_INET6, ip.c_str(), &addr) != 1) continue;
      inet6_fill_ifaddr(
          dump, {&addr, sizeof addr, static_cast<uint8_t>(prefix), RT_SCOPE_UNIVERSE, ifindex});
    }
    const in6_addr link_local = link_local_of(port->spec().mac);
    inet6_fill_ifaddr(dump, {&link_local, sizeof link_local, 64, RT_SCOPE_LINK, ifindex});
  }
}

}  // namespace

// inet_dump_ifaddr / inet6_dump_addr: the ports' configured addresses (IPv6 link-local from the
// MAC's EUI-64 first, as addrconf adds it at link up).
int RtnlService::get_addr(const NlRequest& request, const NlPeer& peer, std::vector<Outgoing>& out,
                          bool& dumped) {
  if (!(request.header.nlmsg_flags & NLM_F_DUMP)) return -EOPNOTSUPP;  // no doit for RTM_GETADDR
  dumped = true;
  uint8_t family = AF_UNSPEC;
  if (!request.payload.empty()) family = request.payload[0];
  Bytes datagram;
  const AddrDump dump{request.header.nlmsg_seq, peer.pid, datagram};
  if (family == AF_UNSPEC || family == AF_INET) inet_dump_ifaddr(node_, dump);
  if (family == AF_UNSPEC || family == AF_INET6) inet6_dump_addr(node_, dump);
  append_done(datagram, dump.seq, peer.pid);
  out.push_back(rtnl::to_self(std::move(datagram)));
  return 0;
}

}  // namespace roce_sim::server
