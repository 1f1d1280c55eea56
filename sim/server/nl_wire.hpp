// SPDX-License-Identifier: Apache-2.0
#pragma once
// Netlink message building and attribute parsing for the simulated kernel: the few nlmsg/nla
// helpers of include/net/netlink.h, over byte vectors. Alignment is NLMSG_ALIGNTO/NLA_ALIGNTO (4).

#include <linux/netlink.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace roce_sim::server {

using Bytes = std::vector<uint8_t>;
using ByteView = std::span<const uint8_t>;

// Builds one netlink message (nlmsg_put ... nlmsg_end) and appends it to a datagram.
class NlMessage {
 public:
  NlMessage(uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid);

  // The family header (ifinfomsg, dcbmsg, ...) right after nlmsghdr.
  template <typename T>
  void put_header(const T& header) {
    put_raw(&header, sizeof header);
  }
  void put_attr(uint16_t type, const void* data, size_t len);  // nla_put
  void put_u8(uint16_t type, uint8_t value) { put_attr(type, &value, 1); }
  void put_u16(uint16_t type, uint16_t value) { put_attr(type, &value, 2); }
  void put_u32(uint16_t type, uint32_t value) { put_attr(type, &value, 4); }
  // nla_put_u64_64bit on x86-64 (CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS: no pad attribute).
  void put_u64(uint16_t type, uint64_t value) { put_attr(type, &value, 8); }
  void put_string(uint16_t type, std::string_view text);  // nla_put_string: NUL-terminated
  size_t begin_nest(uint16_t type);                       // nla_nest_start_noflag
  void end_nest(size_t start);                            // nla_nest_end

  // nlmsg_end: fixes nlmsg_len; appends the message to `datagram`.
  void append_to(Bytes& datagram);
  Bytes finish();

 private:
  void put_raw(const void* data, size_t len);
  void pad();
  Bytes buf_;
};

// A parsed netlink message inside a received datagram.
struct NlRequest {
  nlmsghdr header{};
  ByteView whole;    // the full message, header included (for error replies)
  ByteView payload;  // after nlmsghdr
};

// Splits a datagram into messages (NLMSG_OK/NLMSG_NEXT); stops at the first malformed one.
std::vector<NlRequest> split_messages(ByteView datagram);

// nla_parse: the last attribute of a type wins; type bits NLA_F_NESTED/NLA_F_NET_BYTEORDER masked.
using AttrTable = std::map<uint16_t, ByteView>;
AttrTable parse_attrs(ByteView data);
// Attributes in order (nla_for_each_attr), for nested lists such as the APP table.
std::vector<std::pair<uint16_t, ByteView>> list_attrs(ByteView data);

std::string attr_string(ByteView value);  // up to the first NUL

template <typename T>
bool attr_as(const AttrTable& table, uint16_t type, T& out) {
  auto it = table.find(type);
  if (it == table.end() || it->second.size() < sizeof(T)) return false;
  std::memcpy(&out, it->second.data(), sizeof(T));
  return true;
}

// netlink_ack (net/netlink/af_netlink.c): NLMSG_ERROR carrying `error` and, for an error, the
// whole request (no NETLINK_CAP_ACK over the simulated socket); an ACK is capped (NLM_F_CAPPED).
Bytes make_ack(const NlRequest& request, int error, uint32_t pid);
// netlink_dump_done: NLMSG_DONE with an int 0 payload, NLM_F_MULTI.
void append_done(Bytes& datagram, uint32_t seq, uint32_t pid);

}  // namespace roce_sim::server
