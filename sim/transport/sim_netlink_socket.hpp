// SPDX-License-Identifier: Apache-2.0
#pragma once
// roce-sim's stand-in for a NETLINK_ROUTE socket: a SOCK_SEQPACKET connection to DIR/rtnl.sock
// carrying the same netlink datagrams the kernel would.

#include <filesystem>
#include <memory>

#include "os/system.hpp"
#include "os/unique_fd.hpp"

namespace roce_sim {

// One connection to DIR/rtnl.sock stands for one netlink socket; the state a kernel would learn
// from bind() and setsockopt() is reported with ROCE_SIM_NLMSG_CTL messages (uapi/roce_sim.h).
class SimNetlinkSocket final : public roced::NetlinkSocket {
 public:
  static roced::Result<std::unique_ptr<roced::NetlinkSocket>> connect(
      const std::filesystem::path& socket_path);

  uint32_t port_id() const override { return port_id_; }
  roced::Result<void> send(std::span<const uint8_t> datagram) override;
  roced::Result<std::vector<uint8_t>> receive(std::chrono::milliseconds timeout) override;
  roced::Result<void> join_group(uint32_t group) override;
  int fd() const override { return fd_.get(); }

 private:
  SimNetlinkSocket(roced::UniqueFd fd, uint32_t port_id) : fd_(std::move(fd)), port_id_(port_id) {}
  roced::Result<void> send_control(uint32_t op, uint32_t arg, uint32_t arg2);

  roced::UniqueFd fd_;
  uint32_t port_id_;
};

}  // namespace roce_sim
