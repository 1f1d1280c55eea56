// SPDX-License-Identifier: Apache-2.0
#pragma once
// The RoCE GID table as the kernel shows it in sysfs (drivers/infiniband/core/sysfs.c:
// show_port_gid, show_port_gid_attr_gid_type, show_port_gid_attr_ndev).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "os/system.hpp"

namespace roced::rdma {

struct GidEntry {
  int index = 0;
  std::string gid;   // as sysfs prints it: eight groups of four hex digits
  std::string type;  // "IB/RoCE v1", "RoCE v2"
  std::string ndev;  // netdev the entry belongs to; empty when the kernel did not say
  // Named like a netdev of this namespace but holding a GID that netdev cannot have: a
  // namesake's in another namespace (gid_owners.hpp marks it).
  bool elsewhere = false;
};

// The filled slots of /sys/class/infiniband/<dev>/ports/<port>/gids. An all-zero GID, or a slot
// whose gid_attrs/types read fails with EINVAL (real kernel) or ENOENT (roce-sim's plain files),
// is empty and left out.
Result<std::vector<GidEntry>> read_gid_table(const FileTree& files, const std::string& device,
                                             int port);
// The same, read from index 0 up and stopped after the first entry `stop_after` accepts: the
// lowest RoCE v2 entry of an address family usually sits at index 3 of 255 slots.
Result<std::vector<GidEntry>> read_gid_table_until(
    const FileTree& files, const std::string& device, int port,
    const std::function<bool(const GidEntry&)>& stop_after);

// How many entries the table has room for: sysfs makes a gids/<n> file for each of the port's
// gid_tbl_len slots, filled or not (core/sysfs.c alloc_port_table_group).
Result<size_t> gid_table_slots(const FileTree& files, const std::string& device, int port);

// Entries of netdevs this network namespace does not have, or marked `elsewhere`. roce_gid_mgmt.c gives a port the
// addresses of its upper devices in every namespace (enum_all_gids_of_dev_cb walks for_each_net):
// a pod's macvlan over the port, as the RDMA shared device plugin has it, adds entries named by
// the pod's netdev ("net1"), which the host cannot see and whose index is the pod's own.
struct ForeignEntries {
  size_t count = 0;
  std::vector<std::string> netdevs;  // their names, sorted, each once
};
ForeignEntries foreign_entries(const FileTree& files, const std::vector<GidEntry>& table);

bool is_zero_gid(const std::string& gid);
// "0000:0000:0000:0000:0000:ffff:c0a8:020a" -> "192.168.2.10"; nullopt when not IPv4-mapped.
std::optional<std::string> ipv4_of_mapped_gid(const std::string& gid);
// Shortest text form (RFC 5952), e.g. "::ffff:192.168.2.10", "fe80::1".
std::string compact_gid(const std::string& gid);

// The RoCE v2 entry with an IPv4-mapped GID on `netdev` (lowest index when there are several;
// never one marked `elsewhere`):
// chosen by what the entry is, never by where it is, since extra IPv6 addresses, VLANs and
// address churn move it (cache.c: a new GID takes the first free slot that find_gid reports).
std::optional<GidEntry> roce_v2_ipv4_entry(const std::vector<GidEntry>& table,
                                           const std::string& netdev);

// The IPv6 counterpart: a RoCE v2 entry on `netdev` with a routable IPv6 GID (neither IPv4-mapped
// nor link-local fe80::/10, which every port has and no job routes over), lowest index.
std::optional<GidEntry> roce_v2_ipv6_entry(const std::vector<GidEntry>& table,
                                           const std::string& netdev);

}  // namespace roced::rdma
