// SPDX-License-Identifier: Apache-2.0
// rocectl plan: what apply would change on each selected port (desired from the config file,
// observed read back from the NIC), without changing anything. The running roced makes it when
// there is one (same node, same config), else rocectl does.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/daemon_documents.hpp"
#include "cli/dbus_client.hpp"
#include "cli/load_config.hpp"
#include "cli/open_node.hpp"
#include "cli/pending_plan.hpp"
#include "cli/plan_options.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "os/system.hpp"

namespace roced::cli {
namespace {

constexpr const char* kPlanUsage =
    "usage: rocectl [--sim DIR] plan [--config FILE] [--json] [--port NAME]... [--direct]\n"
    "\n"
    "Compares every port the configuration selects with what the NIC reports and lists, per "
    "port,\n"
    "the changes apply would make (setting, value now -> value wanted, whether it disrupts "
    "traffic),\n"
    "the settings the port cannot take, and warnings (RoCE v2 GID index, MTU). Changes "
    "nothing.\n"
    "When roced runs for the same node (and --config, if given, is its file), it makes the plan\n"
    "of that file as it is now: an edit not reloaded yet shows, with a note on stderr.\n"
    "\n"
    "options:\n"
    "  --config FILE  the configuration (default /etc/roced/roced.yaml)\n"
    "  --json         one JSON document (docs/plan-json.md)\n"
    "  --port NAME    only this selected netdev (repeatable)\n"
    "  --sim DIR      plan against the simulated node in DIR instead of this machine\n"
    "  --direct       read the ports yourself even when roced runs\n"
    "  -h, --help     show this help\n"
    "\n"
    "exit status: 0 every port in sync, 2 changes pending, 1 error (invalid configuration, a "
    "port\n"
    "that cannot be read, a configured port that does not exist, --port naming no selected "
    "port).\n";

}  // namespace

int plan_command(const Context& context, Args cli_args) {
  PlanOptions args;
  while (!cli_args.done()) {
    if (cli_args.flag("-h") || cli_args.flag("--help")) {
      std::cout << kPlanUsage;
      return kExitOk;
    }
    std::optional<int> exit_code;
    if (!take_plan_option(cli_args, args, kPlanUsage, exit_code)) {
      return usage_error("unknown argument \"" + cli_args.peek() + "\" for plan", kPlanUsage);
    }
    if (exit_code) return *exit_code;
  }
  DaemonChoice choice = find_daemon(context, args.direct, args.config_if_given());
  plan::Plan plan;
  std::string source;
  bool idle = false;  // the file names no port: roced runs idle, which is no mistake
  if (choice.daemon) {
    // Read back into a Plan: the same text, the same JSON and exit code as when rocectl plans.
    // The file as it is now, not the configuration roced loaded: an edit not reloaded yet shows.
    auto pending = ask_pending_plan(*choice.daemon);
    if (!pending) return kExitError;
    plan = std::move(pending->plan);
    note_daemon_path(*choice.daemon);
    args.config = choice.daemon->properties().config_path;
    source = choice.daemon->properties().source;
  } else {
    const auto config = load_config(args.config);
    if (!config) return kExitError;
    std::optional<System> node = open_node(context);
    if (!node) return kExitError;
    System& system = *node;
    plan = plan::make_plan(system, *config);
    source = system.description;
    idle = config->ports.netdevs.empty();
  }

  const bool ports_known = keep_named_ports(plan, args, source);
  print_plan(plan, args.json);
  report_plan_errors(plan);
  if (plan.ports.empty() && args.ports.empty() && idle) {
    std::cerr << "rocectl: idle: ports.netdevs names no port in " << args.config
              << ": nothing to change\n";
    return kExitOk;
  }
  if (plan.ports.empty() && args.ports.empty()) {
    std::cerr << "rocectl: " << args.config << " selects no port on " << source << "\n";
    return kExitError;
  }
  if (!ports_known || plan.has_errors() || !plan.not_found.empty()) return kExitError;
  return plan.has_changes() ? kExitPending : kExitOk;
}

}  // namespace roced::cli
