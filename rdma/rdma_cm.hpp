#pragma once
// rdma_cm's per-device defaults in configfs (drivers/infiniband/core/cma_configfs.c):
// /sys/kernel/config/rdma_cm/<dev>/ports/<n>/default_roce_mode and default_roce_tos.

#include <optional>
#include <string>

#include "netlink/system.hpp"

namespace roced::rdma {

struct RdmaCmDefaults {
  // False when /sys/kernel/config/rdma_cm/<dev> does not exist: nobody has made the group, so
  // rdma_cm uses its built-in defaults. Reading never creates it (only mkdir does).
  bool configured = false;
  std::string roce_mode;   // "RoCE v2", "IB/RoCE v1"
  std::optional<int> tos;  // the whole ToS byte, 0-255
};

Result<RdmaCmDefaults> read_rdma_cm(const FileTree& files, const std::string& device, int port);

}  // namespace roced::rdma
