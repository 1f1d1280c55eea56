// SPDX-License-Identifier: Apache-2.0
#include "cli/open_node.hpp"

#include <iostream>

#include "os/open_system.hpp"

namespace roced::cli {

std::optional<System> open_node(const Context& context) {
  SystemOptions options;
  if (context.sim_dir) options.sim_dir = *context.sim_dir;
  Result<System> system = open_system(options);
  if (!system) {
    std::cerr << "rocectl: " << system.error().message << "\n";
    return std::nullopt;
  }
  if (context.sim_dir && !system->files->exists("/sys/class/net")) {
    std::cerr << "rocectl: " << *context.sim_dir
              << " is not a simulated node (no sys/class/net; start one with 'roce-sim run --dir "
              << *context.sim_dir << "')\n";
    return std::nullopt;
  }
  return std::move(system).value();
}

}  // namespace roced::cli
