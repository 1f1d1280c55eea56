// SPDX-License-Identifier: Apache-2.0
#pragma once
// A part of the running daemon: the reconciler, the storm watchdog, the peer watch, the metrics
// endpoint, the D-Bus API, and whatever comes next. The service holds them in a ModuleSet,
// starts them in order, hands each the configuration sections it takes on a reload, asks them
// whether their loops are alive, and serves their findings and metric families. A new module is
// its own folder and one line that adds it to the service.

#include <chrono>
#include <memory>
#include <string_view>
#include <vector>

#include "daemon/config/config.hpp"
#include "finding/finding.hpp"
#include "telemetry/collector.hpp"

namespace roced::module {

// One loaded, validated configuration; a reload makes a new one, never changes one.
using Snapshot = std::shared_ptr<const config::Config>;

// The configuration's top-level sections, as a module names those it takes.
enum class Section { Daemon, Metrics, Watchdog, Health, Probe, Ports, Profile, Overrides };
inline constexpr auto kSectionNames = enum_names<Section>({{Section::Daemon, "daemon"},
                                                           {Section::Metrics, "metrics"},
                                                           {Section::Watchdog, "watchdog"},
                                                           {Section::Health, "health"},
                                                           {Section::Probe, "probe"},
                                                           {Section::Ports, "ports"},
                                                           {Section::Profile, "profile"},
                                                           {Section::Overrides, "overrides"}});
static_assert(kSectionNames.covers<Section::Overrides>(), "name every Section");

// When a module starts, relative to the ports' first check (the reconciler's, which may take
// seconds per port while links retrain): listening parts that must not miss what the first
// apply makes happen start before it; the watching and serving parts (the storm watchdog, the
// endpoint, the bus) start once the ports are known, while their first check goes on, so that
// nothing is blind or unreachable during it. READY=1 waits for every module's ready().
enum class Stage { BeforePorts, Ports, AfterPorts };

class Module : public telemetry::Collector {
 public:
  // "reconciler", "storm-watchdog", "peer-watch", "metrics", "dbus": log lines and tests.
  virtual std::string_view name() const = 0;
  virtual Stage stage() const { return Stage::AfterPorts; }
  // The sections whose change a reload hands to reconfigure().
  virtual std::vector<Section> sections() const = 0;

  // Starts its threads; returns once it runs (the reconciler: once its ports are known and
  // their first checks under way).
  virtual void start() = 0;
  // Returns once what it first has to do is done (the reconciler: every port checked once), or
  // it was stopped: the service says READY=1 after every module's.
  virtual void wait_ready() {}
  // Stops and joins its threads; idempotent. Modules stop in the reverse of their start order.
  virtual void stop() = 0;
  // A reload changed one of sections(): take `after` from now on (`before` says what changed).
  // Said here, in the module, is what the change does; the store has already logged which
  // sections changed.
  virtual void reconfigure(const config::Config& before, const config::Config& after) = 0;

  // False once its loops stopped making progress: systemd's watchdog is then starved.
  virtual bool healthy(std::chrono::steady_clock::time_point now) const {
    (void)now;
    return true;
  }
  // What it finds not as it should be now, each naming its port as subject; the status document
  // lists them under the port.
  virtual std::vector<finding::Finding> findings() const { return {}; }
  // Its metric families (none by default).
  void collect(telemetry::ExpositionWriter& out) override { (void)out; }
};

}  // namespace roced::module
