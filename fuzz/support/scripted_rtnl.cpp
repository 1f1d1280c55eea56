// SPDX-License-Identifier: Apache-2.0
#include "fuzz/support/scripted_rtnl.hpp"

#include <linux/netlink.h>

#include <cstring>

namespace roced::fuzz {

void shift_sequence_numbers(std::vector<uint8_t>& datagram, uint32_t delta) {
  size_t offset = 0;
  // NLMSG_OK's checks, with the header copied out (the vector's bytes need not be aligned).
  while (datagram.size() - offset >= sizeof(nlmsghdr)) {
    nlmsghdr header{};
    std::memcpy(&header, datagram.data() + offset, sizeof(header));
    if (header.nlmsg_len < sizeof(nlmsghdr) || header.nlmsg_len > datagram.size() - offset) break;
    header.nlmsg_seq += delta;
    std::memcpy(datagram.data() + offset, &header, sizeof(header));
    offset += NLMSG_ALIGN(header.nlmsg_len);
    if (offset > datagram.size()) break;
  }
}

Result<void> ScriptedNetlinkSocket::send(std::span<const uint8_t> datagram) {
  nlmsghdr header{};
  if (datagram.size() < sizeof(header)) return Error{EINVAL, "scripted rtnl: short request"};
  std::memcpy(&header, datagram.data(), sizeof(header));
  request_seq_ = header.nlmsg_seq;
  return ok();
}

Result<std::vector<uint8_t>> ScriptedNetlinkSocket::receive(std::chrono::milliseconds) {
  auto datagram = replies_.next();
  if (!datagram) return std::vector<uint8_t>{};  // as a timeout: the input is used up
  shift_sequence_numbers(*datagram, request_seq_);
  return std::move(*datagram);
}

System scripted_rtnl_system(DatagramStream& replies) {
  System system;
  system.open_rtnl = [&replies]() -> Result<std::unique_ptr<NetlinkSocket>> {
    return std::unique_ptr<NetlinkSocket>(new ScriptedNetlinkSocket(replies));
  };
  system.open_rdma_netlink = system.open_rtnl;  // NETLINK_RDMA's datagrams are framed alike
  system.description = "fuzz input";
  return system;
}

}  // namespace roced::fuzz
