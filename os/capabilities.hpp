// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process's own effective capabilities (capget(2)), so that roced can say which one it lacks
// before a kernel answers EPERM to a half-done apply.
#include <cstdint>
#include <string>

#include "os/result.hpp"

namespace roced {

// Bit N set: capability N (include/uapi/linux/capability.h) is effective.
Result<uint64_t> effective_capabilities();

// "CAP_NET_ADMIN" for 12; "capability N" for one this table does not name.
std::string capability_name(int capability);

}  // namespace roced
