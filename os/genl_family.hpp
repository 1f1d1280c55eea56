// SPDX-License-Identifier: Apache-2.0
#pragma once
// A generic netlink socket to one of the kernel's families (ethtool's, net/ethtool/netlink.c;
// devlink's, net/core/devlink.c): the family's id is looked up by name once per socket
// (ctrl_getfamily), the socket kept between exchanges and opened again after a failure. Requests go
// out together and their answers are matched by sequence number. The kernel answers each inside
// its sendmsg (genl_rcv_msg runs in the sender's context), so the timeout bounds only the wait
// for answers after the last send, not the driver's time in the sends themselves.
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "os/netlink_message.hpp"
#include "os/system.hpp"

namespace roced {

// A socket joined to one of a family's multicast groups (ctrl_getfamily's CTRL_ATTR_MCAST_GROUPS
// names them; their ids are the kernel's to give), and the family's id its notifications carry.
struct GenlGroupSocket {
  std::unique_ptr<NetlinkSocket> socket;
  uint16_t family = 0;
};
// ENOENT: no such family or group in this kernel.
Result<GenlGroupSocket> open_genl_group(const System& system, const std::string& family,
                                        const std::string& group);

class GenlFamily {
 public:
  GenlFamily(const System& system, std::string name, uint8_t version)
      : system_(system), name_(std::move(name)), version_(version) {}

  // False when the system has no NETLINK_GENERIC socket, or the kernel no such family.
  bool available() const { return system_.open_genl && !unavailable_; }

  // A request of the family carrying `cmd`; attributes are then added to it. It carries the
  // family's id on the current socket: one kept for reuse is good while `connected()` and
  // `connection()` stay as they were when it was made.
  Result<NlMsgPtr> request(uint8_t cmd);
  bool connected() const { return socket_ != nullptr; }
  uint64_t connection() const { return connections_; }

  // Each request's answer, in the requests' order: the family's reply message, or the error its
  // NLMSG_ERROR carried (`contexts[i]` names the request in it), or ETIMEDOUT.
  std::vector<Result<NlMessage>> exchange(std::span<nl_msg* const> requests,
                                          const std::vector<std::string>& contexts,
                                          std::chrono::milliseconds timeout);
  std::vector<Result<NlMessage>> exchange(std::span<const NlMsgPtr> requests,
                                          const std::vector<std::string>& contexts,
                                          std::chrono::milliseconds timeout);

 private:
  Result<void> connect();

  const System& system_;
  std::string name_;
  uint8_t version_;
  std::unique_ptr<NetlinkSocket> socket_;
  std::vector<uint8_t> batch_;  // the requests' datagram, its capacity kept from round to round
  uint16_t family_ = 0;
  uint64_t connections_ = 0;
  bool unavailable_ = false;  // no such family: a kernel without ethtool netlink, say
};

}  // namespace roced
