// SPDX-License-Identifier: Apache-2.0
#include "sim/transport/sim_netlink_socket.hpp"

#include <roce_sim.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

#include "os/netlink_message.hpp"
#include "os/netlink_socket.hpp"
#include "sim/transport/seqpacket.hpp"

namespace roce_sim {

using roced::Error;
using roced::Result;
using roced::UniqueFd;

Result<std::unique_ptr<roced::NetlinkSocket>> SimNetlinkSocket::connect(
    const std::filesystem::path& socket_path) {
  Result<UniqueFd> fd = connect_seqpacket(socket_path);
  if (!fd) return fd.error();
  std::unique_ptr<SimNetlinkSocket> sock(
      new SimNetlinkSocket(std::move(fd).value(), roced::next_port_id()));
  if (auto bound = sock->send_control(ROCE_SIM_CTL_BIND, sock->port_id_, 0); !bound) {
    return bound.error();
  }
  return std::unique_ptr<roced::NetlinkSocket>(std::move(sock));
}

Result<void> SimNetlinkSocket::send_control(uint32_t op, uint32_t arg, uint32_t arg2) {
  roce_sim_nl_ctl ctl{op, arg, arg2, 0};
  roced::NlMsgPtr msg(nlmsg_alloc_simple(ROCE_SIM_NLMSG_CTL, 0));
  if (!msg || nlmsg_append(msg.get(), &ctl, sizeof(ctl), NLMSG_ALIGNTO) < 0) {
    return Error{ENOMEM, "roce-sim: cannot build a control message"};
  }
  nlmsg_hdr(msg.get())->nlmsg_pid = port_id_;
  return send(roced::message_bytes(msg.get()));
}

Result<void> SimNetlinkSocket::send(std::span<const uint8_t> datagram) {
  return roced::send_datagram(fd_.get(), datagram, "roce-sim rtnl");
}

Result<std::vector<uint8_t>> SimNetlinkSocket::receive(std::chrono::milliseconds timeout) {
  return roced::receive_datagram(fd_.get(), timeout, "roce-sim rtnl");
}

Result<void> SimNetlinkSocket::join_group(uint32_t group) {
  return send_control(ROCE_SIM_CTL_ADD_MEMBERSHIP, group, 0);
}

}  // namespace roce_sim
