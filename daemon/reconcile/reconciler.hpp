// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reconciler: keeps every selected port matching the config for as long as roced runs.
// Each port has its own worker, woken by netlink events (RTNLGRP_LINK, RTNLGRP_DCB), the periodic
// drift check, a reload or an Apply request, so work (and retries) for one port never blocks the
// others. A worker re-plans its port (daemon/plan) and, when it differs, applies
// (daemon/apply) under `enforce` or only reports under `report`.

#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/apply/applier.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "daemon/reconcile/remediation.hpp"
#include "os/system.hpp"
#include "util/enum_names.hpp"
#include "util/time_source.hpp"

namespace roced::reconcile {

enum class PortCondition {
  Pending,  // seen, not yet checked
  InSync,   // the last check found nothing to change
  // As InSync, but in the storm watchdog's safe state (PFC off on a priority, a tight stall
  // prevention): the profile's promise does not hold until the hold is released.
  Held,
  Drifted,   // differs from the config (under `report`, or before the correction lands)
  Applying,  // a correction is being written
  Failed,    // the last apply rolled back or the port could not be read; retried with backoff
  Vanished,  // the netdev is gone; forgotten until it returns
};
inline constexpr auto kConditionNames = enum_names<PortCondition>({
    {PortCondition::Pending, "pending"},
    {PortCondition::InSync, "in-sync"},
    {PortCondition::Held, "held"},
    {PortCondition::Drifted, "drifted"},
    {PortCondition::Applying, "applying"},
    {PortCondition::Failed, "failed"},
    {PortCondition::Vanished, "vanished"},
});
static_assert(kConditionNames.covers<PortCondition::Vanished>(), "name every PortCondition");
std::string condition_name(PortCondition condition);  // "pending", "in-sync", "drifted", ...

using Clock = std::chrono::system_clock;

// What roced did to a port since it started (kept across the port vanishing and returning), for
// the metrics' counters. Settings are grouped by plan::setting_group_name ("pfc.priorities").
struct PortCounters {
  uint64_t applies_ok = 0;      // applies that verified (first configuration, corrections, Apply)
  uint64_t applies_failed = 0;  // applies that rolled back or failed
  std::map<std::string, uint64_t> drifts;       // drift found after the port was configured
  std::map<std::string, uint64_t> corrections;  // drift corrected
};

struct PortSnapshot {
  DiscoveredPort port;
  // The storm watchdog's hold: part of the wanted state while it lasts.
  Remediation remediation;
  PortCounters counters;
  PortCondition condition = PortCondition::Pending;
  plan::PortPlan last_plan;  // the latest check's plan: per setting what drifted
  // Shared, never changed once made: a snapshot (taken on every scrape) copies no steps.
  std::shared_ptr<const apply::PortResult> last_apply;
  std::optional<Clock::time_point> last_check;
  std::optional<Clock::time_point> last_apply_time;
  // The same instant on the steady clock, which the counters' readings are stamped with.
  std::optional<TimeSource::TimePoint> last_apply_at;
  int consecutive_failures = 0;
  std::optional<Clock::time_point> next_retry;
};

// A port and its condition alone: what a caller that polls the port list needs, without the
// copy of each port's plan and counters a snapshot makes.
struct ManagedPort {
  DiscoveredPort port;
  PortCondition condition = PortCondition::Pending;
};

// What the daemon announces (D-Bus signals, log lines).
struct PortEvent {
  enum class Kind { Appeared, Vanished, Drifted, Corrected, ApplyFailed } kind;
  std::string netdev;
  std::vector<std::string> settings;  // setting_name()s that drifted / were corrected
  std::string message;                // one human line
};
inline constexpr auto kEventKindNames = enum_names<PortEvent::Kind>({
    {PortEvent::Kind::Appeared, "appeared"},
    {PortEvent::Kind::Vanished, "vanished"},
    {PortEvent::Kind::Drifted, "drifted"},
    {PortEvent::Kind::Corrected, "corrected"},
    {PortEvent::Kind::ApplyFailed, "apply-failed"},
});
static_assert(kEventKindNames.covers<PortEvent::Kind::ApplyFailed>(), "name every event Kind");
std::string event_kind_name(PortEvent::Kind kind);  // "appeared", "vanished", ...

// Until daemon/log exists the reconciler logs through this sink (nothing when unset). `netdev`
// and `setting` are empty when the line is not about one. Called from the reconciler's threads.
enum class LogLevel { Debug, Info, Warn, Error };
using LogSink = std::function<void(LogLevel level, const std::string& netdev,
                                   const std::string& setting, const std::string& message)>;

struct ReconcilerOptions {
  apply::ApplyOptions apply;
  LogSink log;
  // A finding as it appears (the journal gets its id); through `log` when unset.
  std::function<void(const finding::Finding&)> log_finding;
  std::chrono::milliseconds first_retry{std::chrono::seconds(1)};  // doubles per failure
  std::chrono::milliseconds max_retry{std::chrono::minutes(5)};
  // Events arrive in bursts (a PFC change sends DCB and link notifications): wait this long
  // after the first before re-reading, so one burst costs one check.
  std::chrono::milliseconds event_settle{std::chrono::milliseconds(50)};
  // healthy() is false once a thread has shown no progress for this long (an apply that hangs
  // longer than this is a hang).
  std::chrono::milliseconds health_window{std::chrono::seconds(30)};
  // The clock of the drift timer, event settling, retry backoff and the snapshots' times.
  TimeSource* time = &real_time();
};

struct ReloadResult {
  bool ok = false;
  std::vector<config::Diagnostic> diagnostics;  // why not, when !ok; warnings otherwise
};

// What the configuration's port selection leaves out.
struct SelectionReport {
  std::vector<std::string> unmatched;      // ports.netdevs entries that select nothing, in words
  std::vector<DiscoveredPort> other_rdma;  // RDMA ports of drivers not in ports.drivers
};

class Reconciler {
 public:
  Reconciler(System& system, config::Config config, ReconcilerOptions options = {});
  ~Reconciler();  // stop()
  Reconciler(const Reconciler&) = delete;
  Reconciler& operator=(const Reconciler&) = delete;

  // Subscribes to netlink events, discovers the selected ports, starts their workers and returns
  // once each has been checked (and applied, under enforce) once: the moment for READY=1.
  // begin() then wait_first_checks().
  void start();
  // The first half of start(): returns as soon as the workers run, their first checks under way,
  // so that what watches the node (the storm watchdog, the endpoint, the bus) can start before
  // the first apply ends: it may take a minute on a node whose links train one at a time.
  void begin();
  // The second half: until every port was checked once (or stop()).
  void wait_first_checks();
  // Lets in-flight applies finish (each port ends as it was or as wanted, never half-done), then
  // joins every thread. Idempotent.
  void stop();

  // Loads `path`; on success swaps the config and re-checks every port; on failure keeps the
  // running config and returns the diagnostics.
  ReloadResult reload(const std::string& path);
  ReloadResult reload(config::Config config);

  // A fresh plan of every selected port (reads the ports; writes nothing).
  plan::Plan current_plan();
  // The same for `config` instead of the running one (a file not reloaded yet), the storm
  // watchdog's holds kept: what taking it would change.
  plan::Plan plan_of(const config::Config& config);
  // Checks and applies every port now, whatever the drift policy, and waits for the result.
  apply::ApplyResult apply_now();
  // The storm watchdog's hold on `netdev` from now on (Remediation{} releases it), applied at
  // once by the port's worker (PortWorker::request_remediation). The hold lasts as long as that
  // worker: a port that vanishes (driver reload) comes back without it. On a port roced does not
  // manage (now) a hold answers Unreadable, a release InSync (nothing holds it).
  std::future<apply::PortResult> remediate(const std::string& netdev, Remediation remediation);

  // Something suggests the port changed though no notification said so (mlx5's firmware DCBX
  // agent never notifies; its PFC change shows as another ethtool string set): re-read it soon,
  // as for a DCB notification.
  void check_soon(const std::string& netdev);

  std::vector<PortSnapshot> snapshot() const;
  std::vector<ManagedPort> ports() const;  // unsorted
  config::Config config() const;
  std::shared_ptr<const config::Config> shared_config() const;
  // What the selection leaves out; lists /sys/class/net (reads no port).
  SelectionReport selection_report() const;
  // The loops are alive: the event thread and every worker made progress recently. Drives the
  // systemd watchdog.
  bool healthy() const;
  // A short line for systemd STATUS=: "4 ports: 4 in sync" / "applying lan3".
  std::string status_line() const;

  // Called from the reconciler's threads; keep it short and thread-safe.
  void on_event(std::function<void(const PortEvent&)> listener);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace roced::reconcile
