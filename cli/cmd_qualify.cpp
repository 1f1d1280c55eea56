// SPDX-License-Identifier: Apache-2.0
// rocectl qualify: checks every assumption roced makes about this machine's mlx5 ports and
// captures the node for roce-sim. Read-only unless --write --links-may-flap; SIGINT and SIGTERM
// stop a write run after putting back what it changed.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli/command.hpp"
#include "cli/dbus_client.hpp"
#include "cli/open_node.hpp"
#include "cli/signals_to_stop.hpp"
#include "dcb/client.hpp"
#include "port/discovery.hpp"
#include "port/status.hpp"
#include "qualify/qualify.hpp"
#include "qualify/report_out.hpp"

namespace roced::cli {
namespace {

constexpr const char* kQualifyUsage =
    "usage: rocectl qualify [--port NAME]... [--json] [--out DIR] [--hostname]\n"
    "                       [--listen SECONDS] [--write --links-may-flap]\n"
    "\n"
    "Checks, on each mlx5 port (or each port named), every assumption roced makes about the NIC\n"
    "and its driver, and prints pass / differs / cannot_tell with the evidence: driver and\n"
    "firmware, DCBX, what each DCB get returns, the ethtool statistics, stall prevention, where\n"
    "the DCQCN knobs are and whether lockdown hides them, the GID table and rdma_cm, hw_counters,\n"
    "buffers, the cost of one ETHTOOL_GSTATS and of firmware commands. Reads only.\n"
    "\n"
    "Writes DIR/roced-qualify.json (the report, to attach to a bug report) and\n"
    "DIR/roced-qualify-node.yaml (a roce-sim node description of this machine). Neither holds a\n"
    "MAC or IP address, a GID or the host name (unless --hostname); PCI functions are renumbered.\n"
    "\n"
    "options:\n"
    "  --port NAME       only this netdev (repeatable), whatever its driver\n"
    "  --json            print the JSON report instead of the text\n"
    "  --out DIR         where to write the two files (default: the current directory)\n"
    "  --hostname        put the host name in the report and node description\n"
    "  --listen SECONDS  also listen that long (1-600; switches send every 30 s) for each\n"
    "                    switch's LLDP: does it reach the host, and what does it advertise?\n"
    "  --write           also set each setting roced makes, read it back and put it back, time\n"
    "                    the PFC link flap, and see a foreign dcb change notified. On a drained\n"
    "                    node only: each port's link goes down two or three times while it trains\n"
    "                    again (seconds each), one port at a time. Needs --links-may-flap, and\n"
    "                    refuses while roced runs (it would undo the changes).\n"
    "  --links-may-flap  the operator's word that the ports may lose their links\n"
    "  -h, --help        show this help\n"
    "\n"
    "exit status: 0 when no check differs, 3 when one does, 130 when SIGINT or SIGTERM stopped\n"
    "--write (after putting everything back) or --listen, 1 on an error (no port, a file not\n"
    "written, a setting not put back).\n";

struct QualifyArgs {
  std::vector<std::string> ports;
  bool json = false;
  bool hostname = false;
  bool write = false;
  bool links_may_flap = false;
  std::string out_dir = ".";
  int listen_seconds = 0;
};

// An estimate for the warning: PAM4 links (200G and up) train for seconds, NRZ ones faster.
int training_seconds(const std::optional<uint32_t>& speed_mbps) {
  return speed_mbps && *speed_mbps >= 200000 ? 3 : 2;
}

std::string flap_warning(System& system, const std::vector<DiscoveredPort>& ports) {
  std::string text;
  int total = 0;
  for (const auto& port : ports) {
    auto state = dcb::DcbClient(system).get(port.netdev);
    const uint8_t mask = state.ok() && state->pfc ? state->pfc->enabled_mask : 0;
    const int flaps = qualify::planned_flaps(mask);
    const int seconds = flaps * training_seconds(link_speed(system, port.netdev));
    total += seconds;
    text += "  " + port.netdev + ": the link goes down " + std::to_string(flaps) +
            " times, about " + std::to_string(seconds) + " s without a link\n";
  }
  return text + "one port at a time, about " + std::to_string(total) +
         " s in all; the other ports keep their links meanwhile.\n";
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) std::cerr << "rocectl: cannot write " << path << "\n";
  return static_cast<bool>(out);
}

std::string host_name() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? name : "";
}

int parse(Args& cli_args, QualifyArgs& args) {
  while (!cli_args.done()) {
    std::string value;
    std::string error;
    if (cli_args.flag("-h") || cli_args.flag("--help")) {
      std::cout << kQualifyUsage;
      return kExitOk;
    }
    if (cli_args.flag("--json")) {
      args.json = true;
    } else if (cli_args.flag("--hostname")) {
      args.hostname = true;
    } else if (cli_args.flag("--write")) {
      args.write = true;
    } else if (cli_args.flag("--links-may-flap")) {
      args.links_may_flap = true;
    } else if (cli_args.option("--port", value, error)) {
      if (!error.empty() || value.empty()) {
        return usage_error("--port needs an interface name", kQualifyUsage);
      }
      args.ports.push_back(value);
    } else if (cli_args.option("--listen", value, error)) {
      char* end = nullptr;
      const long seconds = std::strtol(value.c_str(), &end, 10);
      if (!error.empty() || value.empty() || *end != '\0' || seconds < 1 || seconds > 600) {
        return usage_error("--listen takes 1 to 600 seconds", kQualifyUsage);
      }
      args.listen_seconds = static_cast<int>(seconds);
    } else if (cli_args.option("--out", value, error)) {
      if (!error.empty() || value.empty())
        return usage_error("--out needs a directory", kQualifyUsage);
      args.out_dir = value;
    } else {
      return usage_error("unknown argument \"" + cli_args.peek() + "\" for qualify", kQualifyUsage);
    }
  }
  if (args.links_may_flap && !args.write) {
    return usage_error("--links-may-flap goes with --write", kQualifyUsage);
  }
  return -1;
}

}  // namespace

int qualify_command(const Context& context, Args cli_args) {
  QualifyArgs args;
  if (const int done = parse(cli_args, args); done >= 0) return done;
  std::optional<System> node = open_node(context);
  if (!node) return kExitError;
  System& system = *node;
  auto inventory = discover_ports(*system.files, args.ports);
  if (!inventory) {
    std::cerr << "rocectl: cannot list network interfaces: " << inventory.error().message << "\n";
    return kExitError;
  }
  // Unnamed, only the physical ports: a VF, representor or SF has no DCB of its own.
  if (args.ports.empty()) {
    std::erase_if(inventory->ports,
                  [](const DiscoveredPort& port) { return port.role != PortRole::Uplink; });
  }
  for (const auto& missing : inventory->missing) {
    std::cerr << "rocectl: no interface " << missing << "\n";
  }
  if (inventory->ports.empty() || !inventory->missing.empty()) {
    if (inventory->ports.empty()) std::cerr << "rocectl: no port to qualify\n";
    return kExitError;
  }
  if (args.write && !args.links_may_flap) {
    std::cerr << "rocectl: --write changes the ports and flaps their links:\n"
              << flap_warning(system, inventory->ports)
              << "Drain the node, then run again with --write --links-may-flap.\n";
    return kExitError;
  }
  if (args.write) {
    if (DaemonChoice choice = find_daemon(context, false, std::nullopt); choice.daemon) {
      std::cerr << "rocectl: roced runs for this node and would undo what --write changes: stop "
                   "it first (systemctl stop roced)\n";
      return kExitError;
    }
  }
  StopSignal stop;
  // Only a run that waits (on links, on switches) takes SIGINT as "stop and report": a read-only
  // run ends as any program does.
  std::optional<SignalsToStop> signals;
  if (args.write || args.listen_seconds > 0) {
    signals.emplace(stop, "stopping: putting back what was changed first");
  }
  qualify::Options options;
  options.write = args.write;
  options.listen = std::chrono::seconds(args.listen_seconds);
  options.roced_version = ROCED_VERSION;
  if (args.hostname) options.hostname = host_name();
  options.write_options.progress = [](const std::string& line) {
    std::cerr << "rocectl: " << line << "\n";
  };
  const qualify::Report report =
      qualify::qualify(system, real_time(), stop, inventory->ports, options);
  std::cout << (args.json ? qualify::report_json(report) : qualify::report_text(report));
  bool written = write_file(args.out_dir + "/roced-qualify.json", qualify::report_json(report));
  written =
      write_file(args.out_dir + "/roced-qualify-node.yaml", qualify::node_description(report)) &&
      written;
  if (written) {
    std::cerr << "rocectl: wrote " << args.out_dir << "/roced-qualify.json and " << args.out_dir
              << "/roced-qualify-node.yaml\n";
  }
  bool restored = true;
  for (const auto& port : report.ports) {
    for (const auto& touched : port.touched) restored = restored && touched.restored;
    for (const auto& check : port.checks) {
      if (check.id == "restored" && check.verdict != qualify::Verdict::Holds) restored = false;
    }
  }
  if (!restored) std::cerr << "rocectl: something --write changed was NOT put back: see above\n";
  if (!written || !restored) return kExitError;
  if (report.interrupted) return kExitInterrupted;
  return qualify::tally(report).at(qualify::Verdict::Differs) ? kExitDiffers : kExitOk;
}

}  // namespace roced::cli
