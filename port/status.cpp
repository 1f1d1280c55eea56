// SPDX-License-Identifier: Apache-2.0
#include "port/status.hpp"

#include <linux/ethtool.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "dcb/client.hpp"
#include "port/gid_owners.hpp"
#include "rdma/hw_counters.hpp"
#include "rdma/verbs.hpp"

namespace roced {

namespace fs = std::filesystem;

std::string errno_name(int code) {
  if (code == 0) return {};
  if (const char* name = ::strerrorname_np(code)) return name;
  return "errno " + std::to_string(code);
}

std::string describe_error(const Error& error, const std::string& what) {
  // One wording: the text a failed Field shows.
  return Field<int>::from(error, what).error;
}

std::string StallPrevention::mode() const {
  if (raw == PFC_STORM_PREVENTION_DISABLE) return "off";
  if (raw == PFC_STORM_PREVENTION_AUTO) return "auto";
  return "manual";
}

bool StallPrevention::same_setting(uint16_t a, uint16_t b) {
  const auto is_auto = [](uint16_t v) { return v == PFC_STORM_PREVENTION_AUTO || v == 100; };
  return a == b || (is_auto(a) && is_auto(b));
}

std::optional<unsigned> StallPrevention::timeout_ms() const {
  // mlx5 programs 100 ms for "auto" (en_ethtool.c, MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC).
  if (raw == PFC_STORM_PREVENTION_DISABLE) return std::nullopt;
  if (raw == PFC_STORM_PREVENTION_AUTO) return 100u;
  return raw;
}

namespace {

template <class T>
Field<T> field_from(Result<T> result, const std::string& what) {
  if (result) return Field<T>::of(std::move(*result));
  return Field<T>::from(result.error(), what);
}

void read_dcb(System& system, const std::string& ifname, PortStatus& status) {
  dcb::DcbClient client(system);
  auto ieee = client.get(ifname);
  if (!ieee) {
    const auto failed = Field<uint8_t>::from(ieee.error(), "DCB");
    status.trust = Field<dcb::Trust>::lacking_as(failed);
    status.dscp_apps = Field<std::vector<dcb::AppEntry>>::lacking_as(failed);
    status.pfc = Field<dcb::Pfc>::lacking_as(failed);
    status.ets = Field<dcb::Ets>::lacking_as(failed);
    status.maxrate = Field<dcb::Maxrate>::lacking_as(failed);
    status.buffer = Field<dcb::Buffer>::lacking_as(failed);
    status.dcbx = failed;
    return;
  }
  // mlx5 has no trust op: DSCP entries in the APP table are the trust state (en_dcbnl.c,
  // mlx5e_dcbnl_ieee_setapp).
  status.trust = Field<dcb::Trust>::of(dcb::trust_from_apps(ieee->apps));
  std::vector<dcb::AppEntry> dscp;
  for (const auto& app : ieee->apps) {
    if (app.selector == static_cast<uint8_t>(dcb::AppSelector::Dscp)) dscp.push_back(app);
  }
  status.dscp_apps = Field<std::vector<dcb::AppEntry>>::of(std::move(dscp));
  status.pfc = ieee->pfc ? Field<dcb::Pfc>::of(*ieee->pfc)
                         : Field<dcb::Pfc>::unsupported("the driver reports no PFC");
  status.ets = ieee->ets ? Field<dcb::Ets>::of(*ieee->ets)
                         : Field<dcb::Ets>::unsupported("the driver reports no ETS");
  status.maxrate = ieee->maxrate
                       ? Field<dcb::Maxrate>::of(*ieee->maxrate)
                       : Field<dcb::Maxrate>::unsupported("the driver reports no rate limits");
  status.buffer =
      ieee->buffer ? Field<dcb::Buffer>::of(*ieee->buffer)
                   : Field<dcb::Buffer>::unsupported("the driver reports no buffer configuration");
  if (ieee->dcbx) {
    status.dcbx = Field<uint8_t>::of(*ieee->dcbx);
  } else {
    status.dcbx = field_from(client.get_dcbx(ifname), "DCBX");
  }
}

std::string first_line(const FileTree& files, const fs::path& path) {
  auto text = files.read(path);
  if (!text) return {};
  return text->substr(0, text->find('\n'));
}

BondStatus read_bond(const FileTree& files, const DiscoveredPort& port) {
  const fs::path net = "/sys/class/net";
  BondStatus bond;
  bond.name = port.role == PortRole::Bond ? port.netdev : port.bond;
  const std::string mode = first_line(files, net / bond.name / "bonding" / "mode");
  bond.mode = mode.substr(0, mode.find(' '));
  bond.active_slave = first_line(files, net / bond.name / "bonding" / "active_slave");
  std::string slaves = first_line(files, net / bond.name / "bonding" / "slaves");
  for (size_t start = 0; start < slaves.size();) {
    const size_t end = std::min(slaves.find(' ', start), slaves.size());
    const std::string name = slaves.substr(start, end - start);
    start = end + 1;
    if (name.empty()) continue;
    bond.slaves.push_back({name, first_line(files, net / name / "bonding_slave" / "state"),
                           first_line(files, net / name / "bonding_slave" / "mii_status")});
  }
  bond.lag_device = port.lag_device;
  if (!bond.lag_device.empty() && !bond.slaves.empty()) {
    std::string pci;
    if (auto target = files.read_link(net / bond.slaves.front().netdev / "device")) {
      pci = target->lexically_normal().filename().string();
    }
    const fs::path lag = fs::path("/sys/kernel/debug/mlx5") / pci / "lag";
    bond.lag_state = first_line(files, lag / "state");
    bond.lag_port_select = first_line(files, lag / "port_sel_mode");
  }
  return bond;
}

// A bond, VLAN or macvlan has no dcbnl ops and no PFC stall tunable (bond_main.c bond_setup,
// vlan_dev.c, macvlan.c): a bond's DCB is each slave's, an upper device's traffic takes its
// port's queues.
bool has_own_dcb(const DiscoveredPort& port) {
  return port.role != PortRole::Bond && port.role != PortRole::Upper;
}

void dcb_is_elsewhere(const DiscoveredPort& port, PortStatus& status) {
  std::string slaves;
  for (const auto& slave : port.slaves) slaves += (slaves.empty() ? "" : ", ") + slave;
  const std::string why =
      port.role == PortRole::Upper
          ? "an upper device has no DCB of its own: its traffic takes " + port.parent + "'s"
          : "a bond has no DCB of its own: set on its slaves (" + slaves + ")";
  status.dcbx = Field<uint8_t>::elsewhere(why);
  status.trust = Field<dcb::Trust>::elsewhere(why);
  status.dscp_apps = Field<std::vector<dcb::AppEntry>>::elsewhere(why);
  status.pfc = Field<dcb::Pfc>::elsewhere(why);
  status.ets = Field<dcb::Ets>::elsewhere(why);
  status.maxrate = Field<dcb::Maxrate>::elsewhere(why);
  status.buffer = Field<dcb::Buffer>::elsewhere(why);
  status.stall_prevention = Field<StallPrevention>::elsewhere(why);
  status.global_pause = Field<PauseParams>::elsewhere(why);
}

void read_rdma(System& system, const DiscoveredPort& port, const StatusOptions& options,
               PortStatus& status) {
  const FileTree& files = *system.files;
  if (port.is_lag_slave()) {
    const std::string why = port.no_rdma_reason();
    status.gids = Field<GidStatus>::elsewhere(why);
    status.roce_v2_ipv4 = Field<rdma::GidEntry>::elsewhere(why);
    status.rdma_cm = Field<rdma::RdmaCmDefaults>::elsewhere(why);
    status.hw_counters = Field<std::map<std::string, uint64_t>>::elsewhere(why);
    return;
  }
  if (port.rdma_device.empty()) {
    const std::string why = port.no_rdma_reason();
    status.gids = Field<GidStatus>::absent(why, ENODEV);
    status.roce_v2_ipv4 = Field<rdma::GidEntry>::absent(why, ENODEV);
    status.rdma_cm = Field<rdma::RdmaCmDefaults>::absent(why, ENODEV);
    status.hw_counters = Field<std::map<std::string, uint64_t>>::absent(why, ENODEV);
    return;
  }
  if (!options.gid_table) {
    status.gids = Field<GidStatus>::not_read();
  } else if (auto table = rdma::read_gid_table(files, port.rdma_device, port.rdma_port)) {
    status.gids = Field<GidStatus>::of(GidStatus{"sysfs", std::move(*table)});
  } else if (auto verbs = options.verbs_fallback
                              ? rdma::verbs_gid_table(port.rdma_device, port.rdma_port)
                              : Result<std::vector<rdma::GidEntry>>(table.error())) {
    status.gids = Field<GidStatus>::of(GidStatus{"libibverbs", std::move(*verbs)});
  } else {
    status.gids = Field<GidStatus>::from(table.error(), "the GID table");
  }
  if (port.role == PortRole::Upper) {
    // Its addresses are GIDs of its port's device, whose rdma_cm defaults and counters are the
    // port's (set and exported through it).
    const std::string why = "its GIDs are on " + port.parent + "'s RDMA device " + port.rdma_device;
    status.rdma_cm = Field<rdma::RdmaCmDefaults>::elsewhere(why);
    status.hw_counters = Field<std::map<std::string, uint64_t>>::elsewhere(why);
  }
  if (status.gids.ok()) {
    GidOwners::of(system).mark(status.gids.value->entries);
    if (auto entry = rdma::roce_v2_ipv4_entry(status.gids.value->entries, port.netdev)) {
      status.roce_v2_ipv4 = Field<rdma::GidEntry>::of(*entry);
    } else {
      status.roce_v2_ipv4 = Field<rdma::GidEntry>::absent(
          "no RoCE v2 GID with an IPv4 address on " + port.netdev, ENOENT);
    }
  } else {
    status.roce_v2_ipv4 = Field<rdma::GidEntry>::lacking_as(status.gids);
  }
  if (port.role == PortRole::Upper) return;
  status.rdma_cm =
      field_from(rdma::read_rdma_cm(files, port.rdma_device, port.rdma_port), "rdma_cm configfs");
  if (options.hw_counters) {
    status.hw_counters =
        field_from(rdma::read_hw_counters(files, port.rdma_device, port.rdma_port), "hw_counters");
  } else {
    status.hw_counters = Field<std::map<std::string, uint64_t>>::not_read();
  }
}

}  // namespace

// /sys/class/net/<if>/speed (speed_show: the ethtool link speed, -1 or EINVAL without carrier).
std::optional<uint32_t> link_speed(System& system, const std::string& netdev) {
  if (!system.files) return std::nullopt;
  auto text = system.files->read("/sys/class/net/" + netdev + "/speed");
  if (!text) return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text->c_str(), &end, 10);
  if (end == text->c_str() || value <= 0) return std::nullopt;
  return static_cast<uint32_t>(value);
}

std::string speed_text(uint32_t speed_mbps) {
  if (speed_mbps < 1000) return std::to_string(speed_mbps) + " Mb/s";
  std::string text = std::to_string(speed_mbps / 1000);
  if (const uint32_t rest = speed_mbps % 1000; rest != 0) {
    std::string fraction = std::to_string(1000 + rest).substr(1);
    fraction.erase(fraction.find_last_not_of('0') + 1);
    text += "." + fraction;
  }
  return text + " Gb/s";
}

namespace {

// A locked-down kernel refuses the inbox cc_params files even to root: the knobs are not there
// for roced, which is no read error and blocks nothing else.
Field<rdma::EcnState> ecn_field(System& system, const DiscoveredPort& port) {
  // The cc_params under a representor's PCI function are its uplink's: it has no knobs.
  if (port.role == PortRole::Representor) return Field<rdma::EcnState>::of(rdma::EcnState{});
  const FileTree& files = *system.files;
  const bool own_ecn_tree = files.exists(fs::path("/sys/class/net") / port.netdev / "ecn");
  // Upstream's cc_params are the RDMA device's (infiniband/hw/mlx5/cong.c
  // mlx5_ib_init_cong_debugfs, under its mdev's debugfs): a LAG's are the bond's, on the
  // function mlx5 re-added the device to. NVIDIA's ecn/ stays on each slave's netdev.
  if (port.is_lag_slave() && !own_ecn_tree) {
    return Field<rdma::EcnState>::elsewhere("the RoCE LAG's DCQCN knobs are " + port.bond +
                                            "'s (its RDMA device " + port.lag_device + ")");
  }
  const std::string& pci = port.knob_function();
  if (port.is_lag_bond()) {
    if (!files.exists(fs::path("/sys/kernel/debug/mlx5") / pci / "cc_params") &&
        std::any_of(port.slaves.begin(), port.slaves.end(), [&](const std::string& slave) {
          return files.exists(fs::path("/sys/class/net") / slave / "ecn");
        })) {
      return Field<rdma::EcnState>::elsewhere(
          "NVIDIA's driver keeps the DCQCN knobs on each slave's netdev (ecn/)");
    }
  }
  auto ecn = rdma::read_ecn(files, pci, port.netdev);
  if (!ecn && ecn.error().code == EPERM) {
    if (auto level = rdma::debugfs_lockdown(*system.files)) {
      return Field<rdma::EcnState>::locked_down(
          "the kernel is locked down (" + *level +
              ", as UEFI Secure Boot sets it): debugfs refuses mlx5's cc_params files, even to "
              "read (EPERM)",
          EPERM);
    }
  }
  return field_from(std::move(ecn), "ECN/DCQCN");
}

}  // namespace

// What tells the port's driver apart, read without writing anything: the driver's own answer,
// the kernel's release and version strings, MLNX_OFED's ecn/ sysfs.
Field<driver::Detected> detect_driver(System& system, const DiscoveredPort& port,
                                      const Field<DriverInfo>& info) {
  if (!info.ok()) return Field<driver::Detected>::lacking_as(info);
  const auto first_line = [&](const char* path) {
    auto text = system.files->read(path);
    if (!text) return std::string();
    return text->substr(0, text->find('\n'));
  };
  driver::HostFacts facts;
  facts.driver = info.value->driver;
  facts.driver_version = info.value->version;
  facts.kernel_release = first_line("/proc/sys/kernel/osrelease");
  facts.kernel_version = first_line("/proc/version");
  facts.ofed_sysfs =
      system.files->exists(std::filesystem::path("/sys/class/net") / port.netdev / "ecn");
  return Field<driver::Detected>::of(driver::detect(facts));
}

PortStatus read_port_status(System& system, const DiscoveredPort& port,
                            const StatusOptions& options) {
  PortStatus status;
  status.port = port;
  EthtoolClient ethtool(system);
  status.driver_info = options.driver_info
                           ? field_from(ethtool.driver_info(port.netdev), "driver info")
                           : Field<DriverInfo>::not_read();
  status.driver = detect_driver(system, port, status.driver_info);
  if (options.link) {
    status.link = Field<LinkInfo>::of(*options.link);
  } else {
    LinkClient links(system);
    status.link = field_from(links.get(port.netdev), "link");
  }
  status.speed_mbps = link_speed(system, port.netdev);
  if (port.role == PortRole::Bond || !port.bond.empty())
    status.bond = read_bond(*system.files, port);
  if (!has_own_dcb(port)) {
    dcb_is_elsewhere(port, status);
  } else {
    read_dcb(system, port.netdev, status);
    refresh_port_status(system, port, StatusPart::StallPrevention, status);
    refresh_port_status(system, port, StatusPart::GlobalPause, status);
  }
  read_rdma(system, port, options, status);
  refresh_port_status(system, port, StatusPart::Ecn, status);
  return status;
}

void refresh_port_status(System& system, const DiscoveredPort& port, StatusPart part,
                         PortStatus& status) {
  switch (part) {
    case StatusPart::Link:
      status.link = field_from(LinkClient(system).get(port.netdev), "link");
      status.speed_mbps = link_speed(system, port.netdev);
      return;
    case StatusPart::Dcb:
      if (!has_own_dcb(port)) return;  // read_port_status said where it is
      read_dcb(system, port.netdev, status);
      return;
    case StatusPart::StallPrevention:
      if (!has_own_dcb(port)) return;
      status.stall_prevention = field_from(
          [&]() -> Result<StallPrevention> {
            auto raw = EthtoolClient(system).pfc_prevention_timeout(port.netdev);
            if (!raw) return raw.error();
            return StallPrevention{*raw};
          }(),
          "PFC stall prevention");
      return;
    case StatusPart::GlobalPause:
      if (!has_own_dcb(port)) return;
      status.global_pause = field_from(EthtoolClient(system).pause(port.netdev), "global pause");
      return;
    case StatusPart::RdmaCm:
      // read_port_status already said why not.
      if (port.rdma_device.empty() || port.role == PortRole::Upper) return;
      status.rdma_cm = field_from(
          rdma::read_rdma_cm(*system.files, port.rdma_device, port.rdma_port), "rdma_cm configfs");
      return;
    case StatusPart::Ecn:
      if (port.role == PortRole::Upper) {
        status.ecn = Field<rdma::EcnState>::elsewhere("the DCQCN knobs are " + port.parent + "'s");
        return;
      }
      // The knobs read are mlx5's (debugfs cc_params, sysfs ecn/): nothing to read elsewhere.
      if (!port.is_mlx5()) {
        status.ecn = Field<rdma::EcnState>::unsupported(mlx5_only_reason(port));
        return;
      }
      status.ecn = ecn_field(system, port);
      return;
  }
}

}  // namespace roced
