// SPDX-License-Identifier: Apache-2.0
#pragma once
// Port specs shared by the model tests: a default ConnectX-7 port like the default node's lan2.

#include "sim/model/port_spec.hpp"

namespace roce_sim::test {

inline PortSpec cx7_port(const std::string& netdev = "lan2", const std::string& rdma = "mlx5_0",
                         const std::string& ipv4 = "192.168.2.10/24") {
  PortSpec spec;
  spec.netdev = netdev;
  spec.rdma_device = rdma;
  spec.pci_address = "0000:17:00.0";
  spec.mac = "b8:3f:d2:00:00:02";
  spec.ipv4 = {ipv4};
  return spec;
}

}  // namespace roce_sim::test
