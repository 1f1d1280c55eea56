// SPDX-License-Identifier: Apache-2.0
#include "os/capabilities.hpp"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace roced {

Result<uint64_t> effective_capabilities() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (::syscall(SYS_capget, &header, data) != 0) return Error::from_errno(errno, "capget");
  return uint64_t{data[0].effective} | uint64_t{data[1].effective} << 32;
}

std::string capability_name(int capability) {
  switch (capability) {
    case CAP_NET_ADMIN:
      return "CAP_NET_ADMIN";
    case CAP_NET_RAW:
      return "CAP_NET_RAW";
    case CAP_IPC_LOCK:
      return "CAP_IPC_LOCK";
    case CAP_SYS_ADMIN:
      return "CAP_SYS_ADMIN";
    default:
      return "capability " + std::to_string(capability);
  }
}

}  // namespace roced
