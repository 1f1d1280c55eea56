// SPDX-License-Identifier: Apache-2.0
// rocectl reload: asks the running roced to read its configuration file again, and says whether
// it did. The unit's ExecReload, so that `systemctl reload roced` fails when the file is broken
// (the daemon keeps the configuration it runs, and its status says why).
#include <iostream>

#include "cli/command.hpp"
#include "cli/dbus_client.hpp"

namespace roced::cli {

namespace {

constexpr const char* kReloadUsage =
    "usage: rocectl reload\n"
    "\n"
    "Asks the running roced (over D-Bus) to read its configuration file again. A file with\n"
    "problems changes nothing: they are printed, and roced keeps the configuration it runs.\n"
    "exit status: 0 reloaded, 1 not (the file's problems, or no roced on the system bus)\n";

}  // namespace

// Whatever node it serves (--sim names none here): the daemon on the bus is the one to reload.
int reload_command(const Context& /*context*/, Args args) {
  if (args.flag("-h") || args.flag("--help")) {
    std::cout << kReloadUsage;
    return kExitOk;
  }
  if (!args.done()) return usage_error("unexpected argument '" + args.peek() + "'", kReloadUsage);
  DaemonChoice choice = find_any_daemon();
  if (!choice.daemon) {
    std::cerr << "rocectl: nothing to reload: " << choice.why_direct << "\n";
    return kExitError;
  }
  try {
    const auto [ok, diagnostics] = choice.daemon->reload();
    for (const std::string& line : diagnostics) std::cerr << line << "\n";
    const std::string& path = choice.daemon->properties().config_path;
    if (!ok) {
      std::cerr << "rocectl: roced did not reload " << path
                << ": it keeps running the configuration it had\n";
      return kExitError;
    }
    std::cerr << "rocectl: roced reloaded " << path << "\n";
    return kExitOk;
  } catch (const std::exception& e) {
    return daemon_error(e);
  }
}

}  // namespace roced::cli
