// SPDX-License-Identifier: Apache-2.0
#pragma once
// libibverbs as a second GID source on a real machine (rdma-core >= 32: ibv_query_gid_table).
// roce-sim has no verbs device, so nothing else depends on this; the sysfs reader is the default.

#include <string>
#include <vector>

#include "os/result.hpp"
#include "rdma/gid.hpp"

namespace roced::rdma {

// The filled GID entries of `device` port `port`, in the same shape as read_gid_table();
// ENODEV when libibverbs does not know the device.
Result<std::vector<GidEntry>> verbs_gid_table(const std::string& device, int port);

}  // namespace roced::rdma
