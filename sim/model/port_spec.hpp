// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a simulated port is, as the node description says it (see docs/sim-formats.md).

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/switch_peer.hpp"
#include "sim/model/transceiver.hpp"

namespace roce_sim {

// Which mlx5 driver the port runs, as a fleet gets it. Each is a set of DriverTraits (below),
// read in its tree; a node file may override single traits.
//  - Debian61: mainline 6.1 as Debian bookworm's 6.1.115 (6.1.0-27-amd64) has it.
//  - Debian612: mainline 6.12 as Debian trixie's 6.12.117 has it (the 6.12 stable series).
//  - Ofed: MLNX_OFED / DOCA-OFED 24.04-25.10 (mlnx-ofa_kernel): 6.1's buffer and maxrate code,
//    and the DCQCN knobs under /sys/class/net/<if>/ecn/ (en_sysfs.c, en_ecn.c).
//  - NicKernel: NVIDIA's nic-kernel tree: the cable length and buffer ownership asked of the
//    firmware (en_dcbnl.c, en/port_buffer.c), rate caps in a u16.
enum class DriverFlavour { Debian61, Debian612, Ofed, NicKernel };

// After a PFC or cable-length change: recompute host-set buffers once the host has set them
// (en_dcbnl.c priv->dcbx.manual_buffer: 6.1, OFED), or only when the firmware reports them
// host-owned (port.c mlx5_query_port_buffer_ownership: 6.12.44 on, nic-kernel), which firmware
// without PCAM buffer_ownership never does.
enum class BufferRecompute { ManualFlag, FirmwareOwnership };
// The cable length kept in the driver, 1..999 m, anything else ignored (6.1, 6.12, OFED), or
// handed to PCAM cable_length firmware (nic-kernel's mlx5e_port_set_cable_len).
enum class CableLengthHome { Driver, Firmware };
// mlx5e_dcbnl_ieee_setmaxrate: a u8 without an upper check (6.1 before 6.1.159, 6.12 before
// 6.12.63, OFED: 300 Gbit/s becomes 44), a u8 refusing above 255 Gbit/s (the fixes), a u16.
enum class MaxrateEncoding { U8Wrapping, U8Checked, U16 };

struct DriverTraits {
  BufferRecompute buffer_recompute = BufferRecompute::ManualFlag;
  CableLengthHome cable_length = CableLengthHome::Driver;
  MaxrateEncoding maxrate = MaxrateEncoding::U8Wrapping;
};

// The kernel's own driver (debugfs cc_params, its version the kernel's release), not OFED's.
inline bool kernel_driver(DriverFlavour flavour) { return flavour != DriverFlavour::Ofed; }

inline DriverTraits traits_of(DriverFlavour flavour) {
  switch (flavour) {
    case DriverFlavour::Debian61:
    case DriverFlavour::Ofed:
      return {};
    case DriverFlavour::Debian612:
      return {BufferRecompute::FirmwareOwnership, CableLengthHome::Driver,
              MaxrateEncoding::U8Checked};
    case DriverFlavour::NicKernel:
      return {BufferRecompute::FirmwareOwnership, CableLengthHome::Firmware, MaxrateEncoding::U16};
  }
  return {};
}

// The kernel's lockdown (security/lockdown): what UEFI Secure Boot turns on in Ubuntu, RHEL and
// Fedora (integrity). debugfs then refuses every file with write bits (fs/debugfs/file.c
// debugfs_locked_down), even for reading: mlx5's cc_params files (0600) included.
enum class KernelLockdown { None, Integrity, Confidentiality };

struct Capabilities {
  // MLX5_CAP_PCAM pfcc_mask and MLX5_CAP_DEBUG stall_detect: ETHTOOL_PFC_PREVENTION_TOUT
  // (en_ethtool.c mlx5e_get_pfc_prevention_tout) and tx_pause_storm_{warning,error}_events
  // (en_stats.c NUM_PPORT_PFC_STALL_COUNTERS), together or neither.
  bool stall_prevention = true;
  bool buffers = true;                // dcbnl get/setbuffer (port buffer commands)
  bool prio_discard_counters = true;  // rx_prio{p}_buf_discard, _cong_discard, _marked
  bool ecn = true;                    // DCQCN knobs present
  // Firmware features that only NVIDIA's tree reads (the inbox 6.1 driver ignores them):
  // PCAM cable_length: the cable length lives in the firmware (PFCC), which sizes its own
  // headroom with it; without it the driver keeps it and refuses 0.
  bool cable_length = true;
  // PCAM buffer_ownership: the firmware reports whether the host owns the buffers (it does once a
  // PBMC write succeeded); without it the driver never resizes them on a PFC or cable change.
  bool buffer_ownership = true;
  // The per-priority pause frame counters (PPCNT per-priority group, rx_pause and tx_pause) count
  // a priority's PFC frames whether PFC is on for it or not. mlx5 only lists them in ethtool -S
  // for PFC priorities, but its dcbnl getpfc reports all eight. Not in any driver source: it is
  // the MAC's behaviour. Assumed true (the MAC parses every PFC frame, and rx_pause_ctrl_phy
  // counts them all); false models a MAC that counts only the frames it acts on.
  bool pause_counted_without_pfc = true;
};

// Link training after an admin down/up: about a second and a half at up to 100G, a few seconds
// at 200G and 400G (PAM4 links train longer). Not in the kernel source: the PHY's time.
constexpr uint32_t default_link_training_ms(uint32_t speed_mbps) {
  return speed_mbps >= 200000 ? 3000 : 1500;
}

// The PF's PCI device ID of a model (mlx5 main.c mlx5_core_pci_table), what sysfs `device` shows
// and mlx5_ib's hca_type prints as "MT<decimal>" (main.c hca_type_show); 0 for an unknown model.
inline uint32_t pci_device_id(const std::string& model) {
  static const std::pair<const char*, uint32_t> kIds[] = {
      {"ConnectX-5", 0x1017},    {"ConnectX-5 Ex", 0x1019}, {"ConnectX-6", 0x101b},
      {"ConnectX-6 Dx", 0x101d}, {"ConnectX-6 Lx", 0x101f}, {"ConnectX-7", 0x1021},
      {"ConnectX-8", 0x1023},    {"BlueField-2", 0xa2d6},   {"BlueField-3", 0xa2dc},
  };
  for (const auto& [name, id] : kIds) {
    if (model == name) return id;
  }
  return 0;
}

// A PCIe link: its rate per lane in tenths of GT/s (25, 50, 80, 160, 320, 640: Gen1 to Gen6) and
// its lanes.
struct PcieLink {
  uint32_t speed_tenths_gts = 320;
  uint32_t width = 16;
  bool operator==(const PcieLink&) const = default;
};

// What a model's PCIe endpoint is built for (Link Capabilities), as NVIDIA's product briefs give
// it: the link it trains at in a slot that offers as much.
inline PcieLink pcie_capability(const std::string& model) {
  static const std::pair<const char*, PcieLink> kLinks[] = {
      {"ConnectX-5", {80, 16}},     {"ConnectX-5 Ex", {160, 16}}, {"ConnectX-6", {160, 16}},
      {"ConnectX-6 Dx", {160, 16}}, {"ConnectX-6 Lx", {160, 8}},  {"ConnectX-7", {320, 16}},
      {"ConnectX-8", {640, 16}},    {"BlueField-2", {160, 16}},   {"BlueField-3", {320, 16}},
  };
  for (const auto& [name, link] : kLinks) {
    if (model == name) return link;
  }
  return {};
}

// The most channels a port takes (en.h MLX5E_MAX_NUM_CHANNELS is 128 per CPU-limited port).
constexpr uint32_t kMaxChannels = 128;

// The most VFs a node file gives a port (ConnectX-7 firmware allows up to 127 per PF).
constexpr uint32_t kMaxVfsPerPort = 64;
// The prefix length of "10.201.0.0/16"; 32 when there is none to read.
inline int prefix_length(const std::string& cidr) {
  const auto slash = cidr.find('/');
  int length = 32;
  if (slash != std::string::npos) {
    const auto [end, error] =
        std::from_chars(cidr.data() + slash + 1, cidr.data() + cidr.size(), length);
    if (error != std::errc() || end != cidr.data() + cidr.size()) length = 32;
  }
  return length;
}

// More than a GID table holds (four entries each): the rest are dropped as the kernel drops them.
constexpr uint32_t kMaxPodsPerPort = 1000;
// Sub-functions per port in a node file (a BlueField or Spectrum-X host uses a handful).
constexpr uint32_t kMaxSfsPerPort = 64;

// An upper device's addresses, which its port's RDMA device lists as GIDs (rdma_device.hpp).
struct UpperAddresses {
  std::string netdev;
  std::string mac;
  std::vector<std::string> ipv4, ipv6;  // CIDR
};

// 802.3x global pause in each direction (the PFCC register's pprx and pptx).
struct GlobalPause {
  bool rx = true;
  bool tx = true;
};

struct PortSpec {
  std::string netdev;  // "lan2"
  // The switch port at the cable's other end, from the node file's `switch:` (Node::set_switch).
  std::optional<SwitchPeerChange> switch_peer;
  std::string rdma_device;  // "mlx5_0"
  uint8_t rdma_port = 1;
  std::string pci_address;  // "0000:17:00.0"
  std::string mac;          // "b8:3f:d2:00:00:02"
  uint32_t speed_mbps = 400000;
  ModuleForm module = ModuleForm::qsfp28;  // the optic in the cage (an uplink's only)
  std::string firmware = "28.39.1002";
  std::string board = "ConnectX-7";
  std::string driver_version = "6.1.0-27-amd64";  // what ETHTOOL_GDRVINFO reports as version
  DriverFlavour flavour = DriverFlavour::Debian61;
  DriverTraits traits;  // the flavour's, with the node file's overrides
  // The kernel's package as /proc/version ends ("Debian 6.1.115-1"); empty: not a Debian
  // kernel, and /proc/version names no package.
  std::string kernel_package = "Debian 6.1.115-1";
  uint32_t max_mtu = 9978;
  // How long the carrier stays down after the driver toggles the link (a PFC mask change), while
  // the PHY retrains; unset: default_link_training_ms(speed). 0: back inside the operation.
  std::optional<uint32_t> link_training_ms;
  // Combined channels at driver load (ethtool -l); each adds its ch/rx/tx statistics.
  uint32_t channels = 1;
  Capabilities caps;
  std::vector<std::string> ipv4;  // "192.168.2.10/24"
  std::vector<std::string> ipv6;  // "fd00::2/64"
  // Firmware defaults (what the port has at start and after a driver reload).
  bool firmware_trust_dscp = false;  // mlx5 then reports all 64 DSCP APP entries at load
  bool firmware_dcbx_host = false;   // false: the firmware DCBX agent (auto, willing) owns PFC/ETS
  // Global pause at start and after a driver reload; unset: on in both directions when the port
  // starts with PFC off (as an mlx5 port nobody configured comes), else off.
  std::optional<GlobalPause> firmware_global_pause;
  // Added (mod 2^64) to every ethtool statistic, from start and after a driver reload: lets a
  // test see counters wrap without waiting for 2^64 of traffic.
  uint64_t counters_start = 0;
  // How long one firmware command takes (a register read such as PPCNT, a DCB register write):
  // what each ETHTOOL_GSTATS and DCB request then costs follows from the commands mlx5 issues for
  // it (sim/model/firmware_commands.hpp). 0: free, the default for tests.
  uint32_t firmware_command_us = 0;
  // The node's kernel (the same on every port): its lockdown level.
  KernelLockdown lockdown = KernelLockdown::None;
  // SR-IOV (drivers/pci/iov.c): a PF's enabled VFs (sriov_numvfs), and on a VF its PF's PCI
  // address (the device/physfn link; empty on a PF) and its number there (the PF's virtfn<N>).
  // A VF's netdev is mlx5e's too, but it is no vport group manager, so it has no dcbnl ops
  // (en_dcbnl.c mlx5e_dcbnl_build_netdev) and no port registers; its own RDMA device is not
  // modelled.
  uint32_t sriov_numvfs = 0;
  // Pods on macvlan over the port (rdma_device.hpp start_pod): how many run from the start, and
  // the IPv4 subnet they take their addresses from, one after another from its first host.
  uint32_t pods = 0;
  std::string pod_subnet;           // "10.201.0.0/16"
  std::string pod_netdev = "net1";  // their netdev's name in their namespaces
  uint32_t sriov_offset = 0;        // routing ID of VF 0 minus the PF's (stride 1)
  std::string physfn;
  uint32_t vf_index = 0;
  bool is_vf() const { return !physfn.empty(); }
  // The e-switch in switchdev mode (devlink dev eswitch set ... mode switchdev): each VF gets a
  // representor netdev, and the PF's own netdev is the uplink representor (keeping its DCB).
  bool switchdev = false;
  // On a representor: the netdev of the PF whose VF `vf_index` it represents. A representor is
  // mlx5_core's netdev on the PF's own PCI function (en_rep.c mlx5e_build_rep_netdev:
  // SET_NETDEV_DEV(netdev, mdev->device)) with the PF's pci_address, and only the uplink's gets
  // dcbnl ops there. The RDMA device mlx5_ib makes of the representors (ib_rep.c, one port per
  // vport) is not modelled.
  std::string representor_of;
  bool is_representor() const { return !representor_of.empty(); }
  // A sub-function (sf/dev/dev.c): made by `devlink port add ... flavour pcisf` on a PF whose
  // e-switch is in switchdev mode, an auxiliary device `mlx5_core.sf.<N>` under the PF's PCI
  // function (in pci_address: what its netdev's device link and ethtool's bus_info name) bound
  // to the driver mlx5_core.sf, with an mlx5e netdev of its own that is no vport group manager
  // (no dcbnl ops, no phys_port_name) and a representor `pf<N>sf<M>` on the PF. On the SF: its
  // PF's netdev and PCI function and its sfnum; on its representor, represents_sf.
  std::string sf_of;
  std::string sf_pf_pci;
  uint32_t sf_number = 0;
  bool represents_sf = false;
  bool is_sf() const { return !sf_of.empty(); }
  // dcb_doit answers -EOPNOTSUPP for a netdev without dcbnl_ops: a VF's
  // (en_dcbnl.c mlx5e_dcbnl_build_netdev: vport group managers only) and a VF representor's.
  bool has_dcbnl() const { return !is_vf() && !is_representor() && !is_stacked() && !is_sf(); }
  // MLX5_CAP_GEN(mdev, vport_group_manager): the function that owns the physical port, the PF
  // (whose mdev its representors share); a VF and an SF are none.
  bool vport_group_manager() const { return !is_vf() && !is_sf() && !is_stacked(); }
  // /sys/class/net/<if>/phys_port_name as devlink makes it (net/devlink/port.c
  // __devlink_port_phys_port_name_get): "p<N>" for a PF (en/devlink.c mlx5e_devlink_port_register,
  // DEVLINK_PORT_FLAVOUR_PHYSICAL, N its PCI function), "pf<N>vf<M>" for a VF's representor; a
  // VF's own netdev (DEVLINK_PORT_FLAVOUR_VIRTUAL) has none (the read fails with EOPNOTSUPP).
  std::string phys_port_name;
  // RoCE LAG (lag/lag.c): the PFs of one NIC enslaved to one bond in a mode mlx5 offloads
  // (mlx5_handle_changeupper_event: active-backup, or hash: 802.3ad, balance-xor). On the bond,
  // a netdev of the bonding driver (no PCI function, no dcbnl ops, no ethtool statistics), its
  // slaves, its mode, and the PCI function of the PF whose RDMA device is now the bond's
  // (mlx5_bond_<N>, in rdma_device); on each slave, its bond, and no RDMA device of its own.
  std::vector<std::string> bond_slaves;
  std::string bond_mode;  // "802.3ad" | "active-backup" (bonding's mode names)
  std::string lag_function;
  std::string bond;  // on a slave
  bool is_bond() const { return !bond_slaves.empty(); }
  // An upper device in the host's namespace over the port `upper_of`: a VLAN (net/8021q) or a
  // macvlan (drivers/net/macvlan.c). No PCI function, no dcbnl ops, no ethtool statistics; its
  // carrier follows its port's (netif_stacked_transfer_operstate) and its MTU may not exceed it
  // (vlan_dev_change_mtu: -ERANGE, macvlan_change_mtu: -EINVAL). On the port: the names of its
  // uppers, whose addresses its RDMA device lists as GIDs.
  std::string upper_of;
  std::string upper_kind;  // "vlan" | "macvlan"
  uint32_t vlan_id = 0;
  std::vector<UpperAddresses> uppers;
  bool is_upper() const { return !upper_of.empty(); }
  // A software netdev over others (bonding, VLAN, macvlan): none of mlx5's ethtool, DCB or PCI.
  bool is_stacked() const { return is_bond() || is_upper(); }
};

}  // namespace roce_sim
