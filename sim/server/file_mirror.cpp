// SPDX-License-Identifier: Apache-2.0
#include "sim/server/file_mirror.hpp"

#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace roce_sim::server {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPciRoot = "devices/pci0000:00";

std::string line(const std::string& text) { return text + "\n"; }
std::string line(uint64_t value) { return std::to_string(value) + "\n"; }

// drivers/infiniband/core/sysfs.c rate_show with mlx5's Ethernet speed -> (width, IB speed) map.
std::string ib_rate(uint32_t speed_mbps) {
  const uint32_t gbps = speed_mbps / 1000;
  switch (gbps) {
    case 400:
      return "400 Gb/sec (4X NDR)";
    case 200:
      return "200 Gb/sec (4X HDR)";
    case 100:
      return "100 Gb/sec (4X EDR)";
    case 50:
      return "50 Gb/sec (2X HDR)";
    case 40:
      return "40 Gb/sec (4X QDR)";
    case 25:
      return "25 Gb/sec (1X EDR)";
    case 10:
      return "10 Gb/sec (1X QDR)";
    default:
      return std::to_string(gbps) + " Gb/sec (4X)";
  }
}

// mlx5 node GUID as sysfs prints it (%04x:%04x:%04x:%04x), derived from the port MAC.
std::string node_guid(const std::string& mac) {
  unsigned int b[6] = {};
  std::sscanf(mac.c_str(), "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]);
  char text[32];
  std::snprintf(text, sizeof text, "%02x%02x:%02x03:00%02x:%02x%02x", b[0], b[1], b[2], b[3], b[4],
                b[5]);
  return text;
}

// kstrtou32-style: decimal, one optional trailing newline.
bool parse_u32(std::string text, uint32_t& out) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (text.empty() || text.size() > 10) return false;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (value > UINT32_MAX) return false;
  out = static_cast<uint32_t>(value);
  return true;
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void symlink_to(const fs::path& target, const fs::path& link) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(link, ec))) fs::remove(link, ec);
  fs::create_directory_symlink(target, link);
}

}  // namespace

std::string ofed_param_name(const std::string& model_name) {
  static const std::map<std::string, std::string> names = {
      {"rp_time_reset", "rpg_time_reset"},
      {"rp_byte_reset", "rpg_byte_reset"},
      {"rp_threshold", "rpg_threshold"},
      {"rp_ai_rate", "rpg_ai_rate"},
      {"rp_hai_rate", "rpg_hai_rate"},
      {"rp_min_rate", "rpg_min_rate"},
      {"rp_max_rate", "rpg_max_rate"},
      {"rp_min_dec_fac", "rpg_min_dec_fac"},
      {"rp_gd", "rpg_gd"},
      {"rp_initial_alpha_value", "initial_alpha_value"},
      {"rp_rate_reduce_monitor_period", "rate_reduce_monitor_period"},
      {"rp_rate_to_set_on_first_cnp", "rate_to_set_on_first_cnp"},
      {"rp_dce_tcp_g", "dce_tcp_g"},
      {"rp_dce_tcp_rtt", "dce_tcp_rtt"},
      {"rp_clamp_tgt_rate", "clamp_tgt_rate"},
      {"rp_clamp_tgt_rate_ati", "clamp_tgt_rate_after_time_inc"},
      {"np_min_time_between_cnps", "min_time_between_cnps"},
      {"np_cnp_dscp", "cnp_dscp"},
      {"np_cnp_prio", "cnp_802p_prio"},
      // en_sysfs.c mlx5e_fill_np_attributes makes no file for the CNP priority mode.
      {"np_cnp_prio_mode", ""},
  };
  auto it = names.find(model_name);
  if (it != names.end()) return it->second;
  return model_name.size() > 3 ? model_name.substr(3) : model_name;
}

FileMirror::FileMirror(Node& node, fs::path dir, WriteCounter* writes)
    : node_(node), dir_(std::move(dir)), writes_(writes) {
  inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify_fd_ < 0) throw std::system_error(errno, std::generic_category(), "inotify_init1");
}

FileMirror::~FileMirror() {
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
}

void FileMirror::write_file(const fs::path& path, const std::string& content, mode_t mode) {
  auto it = written_.find(path.native());
  if (it != written_.end() && it->second == content) return;
  // Readers see the old or the new file, never half a write: write aside, then rename.
  const fs::path temp = path.parent_path() / ("." + path.filename().string() + ".tmp");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + temp.string());
  }
  if (!node_.unreadable_files().empty() &&
      node_.unreadable_files().count(path.lexically_relative(dir_).string())) {
    ::chmod(temp.c_str(), 0);  // before the rename: a reader never sees it readable
  } else if (mode != 0644) {
    ::chmod(temp.c_str(), mode);
  }
  fs::rename(temp, path);
  written_[path.native()] = content;
}

void FileMirror::apply_file_modes() {
  const std::set<std::string>& wanted = node_.unreadable_files();
  for (const std::string& relative : wanted) {
    if (unreadable_applied_.count(relative)) continue;
    struct stat st {};
    const fs::path path = dir_ / relative;
    if (::stat(path.c_str(), &st) != 0) continue;  // not there (yet): tried again next time
    // 0: a rewrite already made it unreadable; the tree's files are otherwise 0644.
    const mode_t mode = st.st_mode & 07777;
    unreadable_applied_[relative] = mode != 0 ? mode : 0644;
    ::chmod(path.c_str(), 0);
  }
  for (auto it = unreadable_applied_.begin(); it != unreadable_applied_.end();) {
    if (wanted.count(it->first)) {
      ++it;
      continue;
    }
    ::chmod((dir_ / it->first).c_str(), it->second);
    it = unreadable_applied_.erase(it);
  }
}

void FileMirror::add_watch(const fs::path& path, Watch watch) {
  const int wd = ::inotify_add_watch(inotify_fd_, path.c_str(),
                                     IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ONLYDIR);
  if (wd < 0)
    throw std::system_error(errno, std::generic_category(), "inotify_add_watch " + path.string());
  watches_[wd] = std::move(watch);
  watch_by_path_[path] = wd;
}

void FileMirror::build() {
  fs::create_directories(dir_ / "sys/class/net");
  fs::create_directories(dir_ / "sys/class/infiniband");
  fs::create_directories(dir_ / "sys/bus/pci/devices");
  fs::create_directories(dir_ / "sys/bus/pci/drivers/mlx5_core");
  fs::create_directories(dir_ / "sys" / kPciRoot);
  fs::create_directories(dir_ / "config/rdma_cm");
  fs::create_directories(dir_ / "debug/mlx5");
  write_lockdown();
  write_kernel_release();
  add_watch(dir_ / "config/rdma_cm", Watch{WatchKind::RdmaCmRoot, "", false});
  refresh();
  // Groups made before we watched (a reused DIR).
  for (const auto& entry : fs::directory_iterator(dir_ / "config/rdma_cm")) {
    if (entry.is_directory()) create_rdma_cm(entry.path().filename().string());
  }
}

// The running kernel's release (kernel/utsname_sysctl.c osrelease) and /proc/version
// (fs/proc/version.c: "Linux version <release> (<builder>) <UTS_VERSION>"; Debian's UTS_VERSION
// ends with its package version). A port of the kernel's own driver reports this release as its
// version: ethtool_get_drvinfo (net/ethtool/ioctl.c) fills in UTS_RELEASE for a driver that
// leaves it empty, as mlx5 does.
void FileMirror::write_kernel_release() {
  const auto [release, package] = node_.kernel();
  // init/version.c linux_banner: the compiler comes before the version, and Debian's compilers
  // name their own Debian package there too.
  const bool trixie = release.find("+deb13") != std::string::npos;
  const std::string builder =
      package.empty() ? "(builder@nic-kernel) (gcc (GCC) 13.3.0, GNU ld 2.42)"
      : trixie        ? "(debian-kernel@lists.debian.org) (x86_64-linux-gnu-gcc-14 (Debian "
                        "14.2.0-19) 14.2.0, GNU ld (GNU Binutils for Debian) 2.44)"
                      : "(debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) "
                        "12.2.0, GNU ld (GNU Binutils for Debian) 2.40)";
  fs::create_directories(dir_ / "proc/sys/kernel");
  write_file(dir_ / "proc/sys/kernel/osrelease", release + "\n");
  write_file(dir_ / "proc/version",
             "Linux version " + release + " " + builder + " #1 SMP PREEMPT_DYNAMIC" +
                 (package.empty() ? "" : " " + package + " (2026-11-20)") + "\n");
}

void FileMirror::write_lockdown() {
  // security/lockdown/lockdown.c lockdown_read: every level, the current one in brackets.
  KernelLockdown level = KernelLockdown::None;
  for (Port* port : node_.ports()) level = port->spec().lockdown;
  const char* text = level == KernelLockdown::Integrity ? "none [integrity] confidentiality\n"
                     : level == KernelLockdown::Confidentiality
                         ? "none integrity [confidentiality]\n"
                         : "[none] integrity confidentiality\n";
  fs::create_directories(dir_ / "sys/kernel/security");
  write_file(dir_ / "sys/kernel/security/lockdown", text);
}

void FileMirror::build_port(Port& port) {
  const PortSpec& spec = port.spec();
  const fs::path sys = dir_ / "sys";
  const fs::path net = sys / "class/net" / spec.netdev;
  if (spec.is_bond()) {
    build_bond(port);
    return;
  }
  if (spec.is_upper()) {
    build_upper(port);
    return;
  }
  if (spec.is_sf()) {
    build_sub_function(port);
    return;
  }
  const fs::path pci_dir = sys / kPciRoot / spec.pci_address;
  fs::create_directories(pci_dir / "net" / spec.netdev);
  if (spec.is_representor()) {  // a netdev of its PF's PCI function, which the PF made
    fs::create_directories(net);
    symlink_to("../../../bus/pci/devices/" + spec.pci_address, net / "device");
    write_file(net / "phys_port_name", line(spec.phys_port_name));
    refresh_port(port);
    present_.insert(spec.netdev);
    specs_.insert_or_assign(spec.netdev, spec);
    return;
  }
  write_file(pci_dir / "vendor", "0x15b3\n");
  // ConnectX-7 and its VF (mlx5_core's pci_device_id table, main.c mlx5_core_pci_table).
  char device[16];
  std::snprintf(device, sizeof device, "0x%04x\n",
                spec.is_vf() ? 0x101eu : pci_device_id(spec.board));
  write_file(pci_dir / "device", device);
  if (spec.is_vf()) {
    // pci_iov_sysfs_link (drivers/pci/iov.c): physfn in the VF, virtfn<N> in the PF.
    symlink_to("../" + spec.physfn, pci_dir / "physfn");
    symlink_to("../" + spec.pci_address,
               sys / kPciRoot / spec.physfn / ("virtfn" + std::to_string(spec.vf_index)));
  } else {
    write_file(pci_dir / "sriov_totalvfs", line(uint64_t{kMaxVfsPerPort}));
    write_file(pci_dir / "sriov_numvfs", line(uint64_t{spec.sriov_numvfs}));
    write_file(pci_dir / "sriov_offset", line(uint64_t{spec.sriov_offset}));
    write_file(pci_dir / "sriov_stride", "1\n");
  }
  symlink_to("../../../bus/pci/drivers/mlx5_core", pci_dir / "driver");
  symlink_to(fs::path("../../../") / kPciRoot / spec.pci_address,
             sys / "bus/pci/devices" / spec.pci_address);

  fs::create_directories(net);
  symlink_to("../../../bus/pci/devices/" + spec.pci_address, net / "device");
  if (!spec.phys_port_name.empty()) write_file(net / "phys_port_name", line(spec.phys_port_name));
  if (!spec.bond.empty()) {
    // A bond slave (net/core/dev.c netdev_upper_dev_link, bond_sysfs_slave.c): `master` and
    // `upper_<bond>` here, `lower_<slave>` in the bond.
    symlink_to("../" + spec.bond, net / "master");
    symlink_to("../" + spec.bond, net / ("upper_" + spec.bond));
    fs::create_directories(net / "bonding_slave");
  }
  for (const UpperAddresses& upper : spec.uppers) {
    symlink_to("../" + upper.netdev, net / ("upper_" + upper.netdev));
  }
  if (spec.caps.ecn && spec.flavour == DriverFlavour::Ofed && spec.rdma_device.empty()) {
    build_knobs(port, net);  // NVIDIA's ecn/ is the netdev's, with or without an RDMA device
  }
  if (spec.rdma_device.empty()) {  // a VF or a LAG's PF: no RDMA device of its own
    refresh_port(port);
    present_.insert(spec.netdev);
    specs_.insert_or_assign(spec.netdev, spec);
    return;
  }
  build_rdma_device(port, net);
  present_.insert(spec.netdev);
  specs_.insert_or_assign(spec.netdev, spec);
}

// The RDMA device on the port's PCI function (a bond's: on the function of the PF mlx5 re-added
// it to), and the DCQCN knobs of either flavour.
void FileMirror::build_rdma_device(Port& port, const fs::path& net) {
  const PortSpec& spec = port.spec();
  const fs::path sys = dir_ / "sys";
  const std::string& function = spec.is_bond() ? spec.lag_function : spec.pci_address;
  const fs::path pci_dir = sys / kPciRoot / function;
  fs::create_directories(pci_dir / "infiniband" / spec.rdma_device);
  const fs::path ib = sys / "class/infiniband" / spec.rdma_device;
  const fs::path ib_port = ib / "ports" / std::to_string(spec.rdma_port);
  fs::create_directories(ib_port / "gids");
  fs::create_directories(ib_port / "gid_attrs/types");
  fs::create_directories(ib_port / "gid_attrs/ndevs");
  fs::create_directories(ib_port / "hw_counters");
  fs::create_directories(ib_port / "counters");
  symlink_to("../../../bus/pci/devices/" + function, ib / "device");
  if (spec.caps.ecn) {
    build_knobs(port, net);
  } else {
    refresh_port(port);
  }
}

void FileMirror::build_knobs(Port& port, const fs::path& net) {
  const PortSpec& spec = port.spec();
  if (kernel_driver(spec.flavour)) {
    const std::string& function = spec.is_bond() ? spec.lag_function : spec.pci_address;
    const fs::path cc = dir_ / "debug/mlx5" / function / "cc_params";
    fs::create_directories(cc);
    refresh_port(port);  // files first, then the watch: our own writes are not events to apply
    add_watch(cc, Watch{WatchKind::CcParams, spec.netdev, false});
    return;
  }
  for (bool rp : {false, true}) {
    const fs::path side = net / "ecn" / (rp ? "roce_rp" : "roce_np");
    fs::create_directories(side / "enable");
  }
  refresh_port(port);
  for (bool rp : {false, true}) {
    const fs::path side = net / "ecn" / (rp ? "roce_rp" : "roce_np");
    add_watch(side, Watch{WatchKind::EcnParams, spec.netdev, rp});
    add_watch(side / "enable", Watch{WatchKind::EcnEnable, spec.netdev, rp});
  }
}

// A bond (drivers/net/bonding): a virtual netdev, no `device` link, its bonding/ attributes
// (bond_sysfs.c), a `lower_<slave>` link per slave, and the RoCE LAG's RDMA device.
void FileMirror::build_bond(Port& port) {
  const PortSpec& spec = port.spec();
  const fs::path net = dir_ / "sys/class/net" / spec.netdev;
  fs::create_directories(net / "bonding");
  for (const std::string& slave : spec.bond_slaves)
    symlink_to("../" + slave, net / ("lower_" + slave));
  std::string masters;
  for (const auto& [name, other] : specs_) {
    if (other.is_bond() && name != spec.netdev) masters += name + " ";
  }
  write_file(dir_ / "sys/class/net/bonding_masters", line(masters + spec.netdev));
  build_rdma_device(port, net);
  present_.insert(spec.netdev);
  specs_.insert_or_assign(spec.netdev, spec);
}

// A VLAN or macvlan in the host's namespace: a netdev with no device link, `lower_<port>` here
// and `upper_<self>` in its port (net/core/dev.c __netdev_adjacent_dev_insert). A VLAN's uevent
// names its device type (vlan_dev.c vlan_dev_init: SET_NETDEV_DEVTYPE "vlan"); a macvlan's
// names none, as the kernel's.
void FileMirror::build_upper(Port& port) {
  const PortSpec& spec = port.spec();
  const fs::path net = dir_ / "sys/class/net" / spec.netdev;
  fs::create_directories(net);
  symlink_to("../" + spec.upper_of, net / ("lower_" + spec.upper_of));
  std::string uevent =
      "INTERFACE=" + spec.netdev + "\nIFINDEX=" + std::to_string(node_.ifindex(spec.netdev)) + "\n";
  if (spec.upper_kind == "vlan") uevent = "DEVTYPE=vlan\n" + uevent;
  write_file(net / "uevent", uevent);
  refresh_port(port);
  present_.insert(spec.netdev);
  specs_.insert_or_assign(spec.netdev, spec);
}

// A sub-function's netdev on its auxiliary device under the PF's PCI function (sf/dev/dev.c
// mlx5_sf_dev_add: auxiliary_device_add with the PF's device as parent; sfnum_show), bound to
// mlx5_core.sf (sf/dev/driver.c), with mlx5's debugfs of its own (named by the device).
void FileMirror::build_sub_function(Port& port) {
  const PortSpec& spec = port.spec();
  const fs::path sys = dir_ / "sys";
  const fs::path aux = sys / kPciRoot / spec.sf_pf_pci / spec.pci_address;
  fs::create_directories(aux / "net" / spec.netdev);
  write_file(aux / "sfnum", line(uint64_t{spec.sf_number}));
  fs::create_directories(sys / "bus/auxiliary/drivers/mlx5_core.sf");
  symlink_to("../../../../bus/auxiliary/drivers/mlx5_core.sf", aux / "driver");
  fs::create_directories(sys / "bus/auxiliary/devices");
  symlink_to(fs::path("../../../") / kPciRoot / spec.sf_pf_pci / spec.pci_address,
             sys / "bus/auxiliary/devices" / spec.pci_address);
  const fs::path net = sys / "class/net" / spec.netdev;
  fs::create_directories(net);
  symlink_to("../../../bus/auxiliary/devices/" + spec.pci_address, net / "device");
  refresh_port(port);
  present_.insert(spec.netdev);
  specs_.insert_or_assign(spec.netdev, spec);
}

void FileMirror::remove_port(const std::string& netdev) {
  // The port vanished (driver unbound): its netdev, RDMA device, debugfs and driver link go away.
  const auto spec = specs_.find(netdev);
  std::vector<fs::path> roots = {dir_ / "sys/class/net" / netdev};
  if (spec != specs_.end() && spec->second.is_bond()) {
    const fs::path function = dir_ / "sys" / kPciRoot / spec->second.lag_function;
    roots.push_back(dir_ / "sys/class/infiniband" / spec->second.rdma_device);
    roots.push_back(function / "infiniband" / spec->second.rdma_device);
  } else if (spec != specs_.end() && spec->second.is_sf()) {
    roots.push_back(dir_ / "sys" / kPciRoot / spec->second.sf_pf_pci / spec->second.pci_address);
    roots.push_back(dir_ / "sys/bus/auxiliary/devices" / spec->second.pci_address);
    roots.push_back(dir_ / "debug/mlx5" / spec->second.pci_address);
  } else if (spec != specs_.end() && spec->second.is_upper()) {
    roots.push_back(dir_ / "sys/class/net" / spec->second.upper_of / ("upper_" + netdev));
  } else if (spec != specs_.end() && spec->second.is_representor()) {
    // Its PF's PCI function, driver and debugfs stay: only the netdev goes.
    roots.push_back(dir_ / "sys" / kPciRoot / spec->second.pci_address / "net" / netdev);
  } else if (spec != specs_.end()) {
    const fs::path pci_dir = dir_ / "sys" / kPciRoot / spec->second.pci_address;
    if (!spec->second.rdma_device.empty()) {
      roots.push_back(dir_ / "sys/class/infiniband" / spec->second.rdma_device);
      roots.push_back(pci_dir / "infiniband" / spec->second.rdma_device);
    }
    roots.push_back(pci_dir / "net" / netdev);
    roots.push_back(pci_dir / "driver");
    roots.push_back(dir_ / "debug/mlx5" / spec->second.pci_address);
    if (spec->second.is_vf()) {
      // SR-IOV disabled (or the VF unbound): pci_iov_remove_virtfn takes the VF's PCI function
      // and the PF's virtfn<N> link with it.
      roots.push_back(pci_dir);
      roots.push_back(dir_ / "sys/bus/pci/devices" / spec->second.pci_address);
      roots.push_back(dir_ / "sys" / kPciRoot / spec->second.physfn /
                      ("virtfn" + std::to_string(spec->second.vf_index)));
    }
  }
  std::error_code ec;
  for (const fs::path& root : roots) {
    fs::remove_all(root, ec);
    const std::string prefix = root.string() + "/";
    std::erase_if(written_, [&](const auto& entry) { return entry.first.rfind(prefix, 0) == 0; });
  }
  present_.erase(netdev);
  gid_signature_.erase(netdev);
}

void FileMirror::refresh(const std::set<std::string>& changed) {
  restore_truncated();
  // A slave's change moves its bond's files and its siblings' state (active-backup).
  std::set<std::string> netdevs = changed;
  for (const std::string& name : changed) {
    Port* port = node_.find(name);
    Port* bond = port == nullptr ? nullptr : node_.bond_of(*port);
    if (bond == nullptr) continue;
    netdevs.insert(bond->netdev());
    netdevs.insert(bond->spec().bond_slaves.begin(), bond->spec().bond_slaves.end());
  }
  for (Port* port : node_.ports()) {
    if (netdevs.count(port->netdev()) && present_.count(port->netdev())) {
      refresh_port(*port, /*counters=*/false);
    }
  }
}

void FileMirror::restore_truncated() {
  for (const auto& [path, watch] : std::exchange(truncated_, {})) {
    Port* port = node_.find(watch.netdev);
    std::error_code ec;
    if (!port || !fs::exists(path, ec) || !read_all(path).empty()) continue;
    const std::string value = model_value(watch, path.filename().string(), *port);
    written_.erase(path.native());
    if (!value.empty()) write_file(path, value);
  }
}

void FileMirror::sync_presence() {
  std::set<std::string> now;
  bool added = false;
  for (Port* port : node_.ports()) {
    now.insert(port->netdev());
    if (!present_.count(port->netdev())) {
      build_port(*port);
      refresh_port(*port);
      added = true;
    }
  }
  bool removed = false;
  for (const std::string& netdev : std::set<std::string>(present_)) {
    if (!now.count(netdev)) {
      remove_port(netdev);
      removed = true;
    }
  }
  // The PFs' sriov_numvfs change with their VFs (sriov_numvfs_store), in the same step.
  if (removed || added) {
    for (Port* port : node_.ports()) {
      const PortSpec& spec = port->spec();
      if (spec.is_vf() || spec.is_representor() || spec.is_stacked() || spec.is_sf()) continue;
      write_file(dir_ / "sys" / kPciRoot / spec.pci_address / "sriov_numvfs",
                 line(uint64_t{node_.numvfs(spec.netdev)}));
    }
  }
}

void FileMirror::refresh() {
  restore_truncated();
  sync_presence();
  for (Port* port : node_.ports()) refresh_port(*port);
}

void FileMirror::refresh_next(size_t ports) {
  restore_truncated();
  sync_presence();
  const std::vector<Port*> all = node_.ports();
  for (size_t i = 0; i < ports && !all.empty(); ++i) {
    refresh_port(*all[next_refresh_ % all.size()]);
    ++next_refresh_;
  }
}

void FileMirror::refresh_commands() {
  for (Port* port : node_.ports()) {
    if (port->take_commands_changed() && !port->spec().is_stacked()) write_commands(*port);
  }
}

// mlx5's command statistics (cmd.c, debugfs commands/<NAME>/): how many, and the average time in
// nanoseconds.
void FileMirror::write_commands(const Port& port) {
  const fs::path commands = dir_ / "debug/mlx5" / port.spec().pci_address / "commands";
  for (const auto& [name, stats] : port.firmware_commands()) {
    fs::create_directories(commands / name);
    write_file(commands / name / "n", line(stats.n));
    write_file(commands / name / "average", line(stats.n ? stats.total_ns / stats.n : 0));
  }
}

// bond_sysfs.c: mode as "<name> <number>" (bonding_show_mode), the slaves by name
// (bonding_show_slaves), the active slave in active-backup only (bonding_show_active_slave),
// and mii_status from the bond's carrier.
void FileMirror::write_bonding(Port& bond, const fs::path& net) {
  const PortSpec& spec = bond.spec();
  const std::string& mode = spec.bond_mode;
  const int number = mode == "active-backup" ? 1 : mode == "balance-xor" ? 2 : 4;
  write_file(net / "bonding/mode", mode + " " + std::to_string(number) + "\n");
  std::string slaves, active;
  for (const std::string& name : spec.bond_slaves) {
    Port* slave = node_.find(name);
    if (slave == nullptr) continue;
    slaves += (slaves.empty() ? "" : " ") + name;
    if (mode == "active-backup" && node_.slave_active(*slave)) active = name;
  }
  write_file(net / "bonding/slaves", line(slaves));
  write_file(net / "bonding/active_slave", active.empty() ? std::string() : line(active));
  write_file(net / "bonding/mii_status", bond.carrier() ? "up\n" : "down\n");
  if (!spec.rdma_device.empty()) write_lag_debugfs(bond);
}

// mlx5's LAG debugfs (lag/debugfs.c mlx5_ldev_add_debugfs), on every PF of the LAG: a RoCE LAG,
// hash-based port selection (lag.c mlx5_lag_set_port_sel_mode_roce picks it whenever the device
// has port_select_flow_table, as ConnectX-7 does, even in active-backup), "active", the PFs'
// PCI addresses, and in hash mode the ports traffic may take (1-based, one per line).
void FileMirror::write_lag_debugfs(Port& bond) {
  std::string members, mapping;
  std::vector<const PortSpec*> pfs;
  for (size_t i = 0; i < bond.spec().bond_slaves.size(); ++i) {
    Port* slave = node_.find(bond.spec().bond_slaves[i]);
    if (slave == nullptr) continue;
    pfs.push_back(&slave->spec());
    members += line(slave->spec().pci_address);
    if (slave->carrier()) mapping += line(uint64_t{i + 1});
  }
  for (const PortSpec* pf : pfs) {
    const fs::path lag = dir_ / "debug/mlx5" / pf->pci_address / "lag";
    fs::create_directories(lag);
    write_file(lag / "type", "roce\n", 0444);
    write_file(lag / "port_sel_mode", "hash\n", 0444);
    write_file(lag / "state", "active\n", 0444);
    write_file(lag / "members", members, 0444);
    write_file(lag / "mapping", mapping, 0444);
  }
}

// The RDMA device's sysfs: attributes, port state, GID table, hw_counters and PMA counters.
void FileMirror::refresh_rdma_device(Port& port, bool counters) {
  const PortSpec& spec = port.spec();
  const bool up = port.carrier();
  const RdmaDevice& rdma = port.rdma();
  const fs::path ib = dir_ / "sys/class/infiniband" / spec.rdma_device;
  write_file(ib / "fw_ver", line(spec.firmware));
  write_file(ib / "board_id", "MT_0000000838\n");
  write_file(ib / "hca_type", "MT" + std::to_string(pci_device_id(spec.board)) + "\n");
  write_file(ib / "node_type", "1: CA\n");
  write_file(ib / "node_guid", line(node_guid(spec.mac)));
  const fs::path ib_port = ib / "ports" / std::to_string(spec.rdma_port);
  write_file(ib_port / "state", up ? "4: ACTIVE\n" : "1: DOWN\n");
  write_file(ib_port / "phys_state", up ? "5: LinkUp\n" : "3: Disabled\n");
  write_file(ib_port / "link_layer", "Ethernet\n");
  write_file(ib_port / "rate", line(ib_rate(port.speed_mbps())));
  const auto& gids = rdma.gid_table();
  // The table rarely changes and has 255 slots: rewrite it only when its contents did.
  std::string signature;
  for (size_t i = 0; i < gids.size(); ++i) {
    if (!gids[i]) continue;
    signature += std::to_string(i) + ':' + RdmaDevice::format_gid(gids[i]->gid) + ':' +
                 std::to_string(static_cast<int>(gids[i]->type)) + ':' + gids[i]->ndev + ';';
  }
  std::string& known_signature = gid_signature_[spec.netdev];
  const bool gids_changed = known_signature != signature || signature.empty();
  known_signature = signature;
  static const std::string kZeroGid = "0000:0000:0000:0000:0000:0000:0000:0000\n";
  for (size_t i = 0; gids_changed && i < static_cast<size_t>(RdmaDevice::kGidTableSize); ++i) {
    const std::string index = std::to_string(i);
    const auto& entry = i < gids.size() ? gids[i] : std::optional<GidEntry>{};
    write_file(ib_port / "gids" / index,
               entry ? line(RdmaDevice::format_gid(entry->gid)) : kZeroGid);
    const fs::path type_file = ib_port / "gid_attrs/types" / index;
    const fs::path ndev_file = ib_port / "gid_attrs/ndevs" / index;
    if (entry) {
      write_file(type_file, line(gid_type_name(entry->type)));
      write_file(ndev_file, line(entry->ndev));
    } else {
      // Empty slot: the kernel answers EINVAL; a plain file cannot, so it is absent.
      for (const fs::path& path : {type_file, ndev_file}) {
        if (written_.erase(path.native())) {
          std::error_code ec;
          fs::remove(path, ec);
        }
      }
    }
  }
  for (const auto& [name, counter] : rdma.hw_counters()) {
    if (counters) write_file(ib_port / "hw_counters" / name, line(counter.value));
  }
  if (counters) {
    const PortCounters& c = port.counters();
    for (const auto& [name, value] :
         pma_counters({c.tx_bytes, c.rx_bytes, c.tx_packets, c.rx_packets})) {
      write_file(ib_port / "counters" / name, line(value));
    }
    // Firmware commands move with every request: with the counters, periodically.
    if (!spec.is_bond()) write_commands(port);
  }
}

void FileMirror::refresh_port(Port& port, bool counters) {
  const PortSpec& spec = port.spec();
  const fs::path net = dir_ / "sys/class/net" / spec.netdev;
  const bool up = port.carrier();
  write_file(net / "ifindex", line(static_cast<uint64_t>(node_.ifindex(spec.netdev))));
  write_file(net / "mtu", line(port.mtu()));
  write_file(net / "address", line(spec.mac));
  write_file(net / "broadcast", "ff:ff:ff:ff:ff:ff\n");
  write_file(net / "addr_len", "6\n");
  write_file(net / "type", "1\n");
  write_file(net / "operstate", up ? "up\n" : "down\n");
  write_file(net / "carrier", up ? "1\n" : "0\n");
  write_file(net / "carrier_changes", line(port.carrier_changes()));
  write_file(net / "speed", up ? line(port.speed_mbps()) : "-1\n");
  if (spec.is_bond()) write_bonding(port, net);
  if (node_.bond_of(port) != nullptr) {
    // bond_sysfs_slave.c: state is "active" or "backup", mii_status "up" or "down".
    write_file(net / "bonding_slave/state", node_.slave_active(port) ? "active\n" : "backup\n");
    write_file(net / "bonding_slave/mii_status", up ? "up\n" : "down\n");
    write_file(net / "bonding_slave/perm_hwaddr", line(spec.mac));
  }

  if (!spec.rdma_device.empty()) refresh_rdma_device(port, counters);
  // A PF's; a VF's Link Status is reserved (the PCIe SR-IOV spec), not modelled.
  if (!spec.is_stacked() && !spec.is_sf() && !spec.is_representor() && !spec.is_vf()) {
    write_pcie_link(port);
  }

  if (!spec.caps.ecn) return;
  const EcnState& ecn = port.ecn();
  if (kernel_driver(spec.flavour)) {
    const std::string& function = spec.is_bond() ? spec.lag_function : spec.pci_address;
    const fs::path cc = dir_ / "debug/mlx5" / function / "cc_params";
    // mlx5_ib_init_cong_debugfs (infiniband/hw/mlx5/cong.c) makes each file 0600.
    for (const auto& [name, value] : ecn.params) write_file(cc / name, line(value), 0600);
  } else {
    for (bool rp : {false, true}) {
      const fs::path side = net / "ecn" / (rp ? "roce_rp" : "roce_np");
      const auto& enabled = rp ? ecn.rp_enabled : ecn.np_enabled;
      for (size_t p = 0; p < enabled.size(); ++p) {
        write_file(side / "enable" / std::to_string(p), enabled[p] ? "1\n" : "0\n");
      }
      for (const auto& [name, value] : ecn.params) {
        if (ofed_param_name(name).empty()) continue;
        if (name.rfind(rp ? "rp_" : "np_", 0) == 0)
          write_file(side / ofed_param_name(name), line(value));
      }
    }
  }
}

// drivers/pci/pci-sysfs.c current_link_speed_show and max_link_speed_show print
// pci_speed_string() (drivers/pci/probe.c: "32.0 GT/s PCIe"), current_link_width_show the
// negotiated lanes of the Link Status register and max_link_width_show pcie_get_width_cap().
void FileMirror::write_pcie_link(const Port& port) {
  const fs::path pci_dir = dir_ / "sys" / kPciRoot / port.spec().pci_address;
  const auto speed = [](const PcieLink& link) {
    return std::to_string(link.speed_tenths_gts / 10) + "." +
           std::to_string(link.speed_tenths_gts % 10) + " GT/s PCIe\n";
  };
  write_file(pci_dir / "current_link_speed", speed(port.pcie_link()));
  write_file(pci_dir / "current_link_width", line(uint64_t{port.pcie_link().width}));
  write_file(pci_dir / "max_link_speed", speed(port.pcie_capability()));
  write_file(pci_dir / "max_link_width", line(uint64_t{port.pcie_capability().width}));
}

void FileMirror::create_rdma_cm(const std::string& rdma_device) {
  Port* owner = nullptr;
  for (Port* port : node_.ports()) {
    if (port->rdma().name() == rdma_device) owner = port;
  }
  const fs::path group = dir_ / "config/rdma_cm" / rdma_device;
  if (!owner) {
    // cma_configfs make_cma_dev: no such device -> ENODEV; the mkdir cannot fail here, so undo it.
    std::error_code ec;
    fs::remove(group, ec);
    return;
  }
  rdma_cm_devices_.insert(rdma_device);
  const fs::path port_dir = group / "ports" / std::to_string(owner->rdma().port());
  fs::create_directories(port_dir);
  Watch watch{WatchKind::RdmaCmPort, owner->netdev(), false};
  // The watch before the files: a client that sees them may write at once. Our own writes are
  // renames of dot-files, which on_inotify tells apart.
  if (!watch_by_path_.count(port_dir)) add_watch(port_dir, watch);
  write_file(port_dir / "default_roce_mode", model_value(watch, "default_roce_mode", *owner));
  write_file(port_dir / "default_roce_tos", model_value(watch, "default_roce_tos", *owner));
}

std::string FileMirror::model_value(const Watch& watch, const std::string& name, Port& port) {
  switch (watch.kind) {
    case WatchKind::RdmaCmPort:
      if (name == "default_roce_mode") return line(port.rdma().default_roce_mode());
      if (name == "default_roce_tos") return line(port.rdma().default_roce_tos());
      return {};
    case WatchKind::CcParams: {
      auto it = port.ecn().params.find(name);
      return it == port.ecn().params.end() ? std::string() : line(it->second);
    }
    case WatchKind::EcnEnable: {
      uint32_t p = 0;
      if (!parse_u32(name, p) || p > 7) return {};
      const auto& table = watch.reaction_point ? port.ecn().rp_enabled : port.ecn().np_enabled;
      return table[p] ? "1\n" : "0\n";
    }
    case WatchKind::EcnParams:
      for (const auto& [model_name, value] : port.ecn().params) {
        if (model_name.rfind(watch.reaction_point ? "rp_" : "np_", 0) == 0 && !name.empty() &&
            ofed_param_name(model_name) == name) {
          return line(value);
        }
      }
      return {};
    case WatchKind::RdmaCmRoot:
      return {};
  }
  return {};
}

std::string FileMirror::apply_write(const Watch& watch, const std::string& name,
                                    const std::string& content, Port& port, int& err) {
  err = -EINVAL;
  uint32_t value = 0;
  switch (watch.kind) {
    case WatchKind::RdmaCmPort:
      if (name == "default_roce_mode") err = port.rdma().write_default_roce_mode(content);
      if (name == "default_roce_tos") err = port.rdma().write_default_roce_tos(content);
      break;
    case WatchKind::CcParams:
      if (parse_u32(content, value)) err = port.set_cc_param(name, value);
      break;
    case WatchKind::EcnEnable: {
      uint32_t p = 0;
      if (parse_u32(name, p) && parse_u32(content, value) && value <= 1) {
        err = port.set_ecn_enabled(watch.reaction_point, static_cast<int>(p), value == 1);
      }
      break;
    }
    case WatchKind::EcnParams:
      for (const auto& [model_name, current] : port.ecn().params) {
        if (model_name.rfind(watch.reaction_point ? "rp_" : "np_", 0) == 0 && !name.empty() &&
            ofed_param_name(model_name) == name && parse_u32(content, value)) {
          err = port.set_cc_param(model_name, value);
          break;
        }
      }
      break;
    case WatchKind::RdmaCmRoot:
      break;
  }
  return model_value(watch, name, port);
}

std::vector<std::string> FileMirror::on_inotify() {
  std::vector<std::string> log;
  alignas(inotify_event) char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(inotify_fd_, buffer, sizeof buffer);
    if (n <= 0) break;
    for (ssize_t offset = 0; offset < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + offset);
      offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      if (event->mask & IN_IGNORED) {
        auto it = watches_.find(event->wd);
        if (it != watches_.end()) {
          std::erase_if(watch_by_path_,
                        [&](const auto& entry) { return entry.second == event->wd; });
          watches_.erase(it);
        }
        continue;
      }
      auto it = watches_.find(event->wd);
      if (it == watches_.end() || event->len == 0) continue;
      const Watch watch = it->second;
      const std::string name = event->name;
      if (name.empty() || name[0] == '.') continue;  // our own temporary files
      fs::path dir;
      for (const auto& [path, wd] : watch_by_path_) {
        if (wd == event->wd) dir = path;
      }
      if (watch.kind == WatchKind::RdmaCmRoot) {
        if ((event->mask & IN_CREATE) && (event->mask & IN_ISDIR)) {
          if (writes_) {
            std::string owner;
            for (Port* port : node_.ports()) {
              if (port->rdma().name() == name) owner = port->netdev();
            }
            writes_->count(owner);  // a mkdir naming no device still counts in the total
          }
          create_rdma_cm(name);
          log.push_back("configfs: mkdir rdma_cm/" + name);
        }
        continue;
      }
      if (!(event->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) || (event->mask & IN_ISDIR)) continue;
      // Only a client writes the file in place (our own writes are renames of dot-files, and
      // sysfs/configfs files cannot be renamed onto): count it even if it changes nothing.
      if (writes_ && (event->mask & IN_CLOSE_WRITE)) writes_->count(watch.netdev);
      const fs::path path = dir / name;
      const std::string content = read_all(path);
      if (content.empty()) {
        // Nothing written (the kernel calls no store()), or a second writer's O_TRUNC came
        // before this event was read: its own event follows. Restore the value later if not.
        // Our own rename (IN_MOVED_TO) read empty is a client between its O_TRUNC and its write:
        // a restore could land after that write and undo it, so only the client's close decides.
        if (event->mask & IN_CLOSE_WRITE) truncated_.insert_or_assign(path, watch);
        continue;
      }
      truncated_.erase(path);
      auto known = written_.find(path.native());
      if (known != written_.end() && known->second == content) continue;  // what we wrote ourselves
      Port* port = node_.find(watch.netdev);
      if (!port) continue;
      int err = 0;
      const std::string value = apply_write(watch, name, content, *port, err);
      written_.erase(
          path.native());  // the file holds the writer's text now: always rewrite the model's
      if (!value.empty()) write_file(path, value);
      std::string shown = content;
      if (!shown.empty() && shown.back() == '\n') shown.pop_back();
      log.push_back(
          "write " + path.lexically_relative(dir_).string() + " = '" + shown + "': " +
          (err == 0 ? "applied" : "refused (" + std::string(std::strerror(-err)) + "), reverted"));
    }
  }
  return log;
}

}  // namespace roce_sim::server
