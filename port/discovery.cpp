// SPDX-License-Identifier: Apache-2.0
#include "port/discovery.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <utility>

#include "util/decimal.hpp"

namespace roced {

namespace fs = std::filesystem;

namespace {

const fs::path kClassNet = "/sys/class/net";
const fs::path kClassInfiniband = "/sys/class/infiniband";

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string link_basename(const FileTree& files, const fs::path& link) {
  auto target = files.read_link(link);
  if (!target) return {};
  return target->lexically_normal().filename().string();
}

std::vector<int> port_numbers(const FileTree& files, const std::string& device) {
  std::vector<int> numbers;
  if (auto names = files.list(kClassInfiniband / device / "ports")) {
    for (const auto& name : *names) {
      if (const auto number = parse_decimal<int>(name)) numbers.push_back(*number);
    }
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

}  // namespace

// netdev -> (RDMA device, port) from every GID entry's gid_attrs/ndevs, built once on first use:
// reading all slots of all devices is the slow path. Empty slots fail to read and are skipped.
class NdevIndex {
 public:
  explicit NdevIndex(const FileTree& files) : files_(files) {}
  const std::pair<std::string, int>* find(const std::string& netdev) {
    if (!built_) build();
    auto it = index_.find(netdev);
    return it == index_.end() ? nullptr : &it->second;
  }

 private:
  void build() {
    built_ = true;
    auto devices = files_.list(kClassInfiniband);
    if (!devices) return;
    for (const auto& device : *devices) {
      for (const int number : port_numbers(files_, device)) {
        const fs::path ndevs =
            kClassInfiniband / device / "ports" / std::to_string(number) / "gid_attrs" / "ndevs";
        auto slots = files_.list(ndevs);
        if (!slots) continue;
        for (const auto& slot : *slots) {
          if (auto name = files_.read(ndevs / slot)) {
            index_.emplace(trim(*name), std::pair{device, number});  // first wins
          }
        }
      }
    }
  }
  const FileTree& files_;
  bool built_ = false;
  std::map<std::string, std::pair<std::string, int>> index_;
};

namespace {

// rxe's ib_device hangs off no bus device (no `device` link) and names its netdev in its own
// `parent` attribute (drivers/infiniband/sw/rxe/rxe_verbs.c, parent_show).
bool is_rxe(const FileTree& files, const std::string& device) {
  const fs::path ib = kClassInfiniband / device;
  return !files.exists(ib / "device") && files.exists(ib / "parent");
}

std::string rdma_driver_of(const FileTree& files, const std::string& device) {
  if (is_rxe(files, device)) return "rxe";
  return link_basename(files, kClassInfiniband / device / "device" / "driver");
}

// The rxe device whose parent is `netdev`; empty when there is none.
std::string rxe_device_on(const FileTree& files, const std::string& netdev) {
  auto devices = files.list(kClassInfiniband);
  if (!devices) return {};
  for (const auto& device : *devices) {
    if (!is_rxe(files, device)) continue;
    if (auto parent = files.read(kClassInfiniband / device / "parent");
        parent && trim(*parent) == netdev) {
      return device;
    }
  }
  return {};
}

// The netdev's own RDMA device: the PCI function's ib_device (/sys/class/net/<if>/device/
// infiniband/<dev>), else the rxe device on it. Empty when it has none.
std::string own_rdma_device(const FileTree& files, const std::string& netdev) {
  if (auto devices = files.list(kClassNet / netdev / "device" / "infiniband");
      devices && !devices->empty()) {
    return devices->front();
  }
  return rxe_device_on(files, netdev);
}

// The RDMA device behind a netdev: its own (see own_rdma_device), else the device whose GID table
// names the netdev (gid_attrs/ndevs), which also covers devices whose sysfs parent is not the
// netdev's (bonds, representors).
// A representor hangs off its uplink's PCI function and so sees the uplink's RDMA device there:
// that device is not the representor's (it has one only where a GID table names it).
void find_rdma_device(const FileTree& files, NdevIndex& ndev_index, DiscoveredPort& port) {
  if (port.is_lag_slave()) return;  // its function's RDMA device is the bond's
  if (port.role == PortRole::Bond && !port.lag_device.empty()) {
    // The LAG's device is the bond's own: `ports.drivers` selects the bond by it.
    port.rdma_device = port.lag_device;
    port.owns_rdma_device = true;
    const auto numbers = port_numbers(files, port.rdma_device);
    port.rdma_port = numbers.empty() ? 1 : numbers.front();
    port.rdma_driver = rdma_driver_of(files, port.rdma_device);
    port.lag_function = link_basename(files, kClassInfiniband / port.rdma_device / "device");
    return;
  }
  if (auto own =
          port.role == PortRole::Representor ? std::string() : own_rdma_device(files, port.netdev);
      !own.empty()) {
    port.rdma_device = std::move(own);
    port.owns_rdma_device = true;
    const auto numbers = port_numbers(files, port.rdma_device);
    port.rdma_port = numbers.empty() ? 1 : numbers.front();
    if (numbers.size() > 1) {
      // A multi-port device (mlx4): the GID table says which port carries this netdev.
      if (const auto* found = ndev_index.find(port.netdev);
          found != nullptr && found->first == port.rdma_device) {
        port.rdma_port = found->second;
      }
    }
  } else if (const auto* found = ndev_index.find(port.netdev)) {
    port.rdma_device = found->first;
    port.rdma_port = found->second;
  }
  if (!port.rdma_device.empty()) port.rdma_driver = rdma_driver_of(files, port.rdma_device);
}

// The PCI address of VF `vf` under its PF: the PF's virtfn<N> link that points at it
// (drivers/pci/iov.c, pci_iov_sysfs_link: "virtfn<N>" in the PF, "physfn" in the VF).
std::optional<int> vf_number(const FileTree& files, const fs::path& device) {
  const std::string self = link_basename(files, device);
  // First by arithmetic, one link to confirm: VF n's routing ID is the PF's + sriov_offset +
  // n * sriov_stride (drivers/pci/iov.c pci_iov_virtfn_bus/devfn; both files since Linux 4.12),
  // so a walk over 128 VFs does not read 128 x 16 links.
  const auto routing_id = [](const std::string& bdf) -> std::optional<long> {
    unsigned domain = 0, bus = 0, dev = 0, fn = 0;
    if (std::sscanf(bdf.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) return std::nullopt;
    return static_cast<long>(bus << 8 | dev << 3 | fn);
  };
  const auto number_of = [&](const char* name) -> std::optional<long> {
    auto text = files.read(device / "physfn" / name);
    if (!text) return std::nullopt;
    char* end = nullptr;
    const long value = std::strtol(text->c_str(), &end, 10);
    return end != text->c_str() ? std::optional<long>(value) : std::nullopt;
  };
  const auto vf_rid = routing_id(self);
  const auto pf_rid = routing_id(link_basename(files, device / "physfn"));
  const auto offset = number_of("sriov_offset");
  const auto stride = number_of("sriov_stride");
  if (vf_rid && pf_rid && offset && stride && *stride > 0) {
    const long distance = *vf_rid - *pf_rid - *offset;
    if (distance >= 0 && distance % *stride == 0) {
      const long n = distance / *stride;
      if (link_basename(files, device / "physfn" / ("virtfn" + std::to_string(n))) == self) {
        return static_cast<int>(n);
      }
    }
  }
  auto entries = files.list(device / "physfn");
  if (!entries) return std::nullopt;
  for (const auto& entry : *entries) {
    if (entry.rfind("virtfn", 0) != 0 || entry.size() == 6) continue;
    if (link_basename(files, device / "physfn" / entry) == self) {
      return std::atoi(entry.c_str() + 6);
    }
  }
  return std::nullopt;
}

// The uplink among the netdevs of a PCI function (`net_dir`, its net/): the one whose
// phys_port_name is p<N> (en_rep.c gives the PF's netdev and its representors one parent device).
// Empty when none is.
std::string uplink_in(const FileTree& files, const fs::path& net_dir) {
  static const std::regex kUplink("p[0-9]+");
  auto names = files.list(net_dir);
  if (!names) return {};
  for (const auto& name : *names) {
    auto phys = files.read(kClassNet / name / "phys_port_name");
    if (phys && std::regex_match(trim(*phys), kUplink)) return name;
  }
  return {};
}

// What the netdev is, from sysfs as the kernel shows it:
//  - phys_port_name (net/devlink/port.c, __devlink_port_phys_port_name_get): "p0" for a physical
//    port (mlx5's uplink: en/devlink.c, mlx5e_devlink_port_register,
//    DEVLINK_PORT_FLAVOUR_PHYSICAL),
//    "[c<N>]pf<N>vf<N>", "[c<N>]pf<N>sf<N>" and "[c<N>]pf<N>" for e-switch representors;
//  - device/physfn for a VF's own netdev (drivers/pci/iov.c, pci_iov_sysfs_link);
//  - an mlx5 sub-function's netdev hangs off its auxiliary device, driver "mlx5_core.sf"
//    (sf/dev/driver.c, the auxiliary driver "sf" of mlx5_core).
void classify(const FileTree& files, DiscoveredPort& port) {
  const fs::path net = kClassNet / port.netdev;
  static const std::regex kRepresentor("(c[0-9]+)?pf[0-9]+((vf|sf)[0-9]+)?");
  if (auto name = files.read(net / "phys_port_name")) {
    const std::string phys = trim(*name);
    if (std::regex_match(phys, kRepresentor)) {
      port.role = PortRole::Representor;
      port.parent = uplink_in(files, net / "device" / "net");
      port.role_detail =
          "representor " + phys + (port.parent.empty() ? std::string() : " of " + port.parent);
      return;
    }
  }
  if (files.exists(net / "device" / "physfn")) {
    port.role = PortRole::Vf;
    std::string parent;
    if (auto names = files.list(net / "device" / "physfn" / "net"); names && !names->empty()) {
      parent = names->front();
    } else {
      parent = link_basename(files, net / "device" / "physfn");
    }
    const auto number = vf_number(files, net / "device");
    port.parent = parent;
    port.role_detail =
        (number ? "VF " + std::to_string(*number) : std::string("a VF")) + " of " + parent;
    return;
  }
  if (port.driver == "mlx5_core.sf") {
    // Its auxiliary device's parent is the PF's PCI function (sf/dev/dev.c mlx5_sf_dev_add), as
    // the bus's link to it shows (../../../devices/pci0000:00/0000:17:00.0/mlx5_core.sf.1).
    port.role = PortRole::SubFunction;
    if (auto target = files.read_link(fs::path("/sys/bus/auxiliary/devices") / port.pci)) {
      const std::string pf = target->parent_path().filename().string();
      port.parent = uplink_in(files, fs::path("/sys/bus/pci/devices") / pf / "net");
    }
    const auto sfnum = files.read(net / "device" / "sfnum");
    port.role_detail = "SF " + (sfnum ? trim(*sfnum) + " " : std::string()) +
                       (port.parent.empty() ? "(" + port.pci + ")" : "of " + port.parent);
  }
}

// The words of a one-line sysfs attribute ("lan2 lan3\n", "802.3ad 4\n").
std::vector<std::string> words_of(const FileTree& files, const fs::path& path) {
  std::vector<std::string> words;
  auto text = files.read(path);
  if (!text) return words;
  std::string word;
  for (const char c : *text) {
    if (c == ' ' || c == '\n' || c == '\t') {
      if (!word.empty()) words.push_back(std::exchange(word, {}));
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// RoCE LAG: mlx5 removes the RDMA devices of every PF of the bond and re-adds one, on the first
// PF's function (lag/lag.c mlx5_lag_remove_devices / mlx5_lag_add_devices; mlx5_ib names it
// mlx5_bond_<N>, but udev may rename it). So the bond is a LAG when its slaves are two or more
// mlx5 PFs and exactly one RDMA device hangs off their functions; a bond the NIC does not offload
// leaves each PF its own device. Returns that device, or empty.
std::string lag_device_of(const FileTree& files, const std::vector<std::string>& slaves) {
  if (slaves.size() < 2) return {};
  std::string device;
  for (const std::string& slave : slaves) {
    const fs::path function = kClassNet / slave / "device";
    if (link_basename(files, function / "driver") != "mlx5_core") return {};
    auto devices = files.list(function / "infiniband");
    if (!devices || devices->empty()) continue;
    if (devices->size() > 1 || !device.empty()) return {};
    device = devices->front();
  }
  return device;
}

// A bond's slaves and mode (drivers/net/bonding/bond_sysfs.c bonding_show_slaves and
// bonding_show_mode: "802.3ad 4"), and a slave's bond (its `master` link, net/core/dev.c).
void read_bonding(const FileTree& files, DiscoveredPort& port) {
  const fs::path net = kClassNet / port.netdev;
  if (files.exists(net / "bonding")) {
    port.role = PortRole::Bond;
    port.slaves = words_of(files, net / "bonding" / "slaves");
    const auto mode = words_of(files, net / "bonding" / "mode");
    port.bond_mode = mode.empty() ? std::string() : mode.front();
    port.lag_device = lag_device_of(files, port.slaves);
    std::string slaves;
    for (const auto& slave : port.slaves) slaves += (slaves.empty() ? "" : ", ") + slave;
    port.role_detail = (port.lag_device.empty() ? "bond" : "RoCE LAG bond") +
                       (port.bond_mode.empty() ? std::string() : " (" + port.bond_mode + ")") +
                       " of " + (slaves.empty() ? std::string("no slaves") : slaves);
    return;
  }
  const std::string master = link_basename(files, net / "master");
  if (master.empty() || !files.exists(kClassNet / master / "bonding")) return;
  port.bond = master;
  port.lag_device =
      lag_device_of(files, words_of(files, kClassNet / master / "bonding" / "slaves"));
}

// A software netdev over another in this namespace, without a device of its own: a VLAN, macvlan
// or ipvlan has a `lower_<port>` link (net/core/dev.c __netdev_adjacent_dev_insert). A VLAN's
// uevent names its type (net/8021q/vlan_dev.c vlan_dev_init: DEVTYPE=vlan); a macvlan's or
// ipvlan's names none. A bond was taken by read_bonding before; veth has no lower device.
void read_upper(const FileTree& files, DiscoveredPort& port) {
  const fs::path net = kClassNet / port.netdev;
  auto entries = files.list(net);
  if (!entries) return;
  std::string lower;
  for (const auto& entry : *entries) {
    if (entry.rfind("lower_", 0) == 0) {
      lower = entry.substr(6);
      break;
    }
  }
  if (lower.empty()) return;
  port.role = PortRole::Upper;
  port.parent = lower;
  bool vlan = false;
  if (auto uevent = files.read(net / "uevent")) {
    vlan = uevent->find("DEVTYPE=vlan\n") != std::string::npos;
  }
  port.role_detail = (vlan ? "VLAN of " : "upper device of ") + lower;
  if (auto mtu = files.read(net / "mtu"))
    port.upper_mtu = static_cast<uint32_t>(std::strtoul(mtu->c_str(), nullptr, 10));
}

bool names_driver(const std::vector<std::string>& drivers, const DiscoveredPort& port) {
  const auto named = [&](const std::string& driver) {
    return !driver.empty() && std::find(drivers.begin(), drivers.end(), driver) != drivers.end();
  };
  return named(port.driver_module()) || named(port.own_rdma_driver());
}

Result<DiscoveredPort> describe(const FileTree& files, NdevIndex& ndev_index,
                                const std::string& netdev) {
  if (netdev.empty() || netdev.find('/') != std::string::npos ||
      !files.exists(kClassNet / netdev)) {
    return Error{ENODEV, "no network interface named \"" + netdev + "\""};
  }
  DiscoveredPort port;
  port.netdev = netdev;
  if (files.exists(kClassNet / netdev / "device")) {
    port.pci = link_basename(files, kClassNet / netdev / "device");
    port.driver = link_basename(files, kClassNet / netdev / "device" / "driver");
  }
  classify(files, port);
  read_bonding(files, port);
  if (port.role == PortRole::Uplink && port.pci.empty()) read_upper(files, port);
  find_rdma_device(files, ndev_index, port);
  return port;
}

}  // namespace

NetdevDescriber::NetdevDescriber(const FileTree& files)
    : files_(files), index_(std::make_unique<NdevIndex>(files)) {}

NetdevDescriber::~NetdevDescriber() = default;

Result<DiscoveredPort> NetdevDescriber::describe(const std::string& netdev) {
  return roced::describe(files_, *index_, netdev);
}

Result<DiscoveredPort> describe_netdev(const FileTree& files, const std::string& netdev) {
  return NetdevDescriber(files).describe(netdev);
}

std::string DiscoveredPort::no_rdma_reason() const {
  if (is_lag_slave()) {
    return "a slave of " + bond + ": the RoCE LAG's RDMA device " + lag_device + " is the bond's";
  }
  return "no RDMA device for " + netdev;
}

std::string mlx5_only_reason(const DiscoveredPort& port) {
  if (!port.rdma_driver.empty()) {
    return "mlx5 only: " + port.netdev + "'s RDMA driver is " + port.rdma_driver;
  }
  if (!port.driver.empty()) return "mlx5 only: " + port.netdev + "'s driver is " + port.driver;
  return "mlx5 only: " + port.netdev + " has no mlx5 device";
}

std::string read_own_rdma_driver(const FileTree& files, const std::string& netdev) {
  if (netdev.empty() || netdev.find('/') != std::string::npos) return {};
  const fs::path bonding = kClassNet / netdev / "bonding";
  const std::string device = files.exists(bonding)
                                 ? lag_device_of(files, words_of(files, bonding / "slaves"))
                                 : own_rdma_device(files, netdev);
  return device.empty() ? std::string() : rdma_driver_of(files, device);
}

Result<Inventory> discover_ports(const FileTree& files, const std::vector<std::string>& requested,
                                 const std::vector<std::string>& drivers) {
  Inventory inventory;
  NdevIndex ndev_index(files);
  if (!requested.empty()) {
    for (const auto& name : requested) {
      if (auto port = describe(files, ndev_index, name)) {
        inventory.ports.push_back(std::move(*port));
      } else {
        inventory.missing.push_back(name);
      }
    }
    // The named ports' upper devices, from their upper_<name> links (a bond's slave has its bond
    // there too, which is no upper device of this kind).
    for (const auto& port : inventory.ports) {
      auto entries = files.list(kClassNet / port.netdev);
      if (!entries) continue;
      for (const auto& entry : *entries) {
        if (entry.rfind("upper_", 0) != 0) continue;
        auto upper = describe(files, ndev_index, entry.substr(6));
        if (upper && upper->role == PortRole::Upper && upper->parent == port.netdev) {
          inventory.uppers.push_back(std::move(*upper));
        }
      }
    }
    return inventory;
  }
  auto names = files.list(kClassNet);
  if (!names) return names.error();
  for (const auto& name : *names) {
    // /sys/class/net also holds plain files (bonding_masters): a netdev has an ifindex.
    if (!files.exists(kClassNet / name / "ifindex")) continue;
    auto port = describe(files, ndev_index, name);
    if (!port) continue;
    if (port->role == PortRole::Upper) {
      inventory.uppers.push_back(std::move(*port));
    } else if (names_driver(drivers, *port)) {
      inventory.ports.push_back(std::move(*port));
    } else if (!port->rdma_device.empty()) {
      inventory.other_rdma.push_back(std::move(*port));
    }
  }
  return inventory;
}

}  // namespace roced
