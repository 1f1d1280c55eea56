// SPDX-License-Identifier: Apache-2.0
// rocectl status: asks the running roced over D-Bus when there is one (its view: condition, drift,
// last apply), else reads every selected port through the same seam the daemon uses: the real
// machine, or a simulated node with --sim DIR.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/daemon_documents.hpp"
#include "cli/dbus_client.hpp"
#include "cli/open_node.hpp"
#include "os/system.hpp"
#include "port/discovery.hpp"
#include "port/status.hpp"

namespace roced::cli {
namespace {

constexpr const char* kStatusUsage =
    "usage: rocectl status [--json] [--sim DIR] [--port NAME]... [--direct]\n"
    "\n"
    "When roced runs (on the system bus, for the same node), shows its view of each port it\n"
    "manages: in sync or drifted and which settings, link, speed, MTU and PFC as its last check\n"
    "read them, the last check and apply, failures in a row;\n"
    "--json adds what it read back. Otherwise, or with --direct:\n"
    "Reads, per port: driver and firmware, link and MTU, DCBX mode, trust, DSCP map, PFC, ETS,\n"
    "buffers, PFC stall prevention, the GID table with the RoCE v2 IPv4 index, rdma_cm defaults "
    "and\n"
    "the ECN/DCQCN knobs. A piece that cannot be read is shown with the reason; it does not fail\n"
    "the command.\n"
    "\n"
    "options:\n"
    "  --json       print one JSON document with every field\n"
    "  --sim DIR    read the simulated node in DIR instead of this machine\n"
    "  --port NAME  only this netdev (repeatable); any driver, so a veth can be named\n"
    "  --direct     read the ports yourself even when roced runs\n"
    "  -h, --help   show this help\n"
    "\n"
    "exit status: 0 when every selected port was read (an unsupported feature is not a failure),\n"
    "1 on a usage error, when no port was found or when a port's link could not be read.\n"
    "status is informational: a drifted or held port is shown, not an exit status. Health\n"
    "checks use rocectl check (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).\n";

struct StatusArgs {
  bool json = false;
  bool direct = false;
  std::vector<std::string> ports;
};

// The daemon's answer; nullopt when --port names a netdev it does not manage (read it directly).
std::optional<int> status_from_daemon(DaemonClient& daemon, const StatusArgs& args) {
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(daemon.get_status());
  } catch (const std::exception& e) {
    return daemon_error(e);
  }
  auto& ports = doc["ports"];
  if (!args.ports.empty()) {
    nlohmann::ordered_json kept = nlohmann::ordered_json::array();
    for (const auto& name : args.ports) {
      const auto found = std::find_if(ports.begin(), ports.end(),
                                      [&](const auto& port) { return port["netdev"] == name; });
      if (found == ports.end()) return std::nullopt;
      kept.push_back(*found);
    }
    ports = std::move(kept);
  }
  note_daemon_path(daemon);
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
  } else {
    std::cout << format_daemon_status_text(doc);
  }
  if (ports.empty()) {
    std::cerr << "rocectl: roced manages no port\n";
    return kExitError;
  }
  // As without the daemon: a port that could not be read fails the command.
  const bool all_read = std::none_of(ports.begin(), ports.end(),
                                     [](const auto& port) { return port["error"].is_string(); });
  return all_read ? kExitOk : kExitError;
}

}  // namespace

int status_command(const Context& context, Args cli_args) {
  StatusArgs args;
  while (!cli_args.done()) {
    std::string value;
    std::string error;
    if (cli_args.flag("-h") || cli_args.flag("--help")) {
      std::cout << kStatusUsage;
      return kExitOk;
    }
    if (cli_args.flag("--json")) {
      args.json = true;
    } else if (cli_args.flag("--direct")) {
      args.direct = true;
    } else if (cli_args.option("--port", value, error)) {
      if (!error.empty() || value.empty()) {
        return usage_error("--port needs an interface name", kStatusUsage);
      }
      args.ports.push_back(value);
    } else {
      return usage_error("unknown argument \"" + cli_args.peek() + "\" for status", kStatusUsage);
    }
  }
  if (DaemonChoice choice = find_daemon(context, args.direct, std::nullopt); choice.daemon) {
    if (auto exit_code = status_from_daemon(*choice.daemon, args)) return *exit_code;
  }
  std::optional<roced::System> node = open_node(context);
  if (!node) return 1;
  roced::System& system = *node;
  const auto& sim_dir = context.sim_dir;
  auto inventory = roced::discover_ports(*system.files, args.ports);
  if (!inventory) {
    std::cerr << "rocectl: cannot list network interfaces on " << system.description << ": "
              << inventory.error().message << "\n";
    return 1;
  }
  roced::StatusReport report;
  report.source = system.description;
  report.other_rdma = inventory->other_rdma;
  report.missing = inventory->missing;
  roced::StatusOptions options;
  options.verbs_fallback = !sim_dir;  // a simulated node has no verbs device
  for (const auto& port : inventory->ports) {
    // Unasked, a VF, representor or sub-function is counted under its port, not read: an SR-IOV
    // node has hundreds, and roced manages none of them unless named.
    if (args.ports.empty() && !port.managed_by_default()) {
      report.functions.push_back(port);
      continue;
    }
    report.ports.push_back(roced::read_port_status(system, port, options));
  }
  // Upper devices of the ports read: listed under their port, never written (DCB is the port's,
  // rdma_cm the RDMA device's; the MTU the site's network configuration owns).
  for (const auto& upper : inventory->uppers) {
    const bool of_a_port = std::any_of(
        report.ports.begin(), report.ports.end(),
        [&](const roced::PortStatus& port) { return port.port.netdev == upper.parent; });
    if (of_a_port) report.functions.push_back(upper);
  }

  if (args.json) {
    std::cout << report.to_json().dump(2) << "\n";
  } else {
    std::cout << roced::format_status_text(report);
  }
  for (const auto& name : report.missing) {
    std::cerr << "rocectl: no network interface named \"" << name << "\" on " << system.description
              << "\n";
  }
  if (report.ports.empty() && report.missing.empty()) {
    std::cerr << "rocectl: no mlx5 port found on " << system.description
              << " (no /sys/class/net/<if>/device/driver -> mlx5_core); name a port with --port "
                 "to see another driver's\n";
    return 1;
  }
  // A port whose link cannot be read was not read at all: the other fields may still say why.
  bool all_read = report.missing.empty();
  for (const auto& port : report.ports) {
    if (port.link.ok()) continue;
    all_read = false;
    std::cerr << "rocectl: cannot read " << port.port.netdev << ": " << port.link.error;
    if (sim_dir) std::cerr << " (is 'roce-sim run --dir " << *sim_dir << "' running?)";
    std::cerr << "\n";
  }
  return all_read ? kExitOk : kExitError;
}

}  // namespace roced::cli
