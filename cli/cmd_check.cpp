// SPDX-License-Identifier: Apache-2.0
// rocectl check: a health check's command (NHC, Nagios, Icinga, a cron job): the running roced's
// status judged, one line first, and an exit code that says healthy, degraded or broken.
#include <iostream>
#include <string>

#include "cli/command.hpp"
#include "cli/dbus_client.hpp"
#include "cli/health.hpp"

namespace roced::cli {
namespace {

constexpr const char* kCheckUsage =
    "usage: rocectl [--sim DIR] check [--verbose]\n"
    "\n"
    "Asks the running roced (on the system bus) how its ports are and prints one line as a\n"
    "Nagios plugin does, \"ROCE <STATE> - <summary> | <perfdata>\", then with --verbose a line\n"
    "per problem. It reads no port itself: what it judges is what roced keeps.\n"
    "  OK        every managed port in sync, with carrier, no warning or critical finding\n"
    "  WARNING   a port still pending or applying, a warning finding, a ports.netdevs entry\n"
    "            that matches nothing, or no port managed\n"
    "  CRITICAL  a port drifted, held by the storm watchdog, failed or vanished, a port without\n"
    "            carrier, a critical finding, or roced not running\n"
    "  UNKNOWN   roced answered something rocectl could not read, or a usage error\n"
    "\n"
    "options:\n"
    "  --verbose  a line per problem after the status line\n"
    "  --sim DIR  the roced serving the simulated node in DIR\n"
    "  -h, --help show this help\n"
    "\n"
    "exit status (Nagios plugin conventions): 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.\n";

int unknown(const std::string& why) {
  std::cout << "ROCE UNKNOWN - " << why << "\n";
  return static_cast<int>(Health::Unknown);
}

}  // namespace

int check_command(const Context& context, Args args) {
  bool verbose = false;
  while (!args.done()) {
    if (args.flag("-h") || args.flag("--help")) {
      std::cout << kCheckUsage;
      return kExitOk;
    }
    if (args.flag("--verbose") || args.flag("-v")) {
      verbose = true;
    } else {
      // Usage errors are UNKNOWN too: a monitoring system must not read them as WARNING.
      usage_error("unknown argument \"" + args.peek() + "\" for check", kCheckUsage);
      return unknown("usage error: unknown argument \"" + args.peek() + "\"");
    }
  }
  HealthReport report;
  DaemonChoice choice = find_daemon(context, false, std::nullopt);
  if (!choice.daemon) {
    report = health_without_daemon(choice.why_direct);
  } else {
    try {
      report = judge_health(nlohmann::ordered_json::parse(choice.daemon->get_status()));
    } catch (const std::exception& e) {
      return unknown(std::string("cannot read roced's status: ") + e.what());
    }
  }
  std::cout << report.status_line << "\n";
  if (verbose) {
    for (const auto& line : report.details) std::cout << line << "\n";
  }
  return static_cast<int>(report.health);
}

}  // namespace roced::cli
