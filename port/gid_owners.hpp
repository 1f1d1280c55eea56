// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whose a GID table entry is. sysfs names an entry's netdev by its name alone
// (drivers/infiniband/core/sysfs.c print_ndev), and roce_gid_mgmt.c gives a port the addresses of
// its upper devices in every namespace (enum_all_gids_of_dev_cb walks for_each_net): a pod's
// macvlan named like a host netdev ("eth1") adds entries that read as the host's. The GID tells
// them apart: a netdev of this namespace holds its MAC's link-local GID (the default GID,
// roce_gid_mgmt.c make_default_gid) and one per address of its own.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "link/addresses.hpp"
#include "os/system.hpp"
#include "rdma/gid.hpp"

namespace roced {

class GidOwners {
 public:
  // The GIDs the netdev `name` of this namespace can hold; nullopt when that is not known (no
  // such netdev here, its addresses unreadable): the entry's name is then taken at its word.
  using Lookup = std::function<std::optional<std::set<Address16>>(const std::string& name)>;
  explicit GidOwners(Lookup lookup) : lookup_(std::move(lookup)) {}

  // Over the system: the netdev's MAC from sysfs, the addresses from one RTM_GETADDR dump made
  // when first needed. Without an rtnetlink transport every name is taken at its word.
  static GidOwners of(System& system);

  // True when the entry names a netdev of this namespace that cannot hold its GID: the entry is
  // a namesake's in another namespace.
  bool elsewhere(const rdma::GidEntry& entry);
  // Sets each entry's `elsewhere`.
  void mark(std::vector<rdma::GidEntry>& table);

 private:
  Lookup lookup_;
  std::map<std::string, std::optional<std::set<Address16>>> known_;
};

// The link-local GID of a MAC ("b8:3f:d2:17:00:00"): fe80::/64 with its modified EUI-64
// (net/ipv6/addrconf.c addrconf_ifid_eui48); nullopt when the text is no 6-byte MAC.
std::optional<Address16> mac_link_local_gid(const std::string& mac);

}  // namespace roced
