// SPDX-License-Identifier: Apache-2.0
#pragma once
// A NETLINK_ROUTE transport whose every reply comes from fuzz input, so the production clients
// (LinkClient, DcbClient) and rtnl_request decode whatever bytes a kernel could send.

#include <memory>

#include "fuzz/support/datagram_stream.hpp"
#include "os/system.hpp"

namespace roced::fuzz {

// Sequence numbers: a reply's stored nlmsg_seq is taken relative to the request it answers (0 =
// the current request), so seeds stay valid whatever number rtnl_request picks; any other value
// still reaches the "stale or unsolicited" path.
class ScriptedNetlinkSocket final : public NetlinkSocket {
 public:
  explicit ScriptedNetlinkSocket(DatagramStream& replies) : replies_(replies) {}
  uint32_t port_id() const override { return kPortId; }
  Result<void> send(std::span<const uint8_t> datagram) override;
  Result<std::vector<uint8_t>> receive(std::chrono::milliseconds timeout) override;
  Result<void> join_group(uint32_t) override { return ok(); }
  int fd() const override { return -1; }

  static constexpr uint32_t kPortId = 4242;

 private:
  DatagramStream& replies_;
  uint32_t request_seq_ = 0;
};

// A System whose open_rtnl and open_rdma_netlink hand out sockets reading `replies` (nothing
// else is set).
System scripted_rtnl_system(DatagramStream& replies);

// Walks the messages of a datagram as rtnl_request does and adds `delta` to each nlmsg_seq.
void shift_sequence_numbers(std::vector<uint8_t>& datagram, uint32_t delta);

}  // namespace roced::fuzz
