// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two NetlinkSocket transports: the kernel's AF_NETLINK NETLINK_ROUTE, and roce-sim's
// rtnl.sock. Everything above them (rtnl_request, the link and DCB codecs) is the same for both.

#include <filesystem>
#include <memory>

#include "netlink/message.hpp"
#include "netlink/system.hpp"
#include "netlink/unique_fd.hpp"

namespace roced {

// A kernel-style port id for this process: the pid first, then pid + (n << 22) as libnl does, so
// that every socket of the process has its own and replies can be told apart by nlmsg_pid.
uint32_t next_port_id();

// Waits up to `timeout` for one datagram on a message socket and returns it whole (its size is
// learnt with MSG_PEEK | MSG_TRUNC, which netlink and SOCK_SEQPACKET both honour).
// An empty vector means the timeout passed.
Result<std::vector<uint8_t>> receive_datagram(int fd, std::chrono::milliseconds timeout,
                                              const char* what);

class KernelNetlinkSocket final : public NetlinkSocket {
 public:
  static Result<std::unique_ptr<NetlinkSocket>> open();

  uint32_t port_id() const override;
  Result<void> send(std::span<const uint8_t> datagram) override;
  Result<std::vector<uint8_t>> receive(std::chrono::milliseconds timeout) override;
  Result<void> join_group(uint32_t group) override;
  int fd() const override;

 private:
  explicit KernelNetlinkSocket(NlSockPtr sock) : sock_(std::move(sock)) {}
  NlSockPtr sock_;
};

// One connection to DIR/rtnl.sock stands for one netlink socket; the state a kernel would learn
// from bind() and setsockopt() is reported with ROCE_SIM_NLMSG_CTL messages (uapi/roce_sim.h).
class SimNetlinkSocket final : public NetlinkSocket {
 public:
  static Result<std::unique_ptr<NetlinkSocket>> connect(const std::filesystem::path& socket_path);

  uint32_t port_id() const override { return port_id_; }
  Result<void> send(std::span<const uint8_t> datagram) override;
  Result<std::vector<uint8_t>> receive(std::chrono::milliseconds timeout) override;
  Result<void> join_group(uint32_t group) override;
  int fd() const override { return fd_.get(); }

 private:
  SimNetlinkSocket(UniqueFd fd, uint32_t port_id) : fd_(std::move(fd)), port_id_(port_id) {}
  Result<void> send_control(uint32_t op, uint32_t arg, uint32_t arg2);

  UniqueFd fd_;
  uint32_t port_id_;
};

}  // namespace roced
