// SPDX-License-Identifier: Apache-2.0
#pragma once
// Generic netlink (NETLINK_GENERIC) as the kernel answers it over the simulated sockets: the
// controller's family lookup (net/netlink/genetlink.c ctrl_getfamily) and, of the ethtool family
// (net/ethtool/netlink.c), ETHTOOL_MSG_STATS_GET (net/ethtool/stats.c): the IEEE 802.3 MAC
// control frame counts a watchdog can ask for at one firmware command a port; and
// ETHTOOL_MSG_MODULE_EEPROM_GET (net/ethtool/eeprom.c): a half page of the module's memory; and
// of the devlink family (net/core/devlink.c), DEVLINK_CMD_HEALTH_REPORTER_GET for one reporter
// (devlink_genl.cpp). Other families and messages are not modelled.

#include <string>
#include <vector>

#include "sim/model/node.hpp"
#include "sim/server/nl_wire.hpp"
#include "sim/server/rtnl_service.hpp"

namespace roce_sim::server {

class GenlService {
 public:
  // The id genl_register_family gives the ethtool family: allocated at registration
  // (idr_alloc_cyclic from GENL_START_ALLOC), so a client must look it up by name.
  static constexpr uint16_t kEthtoolFamily = 20;
  static constexpr uint16_t kDevlinkFamily = 21;
  // The id genl_register_family gives devlink's "config" multicast group: allocated as well
  // (genl_validate_assign_mc_groups), so a client looks it up with the family.
  static constexpr uint32_t kDevlinkConfigGroup = 7;

  explicit GenlService(Node& node) : node_(node) {}

  // One datagram from a connection; the replies in the kernel's order (all unicast).
  std::vector<Outgoing> handle(ByteView datagram, NlPeer& peer);
  std::vector<std::string> take_request_log();
  // The node's reporter changes as devlink's notifications (devlink_recover_notify), multicast to
  // the "config" group.
  std::vector<Outgoing> drain_events();

 private:
  int dispatch(const NlRequest& request, const NlPeer& peer, Bytes& reply);
  int get_family(const NlRequest& request, const NlPeer& peer, Bytes& reply);
  int get_stats(const NlRequest& request, const NlPeer& peer, Bytes& reply);
  int get_module_eeprom(const NlRequest& request, const NlPeer& peer, Bytes& reply);
  int get_fec(const NlRequest& request, const NlPeer& peer, Bytes& reply);
  int get_health_reporter(const NlRequest& request, const NlPeer& peer, Bytes& reply);
  // ethnl_parse_header_dev_get: the port the request's header nest names.
  int find_port(ByteView header, Port*& port) const;

  Node& node_;
  std::vector<std::string> request_log_;
};

}  // namespace roce_sim::server
