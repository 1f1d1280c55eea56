// SPDX-License-Identifier: Apache-2.0
// Finding and calling roced over D-Bus (docs/dbus.md, "rocectl").
#include "cli/dbus_client.hpp"

#include <sdbus-c++/sdbus-c++.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <thread>

#include "daemon/dbus/names.hpp"
#include "daemon/dbus/sdbus_compat.hpp"

namespace roced::cli {

namespace {

using namespace std::chrono_literals;

// Generous: a GetPlan reads every port, an Apply may wait for link flaps and retries.
constexpr auto kReadTimeout = 60s;
constexpr auto kApplyTimeout = 10min;
constexpr auto kAskTimeout = 5s;  // NameHasOwner and the properties
// How long a roced that holds the node's lock gets to claim its bus name: it does once its
// configuration is read and its ports listed, a second or two after it starts.
constexpr auto kStartPatience = 30s;

std::string canonical(const std::string& path) {
  std::error_code error;
  const auto resolved = std::filesystem::weakly_canonical(path, error);
  return error ? path : resolved.string();
}

std::string string_property(sdbus::IProxy& proxy, const std::string& name) {
  return proxy.getProperty(name).onInterface(dbus::kInterface).get<std::string>();
}

}  // namespace

DaemonClient::DaemonClient(std::unique_ptr<sdbus::IConnection> connection, Properties properties)
    : connection_(std::move(connection)),
      proxy_(dbus::make_proxy(*connection_, dbus::kBusName, dbus::kObjectPath)),
      properties_(std::move(properties)) {}

DaemonClient::~DaemonClient() = default;

std::string DaemonClient::get_status() {
  std::string json;
  proxy_->callMethod("GetStatus")
      .onInterface(dbus::kInterface)
      .withTimeout(kReadTimeout)
      .storeResultsTo(json);
  return json;
}

std::string DaemonClient::get_plan() {
  std::string json;
  proxy_->callMethod("GetPlan")
      .onInterface(dbus::kInterface)
      .withTimeout(kReadTimeout)
      .storeResultsTo(json);
  return json;
}

DaemonClient::PendingPlan DaemonClient::get_pending_plan() {
  PendingPlan pending;
  proxy_->callMethod("GetPendingPlan")
      .onInterface(dbus::kInterface)
      .withTimeout(kReadTimeout)
      .storeResultsTo(pending.plan_json, pending.changed_sections);
  return pending;
}

std::string DaemonClient::apply() {
  std::string json;
  proxy_->callMethod("Apply")
      .onInterface(dbus::kInterface)
      .withTimeout(kApplyTimeout)
      .storeResultsTo(json);
  return json;
}

std::pair<bool, std::vector<std::string>> DaemonClient::reload() {
  bool ok = false;
  std::vector<std::string> diagnostics;
  proxy_->callMethod("Reload")
      .onInterface(dbus::kInterface)
      .withTimeout(kApplyTimeout)
      .storeResultsTo(ok, diagnostics);
  return {ok, std::move(diagnostics)};
}

namespace {

// The roced on the system bus, with its properties; `choice.why_direct` says why not.
DaemonChoice ask_bus(const std::function<std::string(const DaemonClient::Properties&)>& refuse) {
  DaemonChoice choice;
  try {
    auto connection = sdbus::createSystemBusConnection();
    auto bus = dbus::make_proxy(*connection, "org.freedesktop.DBus", "/org/freedesktop/DBus");
    bool owned = false;
    bus->callMethod("NameHasOwner")
        .onInterface("org.freedesktop.DBus")
        .withTimeout(kAskTimeout)
        .withArguments(std::string(dbus::kBusName))
        .storeResultsTo(owned);
    if (!owned) {
      choice.why_direct = "no roced on the system bus";
      choice.owned_by_none = true;
      return choice;
    }
    auto daemon = dbus::make_proxy(*connection, dbus::kBusName, dbus::kObjectPath);
    DaemonClient::Properties properties{
        string_property(*daemon, "Version"), string_property(*daemon, "ConfigPath"),
        string_property(*daemon, "SimDir"), string_property(*daemon, "Source")};
    daemon.reset();
    if (std::string why = refuse(properties); !why.empty()) {
      choice.why_direct = std::move(why);
      return choice;
    }
    choice.daemon = std::make_unique<DaemonClient>(std::move(connection), std::move(properties));
  } catch (const std::exception& e) {
    // No system bus, or a daemon that does not answer as expected: the ports themselves still do.
    choice.why_direct = std::string("cannot ask the system bus: ") + e.what();
  }
  return choice;
}

}  // namespace

DaemonChoice find_daemon(const Context& context, bool direct,
                         const std::optional<std::string>& config) {
  const std::optional<LockHolder> holder = lock_holder(node_lock_path(context.sim_dir));
  if (direct) {
    DaemonChoice choice;
    choice.why_direct = "--direct";
    choice.running = holder;
    return choice;
  }
  const auto refuse = [&](const DaemonClient::Properties& properties) -> std::string {
    const std::string wanted_node = context.sim_dir ? canonical(*context.sim_dir) : "";
    const std::string daemon_node = properties.sim_dir.empty() ? "" : canonical(properties.sim_dir);
    if (wanted_node != daemon_node) return "the running roced serves " + properties.source;
    if (config && canonical(*config) != canonical(properties.config_path)) {
      return "the running roced uses " + properties.config_path;
    }
    return {};
  };
  DaemonChoice choice = ask_bus(refuse);
  if (!choice.daemon && holder && holder->on_bus && choice.owned_by_none) {
    std::cerr << "rocectl: roced (pid " << holder->pid
              << ") runs for this node and is not on the system bus yet; waiting for it\n";
    const auto give_up = std::chrono::steady_clock::now() + kStartPatience;
    while (!choice.daemon && choice.owned_by_none && std::chrono::steady_clock::now() < give_up &&
           lock_holder(node_lock_path(context.sim_dir))) {
      std::this_thread::sleep_for(100ms);
      choice = ask_bus(refuse);
    }
  }
  if (!choice.daemon) choice.running = lock_holder(node_lock_path(context.sim_dir));
  return choice;
}

std::optional<int> refuse_direct_beside_roced(const DaemonChoice& choice, bool direct) {
  if (choice.daemon || !choice.running) return std::nullopt;
  const std::string who = "roced (pid " + std::to_string(choice.running->pid) + ")";
  if (direct) {
    std::cerr << "rocectl: warning: " << who
              << " runs for this node: these writes are not paced with its own "
                 "(daemon.disruptive_ports_at_once), and under drift_policy enforce it puts back "
                 "what differs from its configuration\n";
    return std::nullopt;
  }
  std::cerr << "rocectl: " << who << " runs for this node but rocectl cannot apply through it ("
            << choice.why_direct
            << "); writing the ports beside it would not be paced with its own changes. Apply "
               "through it (rocectl apply, with its --config), stop it, or add --direct\n";
  return kExitError;
}

DaemonChoice find_any_daemon() {
  return ask_bus([](const DaemonClient::Properties&) { return std::string(); });
}

void note_daemon_path(const DaemonClient& daemon) {
  std::cerr << "rocectl: from roced " << daemon.properties().version << " over D-Bus (config "
            << daemon.properties().config_path << "); --direct to use the ports yourself\n";
}

int daemon_error(const std::exception& error) {
  if (const auto* bus_error = dynamic_cast<const sdbus::Error*>(&error)) {
    std::cerr << "rocectl: roced: " << bus_error->getMessage() << " (" << bus_error->getName()
              << ")\n";
  } else {
    std::cerr << "rocectl: roced: " << error.what() << "\n";
  }
  return kExitError;
}

}  // namespace roced::cli
