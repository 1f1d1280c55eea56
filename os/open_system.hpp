// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one place that decides which System roced and rocectl talk to.
//
// The product holds only the kernel's transports. A simulated node (roce-sim, `--sim DIR`) is
// reached through a plugin that the roce-sim package installs beside roced's private libraries,
// loaded only when asked for, so no simulator code is linked into, or loaded by, a roced that
// manages real ports.

#include <filesystem>
#include <optional>

#include "os/result.hpp"
#include "os/system.hpp"

namespace roced {

struct SystemOptions {
  // A roce-sim node's directory instead of this machine.
  std::optional<std::filesystem::path> sim_dir;
};

// The kernel's NETLINK_ROUTE, SIOCETHTOOL and the real file tree.
System real_system();

// real_system(), or the simulated node through the plugin; an error names what is missing.
Result<System> open_system(const SystemOptions& options);

// The plugin's file name (searched in <executable's dir>/../lib/roced) and its entry point, which
// fills `out` for the node at `dir` and returns 0, or returns an errno with `message` set.
inline constexpr const char* kSimPluginFile = "roce-sim-system.so";
inline constexpr const char* kSimPluginEntry = "roce_sim_open_system";
using SimPluginEntry = int (*)(const char* dir, System* out, char* message, size_t message_size);

}  // namespace roced
