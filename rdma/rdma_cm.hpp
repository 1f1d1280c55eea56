// SPDX-License-Identifier: Apache-2.0
#pragma once
// rdma_cm's per-device defaults in configfs (drivers/infiniband/core/cma_configfs.c):
// /sys/kernel/config/rdma_cm/<dev>/ports/<n>/default_roce_mode and default_roce_tos.

#include <cstdint>
#include <optional>
#include <string>

#include "os/system.hpp"

namespace roced::rdma {

struct RdmaCmDefaults {
  // False when /sys/kernel/config/rdma_cm/<dev> does not exist: nobody has made the group, so
  // rdma_cm uses its built-in defaults. Reading never creates it (only mkdir does).
  bool configured = false;
  std::string roce_mode;   // "RoCE v2", "IB/RoCE v1"
  std::optional<int> tos;  // the whole ToS byte, 0-255

  // What rdma_cm uses: the group's values, or without a group its built-in defaults
  // (drivers/infiniband/core/cma.c: RoCE v2 on a device that has it, as mlx5 does; ToS 0).
  std::string effective_mode() const;
  int effective_tos() const;
};

Result<RdmaCmDefaults> read_rdma_cm(const FileTree& files, const std::string& device, int port);

// Creates /sys/kernel/config/rdma_cm/<dev> unless it exists (configfs mkdir), and waits until
// ports/<port>/ holds its two files: configfs makes them inside the mkdir, roce-sim a moment later.
Result<void> make_rdma_cm_group(FileTree& files, const std::string& device, int port);
// ports/<port>/default_roce_mode ("RoCE v2" | "IB/RoCE v1") and default_roce_tos (0-255). The
// group must exist.
Result<void> write_rdma_cm_mode(FileTree& files, const std::string& device, int port,
                                const std::string& mode);
Result<void> write_rdma_cm_tos(FileTree& files, const std::string& device, int port, int tos);

// The largest RoCE path MTU an Ethernet MTU carries: the IB MTU (256-4096) that fits after the
// RoCE v2 headers the kernel reserves (include/rdma/ib_addr.h iboe_get_mtu: GRH 40 + UDP 8 +
// BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 = 96 bytes); 0 below 352. rdma_cm takes a connection's
// from the MTU of the netdev its source address is on (cma.c cma_resolve_iboe_route).
constexpr int roce_path_mtu(uint32_t mtu) {
  const int usable = static_cast<int>(mtu) - 96;
  for (int ib_mtu : {4096, 2048, 1024, 512, 256}) {
    if (usable >= ib_mtu) return ib_mtu;
  }
  return 0;
}

}  // namespace roced::rdma
