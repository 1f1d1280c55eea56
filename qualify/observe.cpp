// SPDX-License-Identifier: Apache-2.0
// One port read through the same clients roced uses, each answer kept with its error.
#include "qualify/observe.hpp"

#include <linux/ethtool.h>

#include <algorithm>
#include <charconv>

#include "dcb/client.hpp"
#include "port/gid_owners.hpp"
#include "port/status.hpp"
#include "rdma/hw_counters.hpp"

namespace roced::qualify {
namespace {

std::string first_line(const FileTree& files, const std::string& path) {
  auto text = files.read(path);
  if (!text.ok()) return {};
  return text->substr(0, text->find('\n'));
}

Result<uint32_t> combined_channels(System& system, const std::string& netdev) {
  ethtool_channels channels{};
  channels.cmd = ETHTOOL_GCHANNELS;
  auto bytes = std::span(reinterpret_cast<uint8_t*>(&channels), sizeof channels);
  if (auto done = system.ethtool->call(netdev, bytes, sizeof channels); !done.ok()) {
    return done.error();
  }
  return channels.combined_count;
}

// The median and the longest of kGstatsSamples ETHTOOL_GSTATS reads (each sized by its own
// GSSET_INFO, as roced's sampler reads them).
void time_gstats(System& system, TimeSource& time, const std::string& netdev, Observation& seen) {
  StatsReader reader(system, netdev);
  std::vector<std::chrono::nanoseconds> took;
  for (int i = 0; i < kGstatsSamples; ++i) {
    const auto start = time.now();
    auto values = reader.values();
    if (!values.ok()) {
      seen.stat_values = values.error();
      return;
    }
    took.push_back(time.now() - start);
    seen.stat_values = values->size();
  }
  std::sort(took.begin(), took.end());
  seen.gstats_median = took[took.size() / 2];
  seen.gstats_max = took.back();
}

uint64_t decimal(const std::string& text) {
  uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// debugfs.c mlx5_cmdif_debugfs_init: commands/<NAME>/{n,average}, both 0400, so lockdown (which
// refuses files with write bits) leaves them readable. Commands never issued are left out.
Result<std::map<std::string, FirmwareCommand>> read_firmware_commands(const FileTree& files,
                                                                      const std::string& pci) {
  const std::string dir = "/sys/kernel/debug/mlx5/" + pci + "/commands";
  auto names = files.list(dir);
  if (!names.ok()) return names.error();
  std::map<std::string, FirmwareCommand> commands;
  for (const auto& name : *names) {
    auto n = files.read(dir + "/" + name + "/n");
    if (!n.ok() || decimal(*n) == 0) continue;
    auto average = files.read(dir + "/" + name + "/average");
    commands[name] = {decimal(*n), average.ok() ? decimal(*average) : 0};
  }
  return commands;
}

}  // namespace

Result<std::vector<std::string>> read_stat_names(System& system, const std::string& netdev) {
  return StatsReader(system, netdev).names();
}

Observation observe(System& system, TimeSource& time, const DiscoveredPort& port) {
  Observation seen;
  seen.port = port;
  const FileTree& files = *system.files;
  const std::string& netdev = port.netdev;
  seen.driver_info = EthtoolClient(system).driver_info(netdev);
  seen.link = LinkClient(system).get(netdev);
  seen.speed_mbps = link_speed(system, netdev);
  seen.kernel_release = first_line(files, "/proc/sys/kernel/osrelease");
  seen.kernel_version = first_line(files, "/proc/version");
  seen.ofed_sysfs = files.exists("/sys/class/net/" + netdev + "/ecn");
  seen.pci_device = first_line(files, "/sys/class/net/" + netdev + "/device/device");
  if (!port.rdma_device.empty()) {
    const std::string ib = "/sys/class/infiniband/" + port.rdma_device;
    seen.hca_type = first_line(files, ib + "/hca_type");
    seen.board_id = first_line(files, ib + "/board_id");
    seen.gids = rdma::read_gid_table(files, port.rdma_device, port.rdma_port);
    if (seen.gids.ok()) GidOwners::of(system).mark(*seen.gids);
    seen.gid_slots = rdma::gid_table_slots(files, port.rdma_device, port.rdma_port);
    seen.rdma_cm = rdma::read_rdma_cm(files, port.rdma_device, port.rdma_port);
    seen.hw_counters = rdma::read_hw_counters(files, port.rdma_device, port.rdma_port);
  } else {
    const Error none{ENODEV, port.no_rdma_reason()};
    seen.gids = none;
    seen.gid_slots = none;
    seen.rdma_cm = none;
    seen.hw_counters = none;
  }
  dcb::DcbClient dcb(system);
  seen.dcb = dcb.get(netdev);
  seen.dcbx = dcb.get_dcbx(netdev);
  seen.stat_names = read_stat_names(system, netdev);
  seen.channels = combined_channels(system, netdev);
  seen.stall_timeout = EthtoolClient(system).pfc_prevention_timeout(netdev);
  seen.lockdown = rdma::debugfs_lockdown(files);
  seen.ecn = rdma::read_ecn(files, port.knob_function(), netdev);
  time_gstats(system, time, netdev, seen);
  if (port.is_lag_slave()) {
    const std::string mode = first_line(files, "/sys/class/net/" + port.bond + "/bonding/mode");
    seen.lag_mode = mode.substr(0, mode.find(' '));
    auto table = rdma::read_gid_table(files, port.lag_device, 1);
    for (const auto& entry : table.ok() ? *table : std::vector<rdma::GidEntry>{}) {
      if (entry.type == "RoCE v2" && entry.ndev == port.bond &&
          rdma::ipv4_of_mapped_gid(entry.gid)) {
        ++seen.lag_ipv4_addresses;
      }
    }
  }
  if (!port.pci.empty()) seen.firmware_commands = read_firmware_commands(files, port.pci);
  return seen;
}

}  // namespace roced::qualify
