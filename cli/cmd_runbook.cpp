// SPDX-License-Identifier: Apache-2.0
// rocectl runbook: what an alert means and what to do, from the runbook built into rocectl (the
// same text roced serves at the alerts' runbook_url), readable on a node the network cannot reach.
#include <iostream>

#include "cli/command.hpp"
#include "daemon/findings/catalogue.hpp"
#include "telemetry/runbook.hpp"

namespace roced::cli {

namespace {

constexpr const char* kRunbookUsage =
    "usage: rocectl runbook [ALERT | FINDING]\n"
    "\n"
    "Prints the runbook section of the alert ALERT (RocePfcStormActive, ...), or what the\n"
    "finding FINDING (rocev2_gid_index_moved, ...: docs/findings.md) means and what to do, or\n"
    "with no argument the whole runbook.\n"
    "exit status: 0 printed, 1 no such alert or finding\n";

}  // namespace

int runbook_command(const Context& /*context*/, Args args) {
  if (args.flag("-h") || args.flag("--help")) {
    std::cout << kRunbookUsage;
    return kExitOk;
  }
  if (args.done()) {
    std::cout << telemetry::runbook();
    return kExitOk;
  }
  const std::string alert = args.take();
  if (!args.done()) return usage_error("unexpected argument '" + args.peek() + "'", kRunbookUsage);
  if (const finding::Kind* kind = findings::find_kind(alert)) {
    std::cout << findings::describe(*kind);
    return kExitOk;
  }
  const auto section = telemetry::runbook_section(alert);
  if (!section) {
    std::cerr << "rocectl: no alert or finding '" << alert
              << "' (docs/findings.md lists the "
                 "findings); the runbook's alerts:";
    for (const std::string_view name : telemetry::runbook_alerts()) std::cerr << " " << name;
    std::cerr << "\n";
    return kExitError;
  }
  std::cout << *section;
  return kExitOk;
}

}  // namespace roced::cli
