// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every generic netlink family's handler needs: the request's generic header and attributes
// (genl_family_rcv_msg), and a reply with its own generic header.
#include <linux/genetlink.h>

#include <cstring>

#include "sim/server/nl_wire.hpp"

namespace roce_sim::server {

inline genlmsghdr genl_header(ByteView payload) {
  genlmsghdr header{};
  if (payload.size() >= GENL_HDRLEN) std::memcpy(&header, payload.data(), sizeof header);
  return header;
}

inline ByteView genl_attrs(ByteView payload) {
  return payload.size() >= GENL_HDRLEN ? payload.subspan(GENL_HDRLEN) : ByteView{};
}

inline NlMessage genl_reply(uint16_t family, uint8_t cmd, uint8_t version, const NlRequest& request,
                            const NlPeer& peer) {
  NlMessage message(family, 0, request.header.nlmsg_seq, peer.pid);
  genlmsghdr header{};
  header.cmd = cmd;
  header.version = version;
  message.put_header(header);
  return message;
}

}  // namespace roce_sim::server
