// SPDX-License-Identifier: Apache-2.0
#pragma once
// One line on what a valid configuration selects, for `roced --check-config` and
// `rocectl validate`.

#include <string>

#include "daemon/config/config.hpp"

namespace roced::config {

// "drivers mlx5_core; netdevs: ens*; exclude: lan5; 1 override (lan5)" ("netdevs: none" when empty)
std::string describe_selection(const Config& config);

}  // namespace roced::config
