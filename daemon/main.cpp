// SPDX-License-Identifier: Apache-2.0
// roced: the node daemon. `roced --check-config FILE` checks a configuration; otherwise roced runs
// as the service (daemon/service): keeps every selected port matching the configuration until
// SIGTERM, reloads it on SIGHUP, and talks to systemd (Type=notify, watchdog).
#include <malloc.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/config/config.hpp"
#include "daemon/config/summary.hpp"
#include "daemon/dbus/dbus_module.hpp"
#include "daemon/health/health_module.hpp"
#include "daemon/lldp/peer_module.hpp"
#include "daemon/log/log.hpp"
#include "daemon/probe/probe_module.hpp"
#include "daemon/service/service.hpp"
#include "daemon/telemetry/metrics_module.hpp"
#include "daemon/watchdog/storm_module.hpp"

namespace {

constexpr const char* kUsage =
    "usage: roced [--config FILE] [--sim DIR] [--log-level LEVEL] [--log-target TARGET]\n"
    "             [--no-dbus] [--metrics-listen ADDRESS | --no-metrics] [--watch-config]\n"
    "       roced --check-config FILE\n"
    "       roced --help | --version\n"
    "\n"
    "Without --check-config, roced runs as the service: it brings every port the configuration\n"
    "selects to its profile, keeps it there (netlink events, a periodic drift check), reloads\n"
    "the configuration on SIGHUP (a broken file keeps the running one) and stops on SIGTERM.\n"
    "Under systemd it sends READY=1, STATUS= and WATCHDOG=1 (systemd/roced.service).\n"
    "\n"
    "  --config FILE        the configuration (default /etc/roced/roced.yaml, docs/config.md)\n"
    "  --sim DIR            manage the simulated node in DIR (roce-sim run --dir DIR)\n"
    "  --log-level LEVEL    trace debug info warn error critical off; wins over the file's\n"
    "                       daemon.log_level (default info)\n"
    "  --log-target TARGET  auto (default: the journal when stderr is connected to it),\n"
    "                       console (stderr) or journal\n"
    "  --no-dbus            do not offer the D-Bus API (io.roced.Daemon1, docs/dbus.md); without\n"
    "                       a system bus roced runs on without it anyway, saying so\n"
    "  --metrics-listen ADDRESS\n"
    "                       serve Prometheus metrics there (HOST:PORT, [IPV6]:PORT or :PORT);\n"
    "                       wins over the file's metrics.listen (default :9879, docs/metrics.md)\n"
    "  --no-metrics         do not serve metrics, whatever the file says\n"
    "  --watch-config       reload the configuration when the file changes, as on SIGHUP (for\n"
    "                       a Kubernetes ConfigMap, whose update no signal announces)\n"
    "  --check-config FILE  check FILE and exit: 0 valid (warnings allowed), 1 invalid; every\n"
    "                       problem is printed as file:line:column: field: ...\n"
    "  -h, --help           show this help\n"
    "  --version            print the version\n";

int usage_error(const std::string& message) {
  std::cerr << "roced: " << message << "\n\n" << kUsage;
  return 1;
}

int check_config(const std::string& path) {
  const roced::config::LoadResult loaded = roced::config::load_file(path);
  for (const auto& diagnostic : loaded.diagnostics) std::cerr << diagnostic.to_string() << "\n";
  if (!loaded.ok()) {
    std::cerr << path << ": invalid\n";
    return 1;
  }
  std::cout << path << ": valid (" << roced::config::describe_selection(*loaded.config) << ")\n";
  return 0;
}

struct Arguments {
  std::optional<std::string> check_config;
  roced::service::ServiceOptions service;
  std::string log_target = "auto";
  bool dbus = true;
  roced::telemetry::MetricsOptions metrics;
};

// `--name VALUE` or `--name=VALUE`; advances `i` past what it took. Sets `error` when the value
// is missing or empty.
bool take_option(const std::vector<std::string>& args, size_t& i, const std::string& name,
                 std::string& value, std::string& error) {
  const std::string& arg = args[i];
  if (arg == name) {
    if (i + 1 >= args.size() || args[i + 1].empty()) {
      error = name + " needs a value";
    } else {
      value = args[++i];
    }
    return true;
  }
  if (arg.rfind(name + "=", 0) == 0) {
    value = arg.substr(name.size() + 1);
    if (value.empty()) error = name + " needs a value";
    return true;
  }
  return false;
}

// nullopt when the arguments are good; otherwise the exit code (after --help or an error).
std::optional<int> parse(const std::vector<std::string>& args, Arguments& out) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    std::string error;
    if (args[i] == "-h" || args[i] == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (args[i] == "--version") {
      std::cout << "roced " << ROCED_VERSION << "\n";
      return 0;
    }
    if (take_option(args, i, "--check-config", value, error)) {
      if (!error.empty()) return usage_error("--check-config needs a file");
      out.check_config = value;
    } else if (take_option(args, i, "--config", value, error)) {
      if (!error.empty()) return usage_error("--config needs a file");
      out.service.config_path = value;
    } else if (take_option(args, i, "--sim", value, error)) {
      if (!error.empty()) return usage_error("--sim needs a directory");
      out.service.sim_dir = value;
    } else if (take_option(args, i, "--log-level", value, error)) {
      if (!error.empty() || !roced::log::parse_level(value)) {
        return usage_error("--log-level takes one of trace debug info warn error critical off");
      }
      out.service.log_level = value;
    } else if (take_option(args, i, "--log-target", value, error)) {
      if (!error.empty() || (value != "auto" && value != "console" && value != "journal")) {
        return usage_error("--log-target takes auto, console or journal");
      }
      out.log_target = value;
    } else if (take_option(args, i, "--metrics-listen", value, error)) {
      std::string problem;
      if (!error.empty()) return usage_error("--metrics-listen needs an address");
      if (!roced::config::parse_listen_address(value, problem)) {
        return usage_error("--metrics-listen: " + problem);
      }
      out.metrics.listen = value;
    } else if (args[i] == "--no-metrics") {
      out.metrics.disabled = true;
    } else if (args[i] == "--watch-config") {
      out.service.watch_config = true;
    } else if (args[i] == "--no-dbus") {
      out.dbus = false;
      out.service.on_bus = false;
    } else {
      return usage_error("unknown argument \"" + args[i] + "\"");
    }
  }
  const bool service_options = out.service.config_path != roced::service::kDefaultConfigPath ||
                               out.service.sim_dir || out.service.log_level ||
                               out.log_target != "auto" || !out.dbus || out.metrics.listen ||
                               out.metrics.disabled || out.service.watch_config;
  if (out.metrics.listen && out.metrics.disabled) {
    return usage_error("--metrics-listen and --no-metrics contradict each other");
  }
  if (out.check_config && service_options) {
    return usage_error("--check-config FILE takes no other options");
  }
  return std::nullopt;
}

using roced::service::Service;

std::unique_ptr<roced::module::Module> make_peer_watch(Service& service) {
  return std::make_unique<roced::lldp::PeerModule>(service.system(), service.reconciler());
}

std::unique_ptr<roced::module::Module> make_storm_watchdog(Service& service) {
  const auto* peers = service.modules().find<roced::lldp::PeerModule>();
  return std::make_unique<roced::watchdog::StormModule>(
      service.system(), service.reconciler(), service.stats_poller(), service.config(),
      [peers](const std::string& netdev) {
        return peers != nullptr ? peers->switch_port(netdev) : std::string();
      });
}

std::unique_ptr<roced::module::Module> make_metrics(Service& service,
                                                    roced::telemetry::MetricsOptions options) {
  options.version = ROCED_VERSION;
  return std::make_unique<roced::telemetry::MetricsModule>(
      service.system(), service.reconciler(), service.stats_poller(), service.config(),
      std::move(options), [&service] { return service.collectors(); });
}

std::unique_ptr<roced::module::Module> make_dbus(Service& service) {
  namespace fs = std::filesystem;
  const auto& options = service.options();
  std::error_code ec;
  roced::dbus::DaemonInfo info;
  info.version = ROCED_VERSION;
  info.config_path = fs::absolute(options.config_path, ec).string();
  if (options.sim_dir) info.sim_dir = fs::weakly_canonical(*options.sim_dir, ec).string();
  info.source = service.source();
  info.reload = [&service] { return service.reload(); };
  info.status_line = [&service] { return service.status_text(); };
  info.pending_plan = [&service] {
    Service::Pending pending = service.pending();
    roced::dbus::PendingPlan out;
    for (const auto& diagnostic : pending.loaded.diagnostics) {
      out.diagnostics.push_back(diagnostic.to_string());
    }
    out.valid = pending.loaded.ok();
    for (const auto section : pending.changed) {
      out.changed_sections.emplace_back(roced::module::kSectionNames.name(section));
    }
    out.plan = std::move(pending.plan);
    return out;
  };
  info.findings = [&service] { return service.modules().findings(); };
  if (auto* storms = service.modules().find<roced::watchdog::StormModule>()) {
    info.storms = &storms->watchdog();
  }
  if (auto* peers = service.modules().find<roced::lldp::PeerModule>()) {
    info.peers = &peers->watch();
  }
  return std::make_unique<roced::dbus::DbusModule>(service.reconciler(), std::move(info));
}

}  // namespace

int main(int argc, char** argv) {
  // Two malloc arenas, not glibc's eight a core: a port's worker thread lives for one check, and
  // each new arena it touches stays resident afterwards. roced's threads allocate little and
  // seldom at once.
  mallopt(M_ARENA_MAX, 2);
  Arguments arguments;
  if (auto exit_code = parse(std::vector<std::string>(argv + 1, argv + argc), arguments)) {
    return *exit_code;
  }
  if (arguments.check_config) return check_config(*arguments.check_config);

  using roced::log::Target;
  const Target target = arguments.log_target == "journal"   ? Target::Journal
                        : arguments.log_target == "console" ? Target::Console
                        : roced::log::stderr_is_journal()   ? Target::Journal
                                                            : Target::Console;
  // Until the configuration is read, --log-level or info; then daemon.log_level unless given.
  roced::log::setup(target, roced::log::parse_level(arguments.service.log_level.value_or("info"))
                                .value_or(spdlog::level::info));
  try {
    // First, before any thread exists: it blocks the signals it serves.
    Service service(arguments.service);
    // Each module, in the order they start within their stage (module.hpp): one line each.
    service.add(make_peer_watch);
    service.add(make_storm_watchdog);
    service.add([](Service& s) {
      return std::make_unique<roced::health::HealthModule>(s.system(), s.reconciler(),
                                                           *s.stats_poller(), s.config().health);
    });
    service.add([](Service& s) {
      return std::make_unique<roced::probe_module::ProbeModule>(s.system(), s.reconciler(),
                                                                s.config().probe);
    });
    service.add([&arguments](Service& s) { return make_metrics(s, arguments.metrics); });
    if (arguments.dbus) service.add(make_dbus);
    return service.run();
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 1;
  }
}
