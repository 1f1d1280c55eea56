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

// A sh function `dcb` that forgives only iproute2 6.1's stale-ACK failure: bookworm's dcb reads
// the ACK its get left in the socket as the set's answer and fails with EPROTO when the two fell
// in different seconds, although the set was applied (test/support/sim_exec.hpp has the
// sources). A script written for bookworm needs it; it costs one subshell per dcb command.
inline constexpr const char* kBookwormDcb =
    "dcb() {\n"
    "  { _err=$(command dcb \"$@\" 2>&1 >&3); } 3>&1 && return 0\n"
    "  [ \"$_err\" = 'Attribute write: Protocol error' ] && return 0\n"
    "  printf '%s\\n' \"$_err\" >&2\n"
    "  return 1\n"
    "}\n";

struct ShellRecipe {
  std::string apply;  // sets everything, one command per setting
  std::string check;  // what the role runs to decide nothing needs doing (shows and cats)
  std::vector<std::string> not_covered;  // profile settings the script cannot reach
};

// `dir`: the simulated node's DIR (files are written there; the tools find it via the shim).
ShellRecipe shell_recipe(const std::vector<DiscoveredPort>& ports, const config::Profile& profile,
                         const std::filesystem::path& dir);

}  // namespace roced::bench
