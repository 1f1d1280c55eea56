// SPDX-License-Identifier: Apache-2.0
#include "sim/model/rdma_device.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace roce_sim {
namespace {

using Gid = std::array<uint8_t, 16>;

// Counters of drivers/infiniband/hw/mlx5/counters.c as a ConnectX-7 RoCE port exposes them. The Q
// counters (query_q_counter, 32-bit fields) wrap; the congestion and extended PPCNT ones are
// 64-bit.
struct CounterDef {
  const char* name;
  bool wraps_32bit;
};
constexpr CounterDef kHwCounters[] = {
    {"duplicate_request", true},
    {"implied_nak_seq_err", true},
    {"local_ack_timeout_err", true},
    {"np_cnp_sent", false},
    {"np_ecn_marked_roce_packets", false},
    {"out_of_buffer", true},
    {"out_of_sequence", true},
    {"packet_seq_err", true},
    {"req_cqe_error", true},
    {"req_cqe_flush_error", true},
    {"req_remote_access_errors", true},
    {"req_remote_invalid_request", true},
    {"resp_cqe_error", true},
    {"resp_cqe_flush_error", true},
    {"resp_local_length_error", true},
    {"resp_remote_access_errors", true},
    {"rnr_nak_retry_err", true},
    {"roce_adp_retrans", true},
    {"roce_adp_retrans_to", true},
    {"roce_slow_restart", true},
    {"roce_slow_restart_cnps", true},
    {"roce_slow_restart_trans", true},
    {"rp_cnp_handled", false},
    {"rp_cnp_ignored", false},
    {"rx_atomic_requests", true},
    {"rx_icrc_encapsulated", false},
    {"rx_read_requests", true},
    {"rx_write_requests", true},
};

// "fd00::2/64" -> "fd00::2"
std::string strip_prefix_len(const std::string& cidr) {
  const auto slash = cidr.find('/');
  return slash == std::string::npos ? cidr : cidr.substr(0, slash);
}

// IPv4 as an IPv4-mapped IPv6 GID (::ffff:a.b.c.d), IPv6 as is (roce_gid_mgmt.c update_gid_ip).
std::optional<Gid> ip_to_gid(const std::string& ip) {
  Gid gid{};
  in_addr v4{};
  if (inet_pton(AF_INET, ip.c_str(), &v4) == 1) {
    gid[10] = 0xff;
    gid[11] = 0xff;
    const auto* bytes = reinterpret_cast<const uint8_t*>(&v4.s_addr);
    for (int i = 0; i < 4; ++i) gid[static_cast<size_t>(12 + i)] = bytes[i];
    return gid;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, ip.c_str(), &v6) == 1) {
    for (size_t i = 0; i < 16; ++i) gid[i] = v6.s6_addr[i];
    return gid;
  }
  return std::nullopt;
}

Gid address_gid(const std::string& cidr) {
  const auto gid = ip_to_gid(strip_prefix_len(cidr));
  if (!gid) throw std::invalid_argument("bad IP address: " + cidr);
  return *gid;
}

// fe80::<modified EUI-64 of the MAC> (addrconf_ifid_eui48), the default GID of a RoCE port.
Gid mac_link_local_gid(const std::string& mac) {
  unsigned int b[6] = {};
  if (std::sscanf(mac.c_str(), "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
    throw std::invalid_argument("bad MAC address: " + mac);
  Gid gid{};
  gid[0] = 0xfe;
  gid[1] = 0x80;
  gid[8] = static_cast<uint8_t>(b[0] ^ 0x02);
  gid[9] = static_cast<uint8_t>(b[1]);
  gid[10] = static_cast<uint8_t>(b[2]);
  gid[11] = 0xff;
  gid[12] = 0xfe;
  gid[13] = static_cast<uint8_t>(b[3]);
  gid[14] = static_cast<uint8_t>(b[4]);
  gid[15] = static_cast<uint8_t>(b[5]);
  return gid;
}

// A pod's macvlan MAC is 0a:58 and its IPv4 address, as Kubernetes' OVN and bridge CNIs derive
// it; its link-local address follows from the MAC as any netdev's does (addrconf EUI-64).
Gid pod_link_local_gid(const Gid& ipv4_gid) {
  char mac[18];
  std::snprintf(mac, sizeof mac, "0a:58:%02x:%02x:%02x:%02x", ipv4_gid[12], ipv4_gid[13],
                ipv4_gid[14], ipv4_gid[15]);
  return mac_link_local_gid(mac);
}

}  // namespace

std::vector<std::pair<std::string, uint64_t>> pma_counters(const PmaTraffic& traffic) {
  // mad.c pma_cnt_ext_assign: octets >> 2; unicast = all of it (no multicast RoCE here).
  return {
      {"symbol_error", 0},
      {"link_error_recovery", 0},
      {"link_downed", 0},
      {"port_rcv_errors", 0},
      {"port_rcv_remote_physical_errors", 0},
      {"port_rcv_switch_relay_errors", 0},
      {"port_xmit_discards", 0},
      {"port_xmit_constraint_errors", 0},
      {"port_rcv_constraint_errors", 0},
      {"local_link_integrity_errors", 0},
      {"excessive_buffer_overrun_errors", 0},
      {"VL15_dropped", 0},
      {"port_xmit_data", traffic.xmit_bytes >> 2},
      {"port_rcv_data", traffic.rcv_bytes >> 2},
      {"port_xmit_packets", traffic.xmit_packets},
      {"port_xmit_wait", 0},
      {"port_rcv_packets", traffic.rcv_packets},
      {"unicast_rcv_packets", traffic.rcv_packets},
      {"unicast_xmit_packets", traffic.xmit_packets},
      {"multicast_rcv_packets", 0},
      {"multicast_xmit_packets", 0},
  };
}

std::string gid_type_name(GidType type) {
  // cache.c gid_type_str: IB and RoCE v1 share one spelling.
  return type == GidType::RoceV1 ? "IB/RoCE v1" : "RoCE v2";
}

RdmaDevice::RdmaDevice(std::string name, uint8_t port, std::string netdev)
    : name_(std::move(name)), port_(port), netdev_(std::move(netdev)) {
  gids_.resize(kGidTableSize);
  for (const auto& def : kHwCounters) hw_counters_[def.name] = HwCounter{0, def.wraps_32bit};
  reset_to_defaults();
}

std::string RdmaDevice::format_gid(const std::array<uint8_t, 16>& gid) {
  // sysfs show_port_gid prints %pI6: eight groups of four hex digits.
  char text[40];
  std::snprintf(text, sizeof text,
                "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", gid[0],
                gid[1], gid[2], gid[3], gid[4], gid[5], gid[6], gid[7], gid[8], gid[9], gid[10],
                gid[11], gid[12], gid[13], gid[14], gid[15]);
  return text;
}

void RdmaDevice::add_gid_pair(const std::array<uint8_t, 16>& gid, const std::string& ndev_name) {
  const std::string& ndev = ndev_name.empty() ? netdev_ : ndev_name;
  // roce_gid_mgmt.c update_gid walks the supported types in enum order (RoCE v1 before v2);
  // cache.c __ib_cache_gid_add skips an identical (gid, type, netdev) entry and otherwise takes
  // the first free slot that is not a reserved default index (0 and 1 here).
  for (GidType type : {GidType::RoceV1, GidType::RoceV2}) {
    bool duplicate = false;
    for (const auto& entry : gids_)
      if (entry && entry->gid == gid && entry->type == type && entry->ndev == ndev)
        duplicate = true;
    if (duplicate) continue;
    for (size_t index = 2; index < gids_.size(); ++index) {
      if (!gids_[index]) {
        gids_[index] = GidEntry{gid, type, ndev};
        break;
      }
    }
    // A full table drops the entry (-ENOSPC in the kernel log only).
  }
}

void RdmaDevice::set_addresses(const std::string& mac, const std::vector<std::string>& ipv4,
                               const std::vector<std::string>& ipv6) {
  mac_ = mac;
  addresses_.clear();
  for (auto& slot : gids_) slot.reset();
  // ib_cache_gid_set_default_gid: the default GID, one reserved slot per supported type.
  const Gid link_local = mac_link_local_gid(mac);
  gids_[0] = GidEntry{link_local, GidType::RoceV1, netdev_};
  gids_[1] = GidEntry{link_local, GidType::RoceV2, netdev_};
  // enum_netdev_ip_ips: IPv4 addresses first, then IPv6.
  for (const auto& cidr : ipv4) add_address(cidr);
  for (const auto& cidr : ipv6) add_address(cidr);
  for (const UpperAddresses& upper : uppers_) {
    for (const auto& cidr : upper.ipv4) add_gid_pair(address_gid(cidr), upper.netdev);
    add_gid_pair(mac_link_local_gid(upper.mac), upper.netdev);
    for (const auto& cidr : upper.ipv6) add_gid_pair(address_gid(cidr), upper.netdev);
  }
  // The pods' netdevs outlive a driver reload in their namespaces: enumerated again after the
  // host's (init_net comes first in for_each_net).
  for (const auto& ip : pods_) add_pod_gids(ip);
}

void RdmaDevice::add_pod_gids(const std::string& ipv4) {
  const auto gid = ip_to_gid(ipv4);
  if (!gid) throw std::invalid_argument("bad pod IPv4 address: " + ipv4);
  // enum_netdev_ipv4_ips before enum_netdev_ipv6_ips (roce_gid_mgmt.c _add_netdev_ips).
  add_gid_pair(*gid, pod_netdev_);
  add_gid_pair(pod_link_local_gid(*gid), pod_netdev_);
}

bool RdmaDevice::start_pod(const std::string& ipv4) {
  if (std::find(pods_.begin(), pods_.end(), ipv4) != pods_.end()) return false;
  pods_.push_back(ipv4);
  add_pod_gids(ipv4);
  return true;
}

bool RdmaDevice::stop_pod(const std::string& ipv4) {
  const auto it = std::find(pods_.begin(), pods_.end(), ipv4);
  if (it == pods_.end()) return false;
  pods_.erase(it);
  const auto gid = ip_to_gid(ipv4);
  const Gid link_local = pod_link_local_gid(*gid);
  for (size_t index = 2; index < gids_.size(); ++index) {
    if (gids_[index] && gids_[index]->ndev == pod_netdev_ &&
        (gids_[index]->gid == *gid || gids_[index]->gid == link_local)) {
      gids_[index].reset();
    }
  }
  return true;
}

void RdmaDevice::add_address(const std::string& cidr) {
  const std::string ip = strip_prefix_len(cidr);
  const auto gid = ip_to_gid(ip);
  if (!gid) throw std::invalid_argument("bad IP address: " + cidr);
  for (const auto& known : addresses_)
    if (strip_prefix_len(known) == ip) return;
  addresses_.push_back(cidr);
  add_gid_pair(*gid);
}

void RdmaDevice::remove_address(const std::string& cidr) {
  const std::string ip = strip_prefix_len(cidr);
  const auto gid = ip_to_gid(ip);
  if (!gid) throw std::invalid_argument("bad IP address: " + cidr);
  std::erase_if(addresses_,
                [&](const std::string& known) { return strip_prefix_len(known) == ip; });
  // Default entries (0, 1) stay: they belong to the MAC, not to an address.
  for (size_t index = 2; index < gids_.size(); ++index)
    if (gids_[index] && gids_[index]->gid == *gid && gids_[index]->ndev == netdev_)
      gids_[index].reset();
}

int RdmaDevice::find_gid_index(GidType type, const std::string& ip) const {
  const auto gid = ip_to_gid(strip_prefix_len(ip));
  if (!gid) return -1;
  for (size_t index = 0; index < gids_.size(); ++index)
    if (gids_[index] && gids_[index]->gid == *gid && gids_[index]->type == type)
      return static_cast<int>(index);
  return -1;
}

int RdmaDevice::set_default_roce_mode(const std::string& mode) {
  // cma_configfs.c default_roce_mode_store -> ib_cache_gid_parse_type_str (one trailing newline
  // allowed, exact match otherwise) -> cma_set_default_gid_type (both types are supported on RoCE).
  std::string text = mode;
  if (text.empty()) return -EINVAL;
  if (text.back() == '\n') text.pop_back();
  if (text != "IB/RoCE v1" && text != "RoCE v2") return -EINVAL;
  roce_mode_ = text;
  return 0;
}

int RdmaDevice::set_default_roce_tos(int tos) {
  if (tos < 0) return -EINVAL;
  if (tos > 255) return -ERANGE;
  roce_tos_ = static_cast<uint8_t>(tos);
  return 0;
}

int RdmaDevice::write_default_roce_tos(const std::string& text) {
  // kstrtou8(buf, 0, &tos): optional trailing newline, base auto-detected, no sign.
  std::string body = text;
  if (!body.empty() && body.back() == '\n') body.pop_back();
  if (body.empty() || body[0] == '-') return -EINVAL;
  if (body[0] == '+') body.erase(0, 1);
  char* end = nullptr;
  errno = 0;
  const unsigned long value = std::strtoul(body.c_str(), &end, 0);
  if (end == body.c_str() || *end != '\0') return -EINVAL;
  if (errno == ERANGE || value > 255) return -ERANGE;
  return set_default_roce_tos(static_cast<int>(value));
}

void RdmaDevice::add_to_counter(const std::string& name, uint64_t delta) {
  const auto it = hw_counters_.find(name);
  if (it == hw_counters_.end()) return;  // a counter this device does not have stays absent
  HwCounter& counter = it->second;
  counter.value += delta;
  if (counter.wraps_32bit) counter.value &= 0xffffffffULL;
}

void RdmaDevice::reset_to_defaults() {
  // cma.c cma_add_one: default_gid_type = CMA_PREFERRED_ROCE_GID_TYPE (RoCE v2), tos 0.
  roce_mode_ = "RoCE v2";
  roce_tos_ = 0;
  for (auto& [name, counter] : hw_counters_) counter.value = 0;
}

bool RdmaDevice::clear_hw_counter(const std::string& name) {
  const auto it = hw_counters_.find(name);
  if (it == hw_counters_.end()) return false;
  it->second.value = 0;
  return true;
}

}  // namespace roce_sim
