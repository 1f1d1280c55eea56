// SPDX-License-Identifier: Apache-2.0
// rocectl apply: plan, then write each selected port's changes in order, verifying each by
// reading back; a port that fails is rolled back, the others are still configured. When roced runs
// for the same node and config, it does the work (D-Bus Apply) and rocectl shows the result.
#include <unistd.h>

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
#include "daemon/apply/applier.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "os/system.hpp"

namespace roced::cli {
namespace {

constexpr const char* kApplyUsage =
    "usage: rocectl [--sim DIR] apply [--config FILE] [--check] [--diff] [--json] [--yes] "
    "[--port NAME]... [--direct]\n"
    "\n"
    "Brings every port the configuration selects to its profile: DCBX, trust and DSCP map, "
    "ETS,\n"
    "PFC, buffers, MTU, stall prevention, ECN/DCQCN, rdma_cm, in that order. Each change is read\n"
    "back; a port where a change fails is put back the way it was, the other ports are still\n"
    "configured. A port already in sync is not written to at all. Changes that take a link\n"
    "down (PFC priorities flap it on mlx5, an MTU change rebuilds the channels) go one port at a\n"
    "time, each back with carrier before the next; on a terminal rocectl asks first.\n"
    "When roced runs for the same node (and --config, if given, is its file), roced applies\n"
    "(root only) and rocectl shows the result; it applies every port it manages, from its file\n"
    "as it is now: a file edited since roced loaded it is reloaded first (after the plan of it).\n"
    "\n"
    "options:\n"
    "  --config FILE  the configuration (default /etc/roced/roced.yaml)\n"
    "  --check        only plan: show what would change, write nothing\n"
    "  --diff         show the plan's changes before applying them\n"
    "  --yes          do not ask before changes that take links down (asked on a terminal only)\n"
    "  --json         one JSON document (docs/plan-json.md)\n"
    "  --port NAME    only this selected netdev (repeatable)\n"
    "  --sim DIR      apply to the simulated node in DIR instead of this machine\n"
    "  --direct       write the ports yourself even when roced runs\n"
    "  -h, --help     show this help\n"
    "\n"
    "exit status: 0 in sync or applied, 2 changes pending (--check), 1 error (invalid "
    "configuration,\n"
    "a port rolled back or unreadable, a configured port that does not exist, --port naming no\n"
    "selected port).\n";

struct ApplyArgs : PlanOptions {
  bool check = false;
  bool diff = false;
  bool yes = false;
};

// Parses the arguments; an exit code when they are wrong (or --help).
std::optional<int> parse(Args& cli_args, ApplyArgs& args) {
  while (!cli_args.done()) {
    if (cli_args.flag("-h") || cli_args.flag("--help")) {
      std::cout << kApplyUsage;
      return kExitOk;
    }
    std::optional<int> exit_code;
    if (cli_args.flag("--check")) {
      args.check = true;
    } else if (cli_args.flag("--diff")) {
      args.diff = true;
    } else if (cli_args.flag("--yes") || cli_args.flag("-y")) {
      args.yes = true;
    } else if (!take_plan_option(cli_args, args, kApplyUsage, exit_code)) {
      return usage_error("unknown argument \"" + cli_args.peek() + "\" for apply", kApplyUsage);
    }
    if (exit_code) return exit_code;
  }
  return std::nullopt;
}

std::string not_found_text(const plan::Plan& plan) {
  std::string out;
  for (const auto& name : plan.not_found) {
    out += name + ": not found (named in " + plan.config_path + ", no such netdev)\n";
  }
  return out;
}

// --check: the plan, as `rocectl plan` shows it.
int check(const plan::Plan& plan, const ApplyArgs& args) {
  print_plan(plan, args.json);
  report_plan_errors(plan);
  if (plan.has_errors() || !plan.not_found.empty()) return kExitError;
  return plan.has_changes() ? kExitPending : kExitOk;
}

// A file that names no port (ports.netdevs empty) installs roced idle, which is no mistake:
// --check says so, in the plan document too (no port, "idle" saying why), and exits 0, so that a
// rollout checks an idle node as it checks any other.
std::optional<int> check_idle(const config::Config& config, const plan::Plan& plan,
                              const ApplyArgs& args) {
  if (!args.check || !config.ports.netdevs.empty() || !plan.ports.empty()) return std::nullopt;
  const std::string why = "ports.netdevs names no port";
  if (args.json) {
    auto document = plan::plan_to_json(plan);
    document["idle"] = why;
    std::cout << document.dump(2) << "\n";
  } else {
    std::cout << "idle: " << why << " in " << args.config << ": nothing to change\n";
  }
  return kExitOk;
}

void show_diff(const plan::Plan& plan, const ApplyArgs& args) {
  if (args.diff && !args.json && plan.has_changes()) {
    std::cout << plan::format_plan_text(plan, stdout_style()) << "\n";
  }
}

// Whether a person at a terminal must be asked first: the plan takes links down. Scripts (no
// terminal), --yes and --json are never asked.
bool must_ask(const ApplyArgs& args) {
  return !args.yes && !args.json && !args.check && ::isatty(STDIN_FILENO) == 1 &&
         ::isatty(STDERR_FILENO) == 1;
}

// Names the ports the plan takes down and asks; true to go on.
bool confirm_disruption(const plan::Plan& plan, const std::string& pace) {
  std::string ports;
  for (const auto& port : plan.ports) {
    if (!port.disruptive()) continue;
    std::string settings;
    for (const auto& change : port.changes) {
      if (!change.disruptive) continue;
      settings += (settings.empty() ? "" : ", ") + plan::setting_name(change.setting, change.key);
    }
    ports += "  " + port.port.netdev + ": " + settings + "\n";
  }
  if (ports.empty()) return true;
  std::cerr << "These changes take the link down (traffic stops while it trains again):\n"
            << ports << pace << "\nApply? [y/N] " << std::flush;
  std::string answer;
  std::getline(std::cin, answer);
  return answer == "y" || answer == "Y" || answer == "yes";
}

int declined() {
  std::cerr << "rocectl: nothing applied\n";
  return kExitError;
}

// The result, as text or JSON; the exit code.
int report(const plan::Plan& plan, const apply::ApplyResult& result, const ApplyArgs& args) {
  const bool ok = result.ok() && plan.not_found.empty() && plan.error.empty();
  if (args.json) {
    const apply::ApplyContext context{plan.source, plan.config_path, args.diff ? &plan : nullptr,
                                      plan.not_found, plan.error};
    std::cout << apply::apply_document(context, result).dump(2) << "\n";
  } else {
    std::cout << apply::format_apply_text(result) << not_found_text(plan);
  }
  for (const auto& port : result.ports) {
    if (port.outcome == apply::PortResult::Outcome::RolledBack ||
        port.outcome == apply::PortResult::Outcome::RollbackFailed ||
        port.outcome == apply::PortResult::Outcome::Unreadable ||
        port.outcome == apply::PortResult::Outcome::Held) {
      std::cerr << "rocectl: " << port.netdev << ": " << apply::outcome_name(port.outcome) << ": "
                << port.error << "\n";
    }
  }
  if (!plan.error.empty()) std::cerr << "rocectl: " << plan.error << "\n";
  return ok ? kExitOk : kExitError;
}

// roced applies (D-Bus Apply), from its configuration file as it is now: a file edited since it
// was loaded is reloaded first, once the plan of it was shown (and, on a terminal, agreed to).
// The plan an Apply works from is the daemon's own, made a moment later: the diff shows what was
// pending then.
int apply_over_dbus(DaemonClient& daemon, ApplyArgs& args) {
  if (!args.ports.empty() && !args.check) {
    std::cerr << "rocectl: roced applies every port it manages, not only the --port ones; drop "
                 "--port, or add --direct to write those ports yourself\n";
    return kExitError;
  }
  args.config = daemon.properties().config_path;
  auto pending = ask_pending_plan(daemon);
  if (!pending) return kExitError;
  plan::Plan& plan = pending->plan;
  if (!keep_named_ports(plan, args, daemon.properties().source)) return kExitError;
  note_daemon_path(daemon);
  if (args.check) return check(plan, args);
  show_diff(plan, args);
  if (must_ask(args) &&
      !confirm_disruption(plan,
                          "roced applies them as daemon.disruptive_ports_at_once allows (default "
                          "one at a time), each back before the next.")) {
    return declined();
  }
  try {
    if (!pending->changed_sections.empty()) {
      const auto [ok, diagnostics] = daemon.reload();
      for (const auto& line : diagnostics) std::cerr << line << "\n";
      if (!ok) {
        std::cerr << "rocectl: roced did not take " << args.config << "; nothing applied\n";
        return kExitError;
      }
      std::cerr << "rocectl: roced took " << args.config << " (reloaded)\n";
    }
    const auto result = apply_result_from_json(nlohmann::ordered_json::parse(daemon.apply()));
    return report(plan, result, args);
  } catch (const std::exception& e) {
    return daemon_error(e);
  }
}

}  // namespace

int apply_command(const Context& context, Args cli_args) {
  ApplyArgs args;
  if (auto exit_code = parse(cli_args, args)) return *exit_code;
  DaemonChoice choice = find_daemon(context, args.direct, args.config_if_given());
  if (choice.daemon) return apply_over_dbus(*choice.daemon, args);
  if (!args.check) {
    if (auto refused = refuse_direct_beside_roced(choice, args.direct)) return *refused;
  }
  const auto config = load_config(args.config);
  if (!config) return kExitError;

  std::optional<System> node = open_node(context);
  if (!node) return kExitError;
  System& system = *node;
  plan::Plan plan = plan::make_plan(system, *config);
  // A --port that names nothing is a mistake on the command line: write nothing.
  if (!keep_named_ports(plan, args, system.description)) return kExitError;
  if (auto exit_code = check_idle(*config, plan, args)) return *exit_code;
  if (plan.ports.empty() && args.ports.empty()) {
    report_plan_errors(plan);
    std::cerr << "rocectl: " << args.config << " selects no port on " << system.description << "\n";
    return kExitError;
  }
  if (args.check) return check(plan, args);
  show_diff(plan, args);
  if (must_ask(args) &&
      !confirm_disruption(plan, "One port at a time, each back with carrier before the next.")) {
    return declined();
  }
  return report(plan, apply::apply_plan(system, plan), args);
}

}  // namespace roced::cli
