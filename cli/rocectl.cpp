// SPDX-License-Identifier: Apache-2.0
// rocectl: roced's command-line client. Global options here; each command lives in
// cli/cmd_<name>.cpp.
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "daemon/yaml/suggest.hpp"

namespace roced::cli {
namespace {

constexpr const char* kRocectlUsage =
    "usage: rocectl [--sim DIR] COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  status     show the RoCE state of every mlx5 port (or of the ports named)\n"
    "  check      one line and a Nagios exit code for health checks: 0 OK, 1 WARNING, 2 "
    "CRITICAL,\n"
    "             3 UNKNOWN\n"
    "  validate   check a configuration file: rocectl validate FILE\n"
    "  plan       show what apply would change on each selected port\n"
    "  apply      make every selected port match the configuration\n"
    "  nccl-env   print the NCCL variables for these ports\n"
    "  reload     ask the running roced to read its configuration again\n"
    "  runbook    what an alert or a finding means and what to do: rocectl runbook [ID]\n"
    "  qualify    check roced's assumptions on this machine's NICs and capture it for roce-sim\n"
    "  probe      a few probes to a peer port now, on the lossless class: rocectl probe PEER\n"
    "\n"
    "options:\n"
    "  --sim DIR   talk to the simulated node in DIR (roce-sim run --dir DIR) instead of this "
    "machine\n"
    "  -h, --help  show this help\n"
    "  --version   print rocectl's version\n"
    "\n"
    "Run 'rocectl COMMAND --help' for a command's options.\n"
    "exit status: 0 ok, 1 error, 2 changes pending (plan, apply --check), 3 a qualify check\n"
    "differs; check has its own (rocectl check --help)\n";

using CommandFn = int (*)(const Context&, Args);

struct CommandEntry {
  const char* name;
  CommandFn run;
};

// The bash completion (packaging/bash-completion/rocectl) lists the same names; a test holds
// the two together.
constexpr CommandEntry kCommands[] = {
    {"status", status_command}, {"check", check_command},     {"validate", validate_command},
    {"plan", plan_command},     {"apply", apply_command},     {"nccl-env", nccl_env_command},
    {"probe", probe_command},
    {"reload", reload_command}, {"runbook", runbook_command}, {"qualify", qualify_command},
};

CommandFn find_command(const std::string& name) {
  for (const auto& command : kCommands) {
    if (name == command.name) return command.run;
  }
  return nullptr;
}

// "unknown command "plann" (did you mean 'plan'?)"
std::string unknown_command(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& command : kCommands) names.emplace_back(command.name);
  return "unknown command \"" + name + "\"" + roced::yaml::did_you_mean(name, names);
}

}  // namespace

bool Args::flag(const std::string& name) {
  if (done() || args_[i_] != name) return false;
  ++i_;
  return true;
}

bool Args::option(const std::string& name, std::string& out, std::string& error) {
  if (done()) return false;
  const std::string& arg = args_[i_];
  if (arg == name) {
    ++i_;
    if (done()) {
      error = name + " needs a value";
      return true;
    }
    out = args_[i_++];
    return true;
  }
  if (arg.rfind(name + "=", 0) == 0) {
    out = arg.substr(name.size() + 1);
    ++i_;
    return true;
  }
  return false;
}

int usage_error(const std::string& message, const char* usage) {
  // The message and the synopsis, not the whole help: the mistake stays on the screen.
  const std::string text(usage);
  const std::string synopsis = text.substr(0, text.find('\n'));
  std::cerr << "rocectl: " << message << "\n" << synopsis << "\n(--help for more)\n";
  return kExitError;
}

}  // namespace roced::cli

int main(int argc, char** argv) {
  using namespace roced::cli;
  std::vector<std::string> all(argv + 1, argv + argc);
  Context context;
  std::vector<std::string> rest;
  CommandFn command = nullptr;
  // --sim is global and may come before or after the command; everything else after the command
  // belongs to it.
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string& arg = all[i];
    if (arg == "--sim" || arg.rfind("--sim=", 0) == 0) {
      std::string dir = arg == "--sim" ? (i + 1 < all.size() ? all[++i] : "") : arg.substr(6);
      if (dir.empty()) return usage_error("--sim needs a directory", kRocectlUsage);
      context.sim_dir = dir;
    } else if (command) {
      rest.push_back(arg);
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kRocectlUsage;
      return kExitOk;
    } else if (arg == "--version") {
      std::cout << "rocectl " << ROCED_VERSION << "\n";
      return kExitOk;
    } else if (!arg.empty() && arg[0] == '-') {
      return usage_error("unknown option " + arg, kRocectlUsage);
    } else {
      command = find_command(arg);
      if (!command) return usage_error(unknown_command(arg), kRocectlUsage);
    }
  }
  if (!command) return usage_error("no command given", kRocectlUsage);
  return command(context, Args(std::move(rest)));
}
