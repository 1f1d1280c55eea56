// SPDX-License-Identifier: Apache-2.0
#pragma once
// What roced cannot do without a capability it lacks, checked at start where the system checks
// (the kernel; a simulated node told to). A missing CAP_NET_ADMIN stops roced before any port is
// touched: each set would be refused with EPERM. A missing CAP_NET_RAW only stops the LLDP
// listening (each port's peer then reads not_listening).
#include <cstdint>
#include <optional>
#include <string>

namespace roced::service {

struct CapabilityCheck {
  std::optional<std::string> fatal;    // why roced cannot run
  std::optional<std::string> warning;  // what it runs without
};

CapabilityCheck check_capabilities(uint64_t effective);

}  // namespace roced::service
