// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which mlx5 driver a port runs, told from what the host shows without writing anything: the
// driver's name and version as ETHTOOL_GDRVINFO gives them, the kernel's release and version
// strings, and MLNX_OFED's own sysfs. The evidence is kept, for status and qualify to show.

#include <string>
#include <vector>

#include "driver/traits.hpp"

namespace roced::driver {

struct HostFacts {
  std::string driver;          // ethtool -i: "mlx5_core"
  std::string driver_version;  // ethtool -i: the kernel release for the inbox driver
  std::string kernel_release;  // /proc/sys/kernel/osrelease: "6.1.0-27-amd64"
  // /proc/version: Debian's kernels name their package version there ("Debian 6.1.115-1");
  // their release string does not ("6.1.0-27-amd64").
  std::string kernel_version;
  bool ofed_sysfs = false;  // /sys/class/net/<if>/ecn/ (MLNX_OFED en_sysfs.c) exists
};

struct Detected {
  Flavour flavour = Flavour::Unknown;
  Traits traits;                      // the flavour's, refined by the exact version
  std::string version;                // "6.1.115", "24.10-1.1.4": what the traits were judged on
  std::vector<std::string> evidence;  // each fact that decided it, as a person reads it
  bool operator==(const Detected&) const = default;
};

Detected detect(const HostFacts& facts);

}  // namespace roced::driver
