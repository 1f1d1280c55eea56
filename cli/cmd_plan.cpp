// SPDX-License-Identifier: Apache-2.0
// rocectl plan: what apply would change on each selected port (desired from the config file,
// observed read back from the NIC), without changing anything. The running roced makes it when
// there is one (same node, same config), else rocectl does.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/open_node.hpp"
#include "cli/daemon_documents.hpp"
#include "cli/dbus_client.hpp"
#include "cli/load_config.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "os/system.hpp"

namespace roced::cli {
namespace {

constexpr const char* kDefaultConfig = "/etc/roced/roced.yaml";

constexpr const char* kPlanUsage =
    "usage: rocectl [--sim DIR] plan [--config FILE] [--json] [--port NAME]... [--direct]\n"
    "\n"
    "Compares every port the configuration selects with what the NIC reports and lists, per "
    "port,\n"
    "the changes apply would make (setting, value now -> value wanted, whether it disrupts "
    "traffic),\n"
    "the settings the port cannot take, and warnings (RoCE v2 GID index, MTU). Changes "
    "nothing.\n"
    "When roced runs for the same node (and --config, if given, is its file), it makes the plan.\n"
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

struct PlanArgs {
  std::string config = kDefaultConfig;
  bool config_given = false;
  bool direct = false;
  bool json = false;
  std::vector<std::string> ports;
};

}  // namespace

int plan_command(const Context& context, Args cli_args) {
  PlanArgs args;
  while (!cli_args.done()) {
    std::string value;
    std::string error;
    if (cli_args.flag("-h") || cli_args.flag("--help")) {
      std::cout << kPlanUsage;
      return kExitOk;
    }
    if (cli_args.flag("--json")) {
      args.json = true;
    } else if (cli_args.option("--config", value, error)) {
      if (!error.empty() || value.empty()) return usage_error("--config needs a file", kPlanUsage);
      args.config = value;
      args.config_given = true;
    } else if (cli_args.flag("--direct")) {
      args.direct = true;
    } else if (cli_args.option("--port", value, error)) {
      if (!error.empty() || value.empty()) {
        return usage_error("--port needs an interface name", kPlanUsage);
      }
      args.ports.push_back(value);
    } else {
      return usage_error("unknown argument \"" + cli_args.peek() + "\" for plan", kPlanUsage);
    }
  }
  const std::optional<std::string> config_given =
      args.config_given ? std::optional(args.config) : std::nullopt;
  DaemonChoice choice = find_daemon(context, args.direct, config_given);
  plan::Plan plan;
  std::string source;
  if (choice.daemon) {
    // Read back into a Plan: the same text, the same JSON and exit code as when rocectl plans.
    try {
      plan = plan_from_json(nlohmann::ordered_json::parse(choice.daemon->get_plan()));
    } catch (const std::exception& e) {
      return daemon_error(e);
    }
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
  }

  bool port_unknown = false;
  if (!args.ports.empty()) {
    std::erase_if(plan.ports, [&](const plan::PortPlan& port) {
      return std::find(args.ports.begin(), args.ports.end(), port.port.netdev) == args.ports.end();
    });
    for (const auto& name : args.ports) {
      const bool planned = std::any_of(plan.ports.begin(), plan.ports.end(),
                                       [&](const auto& p) { return p.port.netdev == name; });
      if (!planned) {
        std::cerr << "rocectl: " << name << " is not a port " << args.config << " selects on "
                  << source << "\n";
        port_unknown = true;
      }
    }
  }

  if (args.json) {
    std::cout << plan::plan_to_json(plan).dump(2) << "\n";
  } else {
    std::cout << plan::format_plan_text(plan);
  }
  for (const auto& port : plan.ports) {
    if (!port.error.empty())
      std::cerr << "rocectl: " << port.port.netdev << ": " << port.error << "\n";
  }
  if (!plan.error.empty()) std::cerr << "rocectl: " << plan.error << "\n";
  if (plan.ports.empty() && args.ports.empty()) {
    std::cerr << "rocectl: " << args.config << " selects no port on " << source << "\n";
    return kExitError;
  }
  if (port_unknown || plan.has_errors() || !plan.not_found.empty()) return kExitError;
  return plan.has_changes() ? kExitPending : kExitOk;
}

}  // namespace roced::cli
