// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the running roced would do with its configuration file as it is on disk now, edited and
// not reloaded yet: `rocectl plan` and `apply` show that, not the configuration roced still
// runs, so that the disruption a reload would cause is seen before the reload.

#include <optional>
#include <string>
#include <vector>

#include "cli/dbus_client.hpp"
#include "daemon/plan/plan.hpp"

namespace roced::cli {

struct DaemonPlan {
  plan::Plan plan;
  std::vector<std::string> changed_sections;  // the file against what roced runs; empty: same
};

// Asks roced (GetPendingPlan). When the file differs from what roced runs, says so on stderr.
// Empty, with the file's problems or roced's error on stderr, when it cannot be planned.
std::optional<DaemonPlan> ask_pending_plan(DaemonClient& daemon);

}  // namespace roced::cli
