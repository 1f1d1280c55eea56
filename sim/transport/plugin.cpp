// SPDX-License-Identifier: Apache-2.0
// The entry that roced's open_system() looks up in roce-sim-system.so (os/open_system.hpp).

#include <cerrno>
#include <cstdio>
#include <exception>
#include <type_traits>

#include "os/open_system.hpp"
#include "sim/transport/simulated_system.hpp"

extern "C" __attribute__((visibility("default"))) int roce_sim_open_system(const char* dir,
                                                                           roced::System* out,
                                                                           char* message,
                                                                           size_t message_size) {
  static_assert(std::is_same_v<decltype(&roce_sim_open_system), roced::SimPluginEntry>);
  try {
    *out = roce_sim::simulated_system(dir);
    return 0;
  } catch (const std::exception& error) {
    std::snprintf(message, message_size, "%s", error.what());
    return EINVAL;
  }
}
