// SPDX-License-Identifier: Apache-2.0
#pragma once
// Everything a read-only qualification asks one port, asked once: the checks (read_checks.hpp)
// judge it, the report carries it. Reads only: nothing here changes the port.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dcb/types.hpp"
#include "ethtool/ethtool.hpp"
#include "link/link.hpp"
#include "os/system.hpp"
#include "port/discovery.hpp"
#include "rdma/ecn.hpp"
#include "rdma/gid.hpp"
#include "rdma/rdma_cm.hpp"
#include "util/time_source.hpp"

namespace roced::qualify {

// mlx5's command interface statistics (cmd.c mlx5_cmdif_debugfs_init: debugfs
// commands/<NAME>/n and average, the mean in nanoseconds).
struct FirmwareCommand {
  uint64_t n = 0;
  uint64_t average_ns = 0;
};

struct Observation {
  DiscoveredPort port;
  Result<DriverInfo> driver_info = Error{EINVAL, "not read"};
  Result<LinkInfo> link = Error{EINVAL, "not read"};
  std::optional<uint32_t> speed_mbps;
  std::string kernel_release;  // /proc/sys/kernel/osrelease; empty when unreadable
  std::string kernel_version;  // /proc/version: Debian's kernels name their package there
  bool ofed_sysfs = false;     // /sys/class/net/<netdev>/ecn/ (MLNX_OFED)
  std::string pci_device;      // /sys/class/net/<if>/device/device ("0x1021")
  std::string hca_type;        // /sys/class/infiniband/<dev>/hca_type
  std::string board_id;        // /sys/class/infiniband/<dev>/board_id (PSID)
  Result<dcb::IeeeState> dcb = Error{EINVAL, "not read"};
  Result<uint8_t> dcbx = Error{EINVAL, "not read"};
  Result<std::vector<std::string>> stat_names = Error{EINVAL, "not read"};
  Result<size_t> stat_values = Error{EINVAL, "not read"};  // how many values GSTATS gave
  Result<uint32_t> channels = Error{EINVAL, "not read"};   // combined, ETHTOOL_GCHANNELS
  Result<uint16_t> stall_timeout = Error{EINVAL, "not read"};
  Result<rdma::EcnState> ecn = Error{EINVAL, "not read"};
  std::optional<std::string> lockdown;
  Result<std::vector<rdma::GidEntry>> gids = Error{EINVAL, "not read"};
  Result<size_t> gid_slots = Error{EINVAL, "not read"};
  Result<rdma::RdmaCmDefaults> rdma_cm = Error{EINVAL, "not read"};
  Result<std::map<std::string, uint64_t>> hw_counters = Error{EINVAL, "not read"};
  // ETHTOOL_GSTATS timed on the given clock: the median of kGstatsSamples reads.
  std::optional<std::chrono::nanoseconds> gstats_median;
  std::optional<std::chrono::nanoseconds> gstats_max;
  Result<std::map<std::string, FirmwareCommand>> firmware_commands = Error{EINVAL, "not read"};
  // A RoCE LAG slave: the bond's mode (bond_sysfs.c bonding_show_mode, first word) and how many
  // IPv4 RoCE v2 entries the LAG's device has for the bond.
  std::string lag_mode;
  size_t lag_ipv4_addresses = 0;
};

inline constexpr int kGstatsSamples = 9;

// Reads the port. Never fails as a whole: each piece holds its own error.
Observation observe(System& system, TimeSource& time, const DiscoveredPort& port);

// Statistics names again (after --write changed PFC).
Result<std::vector<std::string>> read_stat_names(System& system, const std::string& netdev);

}  // namespace roced::qualify
