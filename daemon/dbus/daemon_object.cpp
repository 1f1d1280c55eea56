// SPDX-License-Identifier: Apache-2.0
// io.roced.Daemon1's methods, properties and signals (docs/dbus.md). Big documents (status, plan,
// apply result) go as JSON strings, the shapes `rocectl --json` already prints; small things
// (names, settings, ok, diagnostics) are typed D-Bus values.
#include "daemon/dbus/daemon_object.hpp"

#include <sdbus-c++/sdbus-c++.h>

#include <tuple>

#include "daemon/apply/applier.hpp"
#include "daemon/dbus/names.hpp"
#include "daemon/dbus/sdbus_compat.hpp"
#include "daemon/dbus/status_document.hpp"
#include "daemon/lldp/peer_json.hpp"
#include "daemon/plan/plan.hpp"
#include "daemon/watchdog/storm_json.hpp"

namespace roced::dbus {

namespace {

// Runs `work` on the worker and sends its result (a tuple of the method's outputs) or its error
// from the bus thread: the caller's reply waits, other callers do not.
template <class... Results, class Work>
void defer(BusLoop& loop, WorkQueue& queue, sdbus::Result<Results...>&& result, Work work) {
  auto call = std::make_shared<sdbus::Result<Results...>>(std::move(result));
  queue.push([&loop, call, work = std::move(work)]() mutable {
    std::function<void()> reply;
    try {
      reply = [call, values = work()] {
        std::apply([&](const auto&... v) { call->returnResults(v...); }, values);
      };
    } catch (const sdbus::Error& e) {
      reply = [call, e] { call->returnError(e); };
    } catch (const std::exception& e) {
      reply = [call, message = std::string(e.what())] {
        call->returnError(bus_error(kErrorFailed, message));
      };
    }
    loop.post(std::move(reply));
  });
}

}  // namespace

DaemonObject::DaemonObject(sdbus::IConnection& connection, BusLoop& loop, WorkQueue& work,
                           reconcile::Reconciler& reconciler, DaemonInfo info)
    : loop_(loop),
      work_(work),
      reconciler_(reconciler),
      info_(std::move(info)),
      object_(make_object(connection, kObjectPath)) {
  VTable vtable(*object_, kInterface);
  register_methods(vtable);
  register_properties(vtable);
  register_signals(vtable);
  vtable.finish();
}

DaemonObject::~DaemonObject() { object_->unregister(); }

void DaemonObject::register_methods(VTable& vtable) {
  ROCED_DBUS_DECLARE(vtable, Method, "GetStatus")
      .withOutputParamNames("status_json")
      .implementedAs([this] { return get_status(); });
  ROCED_DBUS_DECLARE(vtable, Method, "GetStorms")
      .withOutputParamNames("storms_json")
      .implementedAs([this] { return get_storms(); });
  ROCED_DBUS_DECLARE(vtable, Method, "GetPlan")
      .withOutputParamNames("plan_json")
      .implementedAs([this](sdbus::Result<std::string>&& result) {
        defer(loop_, work_, std::move(result), [this] { return std::tuple(get_plan()); });
      });
  ROCED_DBUS_DECLARE(vtable, Method, "GetPendingPlan")
      .withOutputParamNames("plan_json", "changed_sections")
      .implementedAs([this](sdbus::Result<std::string, std::vector<std::string>>&& result) {
        defer(loop_, work_, std::move(result), [this] { return get_pending_plan(); });
      });
  ROCED_DBUS_DECLARE(vtable, Method, "Apply")
      .withOutputParamNames("result_json")
      .implementedAs([this](sdbus::Result<std::string>&& result) {
        require_root();
        defer(loop_, work_, std::move(result), [this] { return std::tuple(apply()); });
      });
  ROCED_DBUS_DECLARE(vtable, Method, "Reload")
      .withOutputParamNames("ok", "diagnostics")
      .implementedAs([this](sdbus::Result<bool, std::vector<std::string>>&& result) {
        require_root();
        defer(loop_, work_, std::move(result), [this] { return reload(); });
      });
}

void DaemonObject::register_properties(VTable& vtable) {
  // Fixed for the daemon's life: a reload re-reads the same file.
  const auto fixed = sdbus::Flags::CONST_PROPERTY_VALUE;
  ROCED_DBUS_DECLARE(vtable, Property, "Version")
      .withGetter([this] { return info_.version; })
      .withUpdateBehavior(fixed);
  ROCED_DBUS_DECLARE(vtable, Property, "ConfigPath")
      .withGetter([this] { return info_.config_path; })
      .withUpdateBehavior(fixed);
  ROCED_DBUS_DECLARE(vtable, Property, "SimDir")
      .withGetter([this] { return info_.sim_dir; })
      .withUpdateBehavior(fixed);
  ROCED_DBUS_DECLARE(vtable, Property, "Source")
      .withGetter([this] { return info_.source; })
      .withUpdateBehavior(fixed);
  // Changes all the time; the Port* signals say when something worth knowing happened.
  ROCED_DBUS_DECLARE(vtable, Property, "StatusLine")
      .withGetter([this] { return status_line(); })
      .withUpdateBehavior(sdbus::Flags::EMITS_NO_SIGNAL);
}

void DaemonObject::register_signals(VTable& vtable) {
  ROCED_DBUS_DECLARE(vtable, Signal, "PortDrifted")
      .withParameters<std::string, std::vector<std::string>>("netdev", "settings");
  ROCED_DBUS_DECLARE(vtable, Signal, "PortCorrected")
      .withParameters<std::string, std::vector<std::string>>("netdev", "settings");
  ROCED_DBUS_DECLARE(vtable, Signal, "PortAppeared").withParameters<std::string>("netdev");
  ROCED_DBUS_DECLARE(vtable, Signal, "PortVanished").withParameters<std::string>("netdev");
  ROCED_DBUS_DECLARE(vtable, Signal, "ApplyFailed")
      .withParameters<std::string, std::string>("netdev", "message");
  ROCED_DBUS_DECLARE(vtable, Signal, "StormDetected")
      .withParameters<std::string, uint32_t, std::string, double, std::string>(
          "netdev", "priority", "direction", "latency_seconds", "message");
  ROCED_DBUS_DECLARE(vtable, Signal, "StormRemediated")
      .withParameters<std::string, uint32_t, std::string, std::string, std::string>(
          "netdev", "priority", "direction", "action", "message");
  ROCED_DBUS_DECLARE(vtable, Signal, "StormRestored")
      .withParameters<std::string, uint32_t, std::string, double, std::string>(
          "netdev", "priority", "direction", "duration_seconds", "message");
  ROCED_DBUS_DECLARE(vtable, Signal, "StormEscalated")
      .withParameters<std::string, uint32_t, std::string, std::string, bool, std::string>(
          "netdev", "priority", "direction", "reason", "critical", "message");
}

void DaemonObject::emit(const watchdog::StormNotice& notice) {
  using Kind = watchdog::StormNotice::Kind;
  const auto priority = static_cast<uint32_t>(notice.priority);
  const std::string direction(roced::direction_name(notice.direction));
  const auto seconds = [](auto duration) {
    return std::chrono::duration<double>(duration).count();
  };
  switch (notice.kind) {
    case Kind::Detected:
      object_->emitSignal("StormDetected")
          .onInterface(kInterface)
          .withArguments(notice.netdev, priority, direction, seconds(notice.latency),
                         notice.message);
      return;
    case Kind::Remediated:
      object_->emitSignal("StormRemediated")
          .onInterface(kInterface)
          .withArguments(notice.netdev, priority, direction, notice.action, notice.message);
      return;
    case Kind::Restored:
      object_->emitSignal("StormRestored")
          .onInterface(kInterface)
          .withArguments(notice.netdev, priority, direction, seconds(notice.duration),
                         notice.message);
      return;
    case Kind::Escalated:
      object_->emitSignal("StormEscalated")
          .onInterface(kInterface)
          .withArguments(notice.netdev, priority, direction, notice.reason, notice.critical,
                         notice.message);
      return;
    case Kind::Acted:
    case Kind::Unverified:
    case Kind::Released:
      return;  // log lines; the signals say what a listener acts on
  }
}

void DaemonObject::emit(const reconcile::PortEvent& event) {
  using Kind = reconcile::PortEvent::Kind;
  switch (event.kind) {
    case Kind::Drifted:
      object_->emitSignal("PortDrifted")
          .onInterface(kInterface)
          .withArguments(event.netdev, event.settings);
      return;
    case Kind::Corrected:
      object_->emitSignal("PortCorrected")
          .onInterface(kInterface)
          .withArguments(event.netdev, event.settings);
      return;
    case Kind::Appeared:
      object_->emitSignal("PortAppeared").onInterface(kInterface).withArguments(event.netdev);
      return;
    case Kind::Vanished:
      object_->emitSignal("PortVanished").onInterface(kInterface).withArguments(event.netdev);
      return;
    case Kind::ApplyFailed:
      object_->emitSignal("ApplyFailed")
          .onInterface(kInterface)
          .withArguments(event.netdev, event.message);
      return;
  }
}

void DaemonObject::require_root() const {
  const std::optional<CurrentCall> call = current_call(*object_);
  if (!call || call->uid != 0) {
    const std::string member = call ? call->member : "this method";
    throw bus_error(kErrorAccessDenied, "only root may call " + member + " on " + kBusName);
  }
}

std::string DaemonObject::status_line() const {
  return info_.status_line ? info_.status_line() : reconciler_.status_line();
}

std::string DaemonObject::get_status() const {
  std::map<std::string, lldp::PortPeer> peers;
  if (info_.peers != nullptr) {
    for (auto& peer : info_.peers->snapshot()) peers[peer.netdev] = std::move(peer);
  }
  return status_to_json(info_, status_line(), reconciler_.snapshot(),
                        reconciler_.selection_report(), peers,
                        info_.findings ? info_.findings() : std::vector<finding::Finding>{})
      .dump();
}

std::string DaemonObject::get_storms() const {
  if (info_.storms == nullptr) {
    watchdog::WatchdogSettings off = reconciler_.config().watchdog;
    off.enabled = false;  // the daemon runs without one (a test's): it does not run
    return watchdog::storms_to_json(off, {}).dump();
  }
  const watchdog::WatchdogSettings settings = info_.storms->settings();
  if (!settings.enabled) return watchdog::storms_to_json(settings, {}).dump();  // nothing watched
  return watchdog::storms_to_json(settings, info_.storms->stats()).dump();
}

std::string DaemonObject::get_plan() {
  const plan::Plan plan = reconciler_.current_plan();
  return plan::plan_to_json(plan).dump();
}

std::tuple<std::string, std::vector<std::string>> DaemonObject::get_pending_plan() {
  if (!info_.pending_plan) return {get_plan(), {}};
  const PendingPlan pending = info_.pending_plan();
  if (!pending.valid) {
    std::string problems;
    for (const auto& line : pending.diagnostics) problems += (problems.empty() ? "" : "\n") + line;
    throw bus_error(kErrorInvalidConfig, problems);
  }
  return {plan::plan_to_json(pending.plan).dump(), pending.changed_sections};
}

std::string DaemonObject::apply() {
  const apply::ApplyResult result = reconciler_.apply_now();
  apply::ApplyContext context;
  context.source = info_.source;
  context.config_path = info_.config_path;
  return apply::apply_document(context, result).dump();
}

std::pair<bool, std::vector<std::string>> DaemonObject::reload() {
  const reconcile::ReloadResult result =
      info_.reload ? info_.reload() : reconciler_.reload(info_.config_path);
  std::vector<std::string> diagnostics;
  for (const auto& diagnostic : result.diagnostics) diagnostics.push_back(diagnostic.to_string());
  return {result.ok, std::move(diagnostics)};
}

}  // namespace roced::dbus
