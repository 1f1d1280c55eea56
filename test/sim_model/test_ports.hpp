// SPDX-License-Identifier: Apache-2.0
#pragma once
// Port specs and small helpers shared by the model tests: a default ConnectX-7 port like the
// default node's lan2, a two-port node, a PFC setting.
#include <gtest/gtest.h>
#include <linux/dcbnl.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/node.hpp"
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

inline Node two_port_node() {
  return Node({cx7_port("lan2", "mlx5_0", "192.168.2.10/24"),
               cx7_port("lan3", "mlx5_1", "192.168.3.10/24")});
}

inline ieee_pfc pfc_mask(uint8_t mask, uint16_t delay = 0) {
  ieee_pfc pfc{};
  pfc.pfc_en = mask;
  pfc.delay = delay;
  return pfc;
}

inline void set_pfc(Port& port, uint8_t mask) { ASSERT_EQ(port.ieee_setpfc(pfc_mask(mask)), 0); }

inline bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Where `name` is in `names`; names.size() when it is not there.
inline std::ptrdiff_t position(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) - names.begin();
}

}  // namespace roce_sim::test
