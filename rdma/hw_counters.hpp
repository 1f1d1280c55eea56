// SPDX-License-Identifier: Apache-2.0
#pragma once
// /sys/class/infiniband/<dev>/ports/<n>/hw_counters (drivers/infiniband/hw/mlx5/counters.c).
// Which counters exist depends on the device's capabilities: a missing one is absent, not an error.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "os/system.hpp"

namespace roced::rdma {

// name -> value for every counter that could be read. A missing hw_counters directory gives an
// empty map; a counter whose read fails with ENOENT, EACCES, EOPNOTSUPP or EINVAL is left out
// (as node_exporter's procfs does); other errors are returned.
Result<std::map<std::string, uint64_t>> read_hw_counters(const FileTree& files,
                                                         const std::string& device, int port);

// The same, reading only `names` (a listing taken earlier): a scrape then costs no getdents per
// port. A name that has gone is skipped as absent.
Result<std::map<std::string, uint64_t>> read_hw_counters(const FileTree& files,
                                                         const std::string& device, int port,
                                                         const std::vector<std::string>& names);

// The names in the port's hw_counters directory (sorted); none when it is missing.
Result<std::vector<std::string>> list_hw_counters(const FileTree& files, const std::string& device,
                                                  int port);

// Same rule for any directory of "<decimal>\n" files (the counters/ directory, cc_params, ...).
Result<std::map<std::string, uint64_t>> read_decimal_files(const FileTree& files,
                                                           const std::filesystem::path& dir);

bool is_absent_error(const Error& error);

}  // namespace roced::rdma
