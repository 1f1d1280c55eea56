// SPDX-License-Identifier: Apache-2.0
#pragma once
// What an Ansible role does today, as shell: per port `dcb`, `ip` and `ethtool` commands plus
// `echo >` into the rdma_cm configfs and ECN files, for the same profile roced applies. Run
// through `roce-sim exec DIR -- sh -c SCRIPT`, the tools talk to the simulated node.

#include <filesystem>
#include <string>
#include <vector>

#include "daemon/config/config.hpp"
#include "port/discovery.hpp"

namespace roced::bench {

struct ShellRecipe {
  std::string apply;  // sets everything, one command per setting
  std::string check;  // what the role runs to decide nothing needs doing (shows and cats)
  std::vector<std::string> not_covered;  // profile settings the script cannot reach
};

// `dir`: the simulated node's DIR (files are written there; the tools find it via the shim).
ShellRecipe shell_recipe(const std::vector<DiscoveredPort>& ports, const config::Profile& profile,
                         const std::filesystem::path& dir);

}  // namespace roced::bench
