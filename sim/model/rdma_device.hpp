// SPDX-License-Identifier: Apache-2.0
#pragma once
// The RDMA device on a simulated port: the RoCE GID table (drivers/infiniband/core/roce_gid_mgmt.c,
// cache.c), rdma_cm's configfs defaults (cma_configfs.c), hw_counters (hw/mlx5/counters.c) and
// the IB PMA `counters/` (core/sysfs.c, hw/mlx5/mad.c).

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/port_spec.hpp"

namespace roce_sim {

enum class GidType { RoceV1, RoceV2 };
std::string gid_type_name(GidType type);  // "IB/RoCE v1", "RoCE v2" (the sysfs spelling)

struct GidEntry {
  std::array<uint8_t, 16> gid{};
  GidType type = GidType::RoceV2;
  std::string ndev;  // netdev the entry belongs to
};

struct HwCounter {
  uint64_t value = 0;
  bool wraps_32bit = false;  // 32-bit counters wrap at 2^32
};

// The port's traffic as mlx5's vport counters hold it (RoCE traffic: every simulated flow is).
struct PmaTraffic {
  uint64_t xmit_bytes = 0, rcv_bytes = 0, xmit_packets = 0, rcv_packets = 0;
};

// sysfs `ports/<n>/counters/`, (file name, value) in core/sysfs.c pma_attrs_ext order: mlx5
// declares the extended width (mad.c process_pma_cmd), so data and packets are 64-bit, from the
// vport counters, data in 4-octet words. The error counters come from the PPCNT InfiniBand group,
// which the simulation never moves on a RoCE port: 0.
std::vector<std::pair<std::string, uint64_t>> pma_counters(const PmaTraffic& traffic);

class RdmaDevice {
 public:
  // mlx5 reports the firmware's roce_address_table_size as gid_tbl_len; not visible in the kernel
  // source. 255 matches the sysfs layout the lead fixed (gids/0..254).
  static constexpr int kGidTableSize = 255;

  RdmaDevice(std::string name, uint8_t port, std::string netdev);
  const std::string& name() const { return name_; }
  uint8_t port() const { return port_; }

  // GID table: slot 0/1 from the MAC (link-local, v1 and v2), then a v1 and a v2 entry per IP
  // address in the first free slots; a removed address leaves its slots empty for the next one.
  void set_addresses(const std::string& mac, const std::vector<std::string>& ipv4,
                     const std::vector<std::string>& ipv6);
  void add_address(const std::string& cidr);  // "192.168.2.10/24" or "fd00::2/64"
  void remove_address(const std::string& cidr);
  // The netdev's addresses as configured ("192.168.2.10/24"), in the order they were added: what
  // RTM_GETADDR dumps.
  const std::vector<std::string>& addresses() const { return addresses_; }

  // Upper devices of the netdev in the host's namespace (a VLAN, a macvlan): their addresses are
  // the port's GIDs too (roce_gid_mgmt.c is_eth_port_of_netdev_filter takes an upper device of
  // the port), each entry naming the upper; its IPv4 addresses first, then its link-local
  // address (from its own MAC; a VLAN has its port's) and its other IPv6 ones
  // (enum_netdev_ipv4_ips, enum_netdev_ipv6_ips; addrconf keeps link-local before global).
  // Enumerated after the port's own addresses and before the pods' (init_net comes first).
  void set_uppers(std::vector<UpperAddresses> uppers) { uppers_ = std::move(uppers); }

  // A pod on this port: a macvlan over the netdev in a network namespace of its own, named
  // pod_netdev() there. roce_gid_mgmt.c enum_all_gids_of_dev_cb walks the netdevs of every
  // namespace (for_each_net), and is_eth_port_of_netdev_filter takes an upper device of the port,
  // so the pod's IPv4 address and its link-local IPv6 address each add a v1 and a v2 entry whose
  // ndev is the pod's netdev. The host sees these entries in sysfs, but not the netdev itself:
  // adjacency links (upper_*) exist only within one namespace (net/core/dev.c
  // __netdev_adjacent_dev_insert). Returns false when a pod already has that address.
  static constexpr const char* kDefaultPodNetdev = "net1";  // Multus' name for a first extra one
  // The pods' netdev name, which a namespace of their own lets equal a host netdev's (the port's
  // own): sysfs prints an entry's ndev->name alone (core/sysfs.c print_ndev), never its namespace.
  const std::string& pod_netdev() const { return pod_netdev_; }
  void set_pod_netdev(std::string name) { pod_netdev_ = std::move(name); }
  bool start_pod(const std::string& ipv4);
  bool stop_pod(const std::string& ipv4);  // its entries are deleted (del_netdev_ips)
  const std::vector<std::string>& pods() const { return pods_; }
  const std::vector<std::optional<GidEntry>>& gid_table() const { return gids_; }
  static std::string format_gid(
      const std::array<uint8_t, 16>& gid);  // "fe80:0000:...:0002" (sysfs)

  // rdma_cm configfs (/sys/kernel/config/rdma_cm/<dev>/ports/<n>/...).
  const std::string& default_roce_mode() const { return roce_mode_; }
  int set_default_roce_mode(const std::string& mode);  // "IB/RoCE v1" | "RoCE v2", else -EINVAL
  uint8_t default_roce_tos() const { return roce_tos_; }
  int set_default_roce_tos(int tos);  // kstrtou8: < 0 is -EINVAL, > 255 is -ERANGE
  // The configfs write path: parses text as the kernel does (trailing newline allowed).
  int write_default_roce_mode(const std::string& text) { return set_default_roce_mode(text); }
  int write_default_roce_tos(const std::string& text);

  // hw_counters: which exist depends on the device; 32-bit ones wrap.
  std::map<std::string, HwCounter>& hw_counters() { return hw_counters_; }
  const std::map<std::string, HwCounter>& hw_counters() const { return hw_counters_; }
  // counter_clear: the hw_counters file `name` restarts from 0; false when there is none.
  bool clear_hw_counter(const std::string& name);
  void add_to_counter(const std::string& name, uint64_t delta);  // honours the wrap

  void reset_to_defaults();  // driver reload: rdma_cm back to defaults, counters to zero

  // First index holding (type, ip) for this device's netdev, or -1. ip as text ("192.168.2.10").
  int find_gid_index(GidType type, const std::string& ip) const;

 private:
  std::string name_;
  uint8_t port_;
  std::string netdev_;
  // v1 then v2, first free slots; `ndev` empty: this device's netdev.
  void add_gid_pair(const std::array<uint8_t, 16>& gid, const std::string& ndev = {});
  std::string mac_;
  std::vector<std::string> addresses_;  // in the order they were added
  std::vector<UpperAddresses> uppers_;
  std::vector<std::string> pods_;  // their IPv4 addresses, in the order they started
  std::string pod_netdev_ = kDefaultPodNetdev;
  void add_pod_gids(const std::string& ipv4);
  std::vector<std::optional<GidEntry>> gids_;
  std::string roce_mode_;
  uint8_t roce_tos_ = 0;
  std::map<std::string, HwCounter> hw_counters_;
};

}  // namespace roce_sim
