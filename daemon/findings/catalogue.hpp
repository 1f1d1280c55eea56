// SPDX-License-Identifier: Apache-2.0
#pragma once
// The finding catalogue: every Kind roced makes, from the room that makes it. A new room with
// findings of its own adds one line to catalogue.cpp; its Kinds stay in its own folder.

#include <string>
#include <string_view>
#include <vector>

#include "finding/finding.hpp"

namespace roced::findings {

// Every kind, grouped by source in the order a port meets them (settings, plan, apply,
// watchdog, switch, qualify).
const std::vector<const finding::Kind*>& catalogue();
// The kind with `id`, or nullptr.
const finding::Kind* find_kind(std::string_view id);
// "rocev2_gid_index_moved (critical, from plan)\n<meaning>\nWhat to do: <runbook>\n".
std::string describe(const finding::Kind& kind);
// docs/findings.md's table: | id | severity | source | meaning | what to do |.
std::string markdown_table();

}  // namespace roced::findings
