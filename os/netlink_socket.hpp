// SPDX-License-Identifier: Apache-2.0
#pragma once
// The kernel's NETLINK_ROUTE socket, and the datagram I/O that any message-socket transport
// shares. Everything above it (rtnl_request, the link and DCB codecs) sees only NetlinkSocket.

#include <linux/netlink.h>

#include <memory>

#include "os/netlink_message.hpp"
#include "os/system.hpp"
#include "os/unique_fd.hpp"

namespace roced {

// A kernel-style port id for this process: the pid first, then pid + (n << 22) as libnl does, so
// that every socket of the process has its own and replies can be told apart by nlmsg_pid.
uint32_t next_port_id();

// Waits up to `timeout` for one datagram on a message socket and returns it whole (its size is
// learnt with MSG_PEEK | MSG_TRUNC, which netlink and SOCK_SEQPACKET both honour).
// An empty vector means the timeout passed.
Result<std::vector<uint8_t>> receive_datagram(int fd, std::chrono::milliseconds timeout,
                                              const char* what);
// One whole datagram out (a short send is EMSGSIZE).
Result<void> send_datagram(int fd, std::span<const uint8_t> datagram, const char* what);

class KernelNetlinkSocket final : public NetlinkSocket {
 public:
  static Result<std::unique_ptr<NetlinkSocket>> open(int protocol = NETLINK_ROUTE);

  uint32_t port_id() const override;
  Result<void> send(std::span<const uint8_t> datagram) override;
  Result<std::vector<uint8_t>> receive(std::chrono::milliseconds timeout) override;
  Result<void> join_group(uint32_t group) override;
  int fd() const override;

 private:
  explicit KernelNetlinkSocket(NlSockPtr sock) : sock_(std::move(sock)) {}
  NlSockPtr sock_;
};

}  // namespace roced
