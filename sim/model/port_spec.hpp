// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a simulated port is, as the node description says it (see docs/sim-formats.md).

#include <cstdint>
#include <string>
#include <vector>

namespace roce_sim {

// Which driver the ECN/DCQCN knobs look like: upstream's debugfs cc_params, or NVIDIA's
// out-of-tree (MLNX_OFED / DOCA) driver with /sys/class/net/<if>/ecn/.
enum class DriverFlavour { Inbox, Ofed };

struct Capabilities {
  // ETHTOOL_PFC_PREVENTION_TOUT (MLX5_CAP_PCAM pfcc_mask and MLX5_CAP_DEBUG stall_detect)
  bool stall_prevention = true;
  bool buffers = true;                // dcbnl get/setbuffer (port buffer commands)
  bool pause_storm_events = true;     // tx_pause_storm_{warning,error}_events
  bool prio_discard_counters = true;  // rx_prio{p}_buf_discard, _cong_discard, _marked
  bool ecn = true;                    // DCQCN knobs present
};

struct PortSpec {
  std::string netdev;       // "lan2"
  std::string rdma_device;  // "mlx5_0"
  uint8_t rdma_port = 1;
  std::string pci_address;  // "0000:17:00.0"
  std::string mac;          // "b8:3f:d2:00:00:02"
  uint32_t speed_mbps = 400000;
  std::string firmware = "28.39.1002";
  std::string board = "ConnectX-7";
  std::string driver_version = "6.1.0-27-amd64";  // what ETHTOOL_GDRVINFO reports as version
  DriverFlavour flavour = DriverFlavour::Inbox;
  uint32_t max_mtu = 9978;
  Capabilities caps;
  std::vector<std::string> ipv4;  // "192.168.2.10/24"
  std::vector<std::string> ipv6;  // "fd00::2/64"
  // Firmware defaults (what the port has at start and after a driver reload).
  bool firmware_trust_dscp = false;  // mlx5 then reports all 64 DSCP APP entries at load
  bool firmware_dcbx_host = false;   // false: the firmware DCBX agent (auto, willing) owns PFC/ETS
  // Added (mod 2^64) to every ethtool statistic, from start and after a driver reload: lets a
  // test see counters wrap without waiting for 2^64 of traffic.
  uint64_t counters_start = 0;
};

}  // namespace roce_sim
