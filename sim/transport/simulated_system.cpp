// SPDX-License-Identifier: Apache-2.0
#include "sim/transport/simulated_system.hpp"

#include <roce_sim.h>

#include <memory>
#include <vector>

#include "sim/transport/mapped_file_tree.hpp"
#include "sim/transport/sim_ethtool_ioctl.hpp"
#include "sim/transport/sim_file_tree.hpp"
#include "sim/transport/sim_frame_socket.hpp"
#include "sim/transport/sim_netlink_socket.hpp"

namespace roce_sim {

roced::System simulated_system(const std::filesystem::path& sim_dir) {
  const std::filesystem::path dir = std::filesystem::absolute(sim_dir).lexically_normal();
  roced::System system;
  system.open_rtnl = [rtnl = dir / ROCE_SIM_RTNL_SOCKET] {
    return SimNetlinkSocket::connect(rtnl);
  };
  system.open_rdma_netlink = [rdma = dir / ROCE_SIM_RDMA_SOCKET] {
    return SimNetlinkSocket::connect(rdma);
  };
  system.open_genl = [genl = dir / ROCE_SIM_GENL_SOCKET] {
    return SimNetlinkSocket::connect(genl);
  };
  system.open_lldp = [lldp = dir / ROCE_SIM_LLDP_SOCKET](const std::string& netdev) {
    return connect_lldp_socket(lldp, netdev);
  };
  system.ethtool = std::make_unique<SimEthtoolIoctl>(dir / ROCE_SIM_ETHTOOL_SOCKET);
  system.files = std::make_unique<SimFileTree>(
      std::vector<MappedFileTree::Mapping>{
          {"/sys/kernel/config", dir / ROCE_SIM_CONFIG_DIR},
          {"/sys/kernel/debug", dir / ROCE_SIM_DEBUG_DIR},
          {"/sys", dir / ROCE_SIM_SYS_DIR},
      },
      dir, dir / ROCE_SIM_ETHTOOL_SOCKET);
  system.description = "simulated node at " + dir.string();
  std::error_code ec;
  system.checks_capabilities = std::filesystem::exists(dir / ROCE_SIM_CAPSFILE, ec);
  return system;
}

}  // namespace roce_sim
