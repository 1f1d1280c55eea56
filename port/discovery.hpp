// SPDX-License-Identifier: Apache-2.0
#pragma once
// Discovery: which netdevs are RoCE ports, which RDMA device and port each one is, and which
// drivers run them (mlx5 ports get everything roced does; others what their driver can take).
// Everything comes from sysfs through the FileTree, so the same code walks the real /sys and a
// simulated node's DIR/sys.

#include <memory>
#include <string>
#include <vector>

#include "os/system.hpp"
#include "util/enum_names.hpp"

namespace roced {

// What a netdev is on the NIC. Only uplinks (the physical ports) are managed unless a function
// is named exactly: a VF, a representor or a sub-function shares the uplink's port and buffers,
// and mlx5 gives it no DCB (no dcbnl ops), so a glob must never reach it.
// A bond is managed too when it is a RoCE LAG (its RDMA device is the one jobs use); its
// slaves are uplinks.
enum class PortRole { Uplink, Vf, Representor, SubFunction, Bond, Upper };
inline constexpr auto kPortRoleNames = enum_names<PortRole>({{PortRole::Uplink, "uplink"},
                                                             {PortRole::Vf, "vf"},
                                                             {PortRole::Representor, "representor"},
                                                             {PortRole::SubFunction, "sf"},
                                                             {PortRole::Bond, "bond"},
                                                             {PortRole::Upper, "upper"}});
static_assert(kPortRoleNames.covers<PortRole::Upper>());

struct DiscoveredPort {
  std::string netdev;
  std::string driver;       // basename of /sys/class/net/<if>/device/driver; empty if virtual
  std::string pci;          // basename of /sys/class/net/<if>/device; empty if virtual
  std::string rdma_device;  // "mlx5_0"; empty when the port has no RDMA device
  int rdma_port = 0;        // 1-based; 0 without an RDMA device
  // "rxe" for soft-RoCE (its device has a `parent` attribute and no `device` link), else the
  // basename of /sys/class/infiniband/<dev>/device/driver; empty without an RDMA device.
  std::string rdma_driver;
  // The RDMA device is this netdev's own (under its PCI function, or rxe's parent), not a lower
  // device's found through the GID table (a bond's, a VLAN's): only then does `ports.drivers`
  // match the RDMA driver, so upper devices are never selected by it.
  bool owns_rdma_device = false;
  PortRole role = PortRole::Uplink;
  // For people, when not an uplink: "VF 3 of lan2", "representor pf0vf3 of lan2", "sub-function".
  std::string role_detail = {};
  // A VF's PF netdev, a representor's uplink, an upper device's lower one ("lan2"); empty for
  // the others or when unknown.
  std::string parent = {};
  // An upper device's (a VLAN's, a macvlan's) MTU: rdma_cm takes the path MTU of connections
  // over its addresses from it, not from its port's. 0 for the others.
  uint32_t upper_mtu = 0;
  // Bonding (drivers/net/bonding): on a slave its bond; on a bond its slaves in enslave order
  // and its mode ("802.3ad"). A bond over mlx5 PFs that mlx5 offloads (RoCE LAG) has one RDMA
  // device for all of them, lag_device, on both the bond and its slaves; a slave then has no
  // RDMA device of its own.
  std::string bond = {};
  std::vector<std::string> slaves = {};
  std::string bond_mode = {};
  std::string lag_device = {};
  // On a LAG's bond: the PCI function its RDMA device hangs off (the first PF's), where
  // upstream's DCQCN knobs are (debugfs mlx5/<function>/cc_params).
  std::string lag_function = {};
  // The PCI function whose debugfs holds the port's DCQCN knobs: its own, a LAG bond's device's.
  const std::string& knob_function() const { return pci.empty() ? lag_function : pci; }
  bool is_lag_slave() const { return !bond.empty() && !lag_device.empty(); }
  bool is_lag_bond() const { return role == PortRole::Bond && !lag_device.empty(); }
  // Uplinks and RoCE LAG bonds (the netdev jobs use); the others only when named exactly.
  bool managed_by_default() const { return role == PortRole::Uplink || is_lag_bond(); }
  // mlx5's netdev, or a RoCE LAG's bond, whose RDMA device and DCQCN knobs are mlx5's.
  bool is_mlx5() const { return driver_module() == "mlx5_core" || is_lag_bond(); }
  // Why the port has no RDMA device: "no RDMA device for lan4", or that a LAG's bond has it.
  std::string no_rdma_reason() const;
  // The module of the netdev's driver, what `ports.drivers` names: an auxiliary driver is named
  // <module>.<name> (auxiliary.c __auxiliary_driver_register), so an SF's mlx5_core.sf is
  // mlx5_core's.
  std::string driver_module() const { return driver.substr(0, driver.find('.')); }
  // rdma_driver when the device is the netdev's own, else empty: what `ports.drivers` matches.
  std::string own_rdma_driver() const { return owns_rdma_device ? rdma_driver : std::string(); }
};

// Why a port does not take roced's mlx5-only settings: "mlx5 only: veth0's RDMA driver is rxe".
std::string mlx5_only_reason(const DiscoveredPort& port);

struct Inventory {
  // The ports to report: every port of the given drivers, or exactly the requested ones (any
  // driver) in the order asked for.
  std::vector<DiscoveredPort> ports;
  // RDMA-capable ports of another driver (not selected).
  std::vector<DiscoveredPort> other_rdma;
  // Upper devices (VLAN, macvlan, ipvlan) in this namespace over the ports found: never selected
  // by a driver (they have none), listed under their port.
  std::vector<DiscoveredPort> uppers;
  std::vector<std::string> missing;  // requested names that are no netdev here
};

// `requested` empty: every port whose netdev driver or own RDMA driver is in `drivers` (mlx5 by
// default). Fails only when /sys/class/net cannot be listed.
Result<Inventory> discover_ports(const FileTree& files, const std::vector<std::string>& requested,
                                 const std::vector<std::string>& drivers = {"mlx5_core"});

// The driver of the netdev's own RDMA device ("rxe", "mlx5_core", "irdma"), empty when it has
// none: cheap (no GID table walk), for selecting ports before describing them.
std::string read_own_rdma_driver(const FileTree& files, const std::string& netdev);

// One netdev, whatever its driver; ENODEV when /sys/class/net/<netdev> does not exist.
Result<DiscoveredPort> describe_netdev(const FileTree& files, const std::string& netdev);

class NdevIndex;

// Describes netdevs one after another for a walk over /sys/class/net, reading the GID tables'
// netdev index once for them all: a netdev without an RDMA device of its own (a VF, a bond, a
// pod's macvlan) is looked up there, and with pods a port has hundreds of GID entries.
class NetdevDescriber {
 public:
  explicit NetdevDescriber(const FileTree& files);
  ~NetdevDescriber();
  NetdevDescriber(const NetdevDescriber&) = delete;
  NetdevDescriber& operator=(const NetdevDescriber&) = delete;
  Result<DiscoveredPort> describe(const std::string& netdev);

 private:
  const FileTree& files_;
  std::unique_ptr<NdevIndex> index_;
};

}  // namespace roced
