// SPDX-License-Identifier: Apache-2.0
#include "rdma/verbs.hpp"

#include <infiniband/verbs.h>
#include <net/if.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>

namespace roced::rdma {

namespace {

std::string sysfs_gid_text(const ibv_gid& gid) {
  char text[40];
  std::snprintf(text, sizeof(text),
                "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
                gid.raw[0], gid.raw[1], gid.raw[2], gid.raw[3], gid.raw[4], gid.raw[5], gid.raw[6],
                gid.raw[7], gid.raw[8], gid.raw[9], gid.raw[10], gid.raw[11], gid.raw[12],
                gid.raw[13], gid.raw[14], gid.raw[15]);
  return text;
}

std::string gid_type_text(uint32_t type) {
  switch (type) {
    case IBV_GID_TYPE_ROCE_V2:
      return "RoCE v2";
    case IBV_GID_TYPE_ROCE_V1:
    case IBV_GID_TYPE_IB:
      return "IB/RoCE v1";
    default:
      return "unknown";
  }
}

}  // namespace

Result<std::vector<GidEntry>> verbs_gid_table(const std::string& device, int port) {
  int count = 0;
  std::unique_ptr<ibv_device*, void (*)(ibv_device**)> list(ibv_get_device_list(&count),
                                                            &ibv_free_device_list);
  if (!list) return Error::from_errno(errno, "ibv_get_device_list");
  ibv_device* found = nullptr;
  for (int i = 0; i < count; ++i) {
    if (device == ibv_get_device_name(list.get()[i])) found = list.get()[i];
  }
  if (found == nullptr) return Error{ENODEV, "libibverbs: no device " + device};
  std::unique_ptr<ibv_context, int (*)(ibv_context*)> context(ibv_open_device(found),
                                                              &ibv_close_device);
  if (!context) return Error::from_errno(errno, "ibv_open_device " + device);
  ibv_port_attr port_attr{};
  if (const int err = ibv_query_port(context.get(), static_cast<uint8_t>(port), &port_attr)) {
    return Error::from_errno(err, "ibv_query_port " + device);
  }
  std::vector<ibv_gid_entry> raw(static_cast<size_t>(std::max(port_attr.gid_tbl_len, 1)));
  const ssize_t filled = ibv_query_gid_table(context.get(), raw.data(), raw.size(), 0);
  if (filled < 0)
    return Error::from_errno(static_cast<int>(-filled), "ibv_query_gid_table " + device);
  std::vector<GidEntry> table;
  for (ssize_t i = 0; i < filled; ++i) {
    const ibv_gid_entry& entry = raw[static_cast<size_t>(i)];
    if (static_cast<int>(entry.port_num) != port) continue;
    GidEntry out;
    out.index = static_cast<int>(entry.gid_index);
    out.gid = sysfs_gid_text(entry.gid);
    out.type = gid_type_text(entry.gid_type);
    char name[IF_NAMESIZE] = {};
    if (entry.ndev_ifindex != 0 && if_indextoname(entry.ndev_ifindex, name) != nullptr) {
      out.ndev = name;
    }
    table.push_back(std::move(out));
  }
  std::sort(table.begin(), table.end(),
            [](const GidEntry& a, const GidEntry& b) { return a.index < b.index; });
  return table;
}

}  // namespace roced::rdma
