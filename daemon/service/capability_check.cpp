// SPDX-License-Identifier: Apache-2.0
#include "daemon/service/capability_check.hpp"

#include <linux/capability.h>

#include "os/capabilities.hpp"

namespace roced::service {

namespace {

bool has(uint64_t effective, int capability) { return (effective >> capability) & 1; }

std::string held(uint64_t effective) {
  std::string names;
  for (const int capability : {CAP_NET_ADMIN, CAP_NET_RAW, CAP_IPC_LOCK, CAP_SYS_ADMIN}) {
    if (!has(effective, capability)) continue;
    names += (names.empty() ? "" : ", ") + capability_name(capability);
  }
  return names.empty() ? "none of those it uses" : names;
}

}  // namespace

CapabilityCheck check_capabilities(uint64_t effective) {
  CapabilityCheck check;
  if (!has(effective, CAP_NET_ADMIN)) {
    // rtnetlink_rcv_msg refuses every non-get rtnetlink message and __dev_ethtool every set
    // command without it: not one port could be configured.
    check.fatal =
        "roced needs CAP_NET_ADMIN: the kernel refuses its DCB, MTU and ethtool sets "
        "without it (it holds " +
        held(effective) +
        "); add it to the unit's or the "
        "container's capabilities";
  }
  if (!has(effective, CAP_NET_RAW)) {
    check.warning =
        "without CAP_NET_RAW roced cannot open the AF_PACKET sockets that listen for "
        "the switch's LLDP: every port's peer reads not_listening";
  }
  return check;
}

}  // namespace roced::service
