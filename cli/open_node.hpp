// SPDX-License-Identifier: Apache-2.0
#pragma once
// The system a rocectl command reads and writes: this machine, or the simulated node of --sim.

#include <optional>

#include "cli/command.hpp"
#include "os/system.hpp"

namespace roced::cli {

// nullopt, with the reason on stderr, when --sim names no running node or its transports are
// not installed.
std::optional<System> open_node(const Context& context);

}  // namespace roced::cli
