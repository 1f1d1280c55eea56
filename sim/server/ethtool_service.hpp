// SPDX-License-Identifier: Apache-2.0
#pragma once
// ioctl(SIOCETHTOOL) as net/ethtool/ioctl.c dev_ethtool answers it for an mlx5 netdev, over the
// simulated ethtool socket (framing in uapi/roce_sim.h: one request, one reply per datagram).

#include <string>
#include <vector>

#include "sim/model/node.hpp"
#include "sim/server/nl_wire.hpp"
#include "sim/server/write_counter.hpp"

namespace roce_sim::server {

class EthtoolService {
 public:
  // `writes`, when given, counts the clients' set commands (ETHTOOL_STUNABLE, ...).
  explicit EthtoolService(Node& node, WriteCounter* writes = nullptr)
      : node_(node), writes_(writes) {}
  Bytes handle(ByteView datagram, bool net_admin = true);
  std::vector<std::string> take_request_log();

 private:
  int dispatch(Port& port, uint32_t cmd, ByteView in, Bytes& out);
  int get_module_eeprom(Port& port, ByteView in, Bytes& out);
  Node& node_;
  WriteCounter* writes_;
  std::vector<std::string> request_log_;
};

}  // namespace roce_sim::server
