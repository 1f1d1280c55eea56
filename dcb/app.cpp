// SPDX-License-Identifier: Apache-2.0
// APP table: DCB_ATTR_IEEE_APP_TABLE nest of DCB_ATTR_IEEE_APP entries, each a struct dcb_app
// {u8 selector; u8 priority; u16 protocol}. Adding is IEEE_SET, removing is IEEE_DEL; mlx5 turns
// DSCP trust on with the first DSCP entry (en_dcbnl.c: mlx5e_dcbnl_ieee_setapp).
#include <linux/dcbnl.h>

#include <cstring>

#include "dcb/codec.hpp"

namespace roced::dcb {

void put_app_table(nl_msg* msg, const std::vector<AppEntry>& apps) {
  nlattr* table = nla_nest_start(msg, DCB_ATTR_IEEE_APP_TABLE);
  for (const AppEntry& entry : apps) {
    dcb_app wire{};
    wire.selector = entry.selector;
    wire.priority = entry.priority;
    wire.protocol = entry.protocol;
    nla_put(msg, DCB_ATTR_IEEE_APP, sizeof(wire), &wire);
  }
  nla_nest_end(msg, table);
}

Result<std::vector<AppEntry>> parse_app_table(nlattr* attr) {
  std::vector<AppEntry> apps;
  nlattr* entry = nullptr;
  int remaining = 0;
  nla_for_each_nested(entry, attr, remaining) {
    // Newer kernels also put DCB_ATTR_DCB_APP (pcp/rewrite) entries here; roced reads IEEE ones.
    if (nla_type(entry) != DCB_ATTR_IEEE_APP) continue;
    if (nla_len(entry) < static_cast<int>(sizeof(dcb_app))) {
      return Error{EBADMSG, "DCB_ATTR_IEEE_APP shorter than struct dcb_app"};
    }
    dcb_app wire{};
    std::memcpy(&wire, nla_data(entry), sizeof(wire));
    apps.push_back({wire.selector, wire.priority, wire.protocol});
  }
  return apps;
}

}  // namespace roced::dcb
