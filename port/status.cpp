// SPDX-License-Identifier: Apache-2.0
#include "port/status.hpp"

#include <linux/ethtool.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "dcb/client.hpp"
#include "port/gid_owners.hpp"
#include "rdma/hw_counters.hpp"
#include "rdma/verbs.hpp"

namespace roced {

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

void read_rdma(System& system, const DiscoveredPort& port, const StatusOptions& options,
               PortStatus& status) {
  const FileTree& files = *system.files;
  if (port.rdma_device.empty()) {
    const std::string why = "no RDMA device for " + port.netdev;
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
  status.rdma_cm =
      field_from(rdma::read_rdma_cm(files, port.rdma_device, port.rdma_port), "rdma_cm configfs");
  if (options.hw_counters) {
    status.hw_counters =
        field_from(rdma::read_hw_counters(files, port.rdma_device, port.rdma_port), "hw_counters");
  } else {
    status.hw_counters = Field<std::map<std::string, uint64_t>>::not_read();
  }
}

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

// A locked-down kernel refuses the inbox cc_params files even to root: the knobs are not there
// for roced, which is no read error and blocks nothing else.
Field<rdma::EcnState> ecn_field(System& system, const DiscoveredPort& port) {
  // The cc_params under a representor's PCI function are its uplink's: it has no knobs.
  if (port.role == PortRole::Representor) return Field<rdma::EcnState>::of(rdma::EcnState{});
  auto ecn = rdma::read_ecn(*system.files, port.pci, port.netdev);
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

PortStatus read_port_status(System& system, const DiscoveredPort& port,
                            const StatusOptions& options) {
  PortStatus status;
  status.port = port;
  EthtoolClient ethtool(system);
  status.driver_info = options.driver_info
                           ? field_from(ethtool.driver_info(port.netdev), "driver info")
                           : Field<DriverInfo>::not_read();
  if (options.link) {
    status.link = Field<LinkInfo>::of(*options.link);
  } else {
    LinkClient links(system);
    status.link = field_from(links.get(port.netdev), "link");
  }
  status.speed_mbps = link_speed(system, port.netdev);
  read_dcb(system, port.netdev, status);
  refresh_port_status(system, port, StatusPart::StallPrevention, status);
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
      read_dcb(system, port.netdev, status);
      return;
    case StatusPart::StallPrevention:
      status.stall_prevention = field_from(
          [&]() -> Result<StallPrevention> {
            auto raw = EthtoolClient(system).pfc_prevention_timeout(port.netdev);
            if (!raw) return raw.error();
            return StallPrevention{*raw};
          }(),
          "PFC stall prevention");
      return;
    case StatusPart::RdmaCm:
      if (port.rdma_device.empty()) return;  // read_port_status already said why
      status.rdma_cm = field_from(
          rdma::read_rdma_cm(*system.files, port.rdma_device, port.rdma_port), "rdma_cm configfs");
      return;
    case StatusPart::Ecn:
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
