// SPDX-License-Identifier: Apache-2.0
#pragma once
// RDMA netlink (NETLINK_RDMA) as drivers/infiniband/core/nldev.c answers it over the simulated
// sockets: the device list (RDMA_NLDEV_CMD_GET) and a port's counters (RDMA_NLDEV_CMD_STAT_GET),
// what `rdma dev` and `rdma statistic show link` ask. Other nldev commands are not modelled.

#include <string>
#include <vector>

#include "sim/model/node.hpp"
#include "sim/server/nl_wire.hpp"
#include "sim/server/rtnl_service.hpp"

namespace roce_sim::server {

class RdmaNlService {
 public:
  explicit RdmaNlService(Node& node) : node_(node) {}

  // One datagram from a connection; the replies in the kernel's order (all unicast).
  std::vector<Outgoing> handle(ByteView datagram, NlPeer& peer);
  std::vector<std::string> take_request_log();

 private:
  int dispatch(const NlRequest& request, const NlPeer& peer, Bytes& reply, bool& dumped);
  int get_device(const NlRequest& request, const NlPeer& peer, Bytes& reply, bool dump);
  int get_stats(const NlRequest& request, const NlPeer& peer, Bytes& reply);

  Node& node_;
  std::vector<std::string> request_log_;
};

}  // namespace roce_sim::server
