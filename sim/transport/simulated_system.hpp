// SPDX-License-Identifier: Apache-2.0
#pragma once
// A roced System whose transports reach a roce-sim node (or, for files only, a captured tree)
// laid out as uapi/roce_sim.h describes. Tests and benchmarks link it; roced and rocectl load it
// through the plugin (plugin.cpp) when given --sim.

#include <filesystem>

#include "os/system.hpp"

namespace roce_sim {

roced::System simulated_system(const std::filesystem::path& dir);

}  // namespace roce_sim
