// SPDX-License-Identifier: Apache-2.0
#pragma once
// What roced does about the storms the loop detects. Per the action configured for the storm's
// direction it holds the port in a safe state through the reconciler — PFC off on the priority
// (disable-pfc), or a tighter stall-prevention timeout (stall-prevention, TX) — so the write takes
// the configuration's own plan, apply, read-back and rollback, and the reconciler wants the hold
// while it lasts instead of "correcting" it. Then:
//   - the remediation is verified: the storm's signal must stop within verify_polls polls, else
//     it is escalated (never reported handled); where the counters cannot tell (an RX storm on a
//     port that sends nothing) it says so at warning, and neither escalates nor claims success;
//   - the hold is released when the storm is restored (restoration_time without a pause frame);
//   - an action that cannot be applied is escalated;
//   - at most max_actions_per_hour actions per port: the action that spends the budget leaves the
//     port held in its safe state past the storm's end (escalated, critical) until the budget
//     allows an action again and the storm has stayed away; a storm detected while the budget is
//     spent is escalated and left as it is.
// A TX storm the NIC's own stall prevention already stopped (by_nic) needs no action.
//
// Runs on the storm loop's thread (StormHandler). snapshot() and on_notice() may be used from any
// thread; listeners are called on the loop's thread.

#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "daemon/apply/applier.hpp"
#include "daemon/reconcile/remediation.hpp"
#include "daemon/watchdog/storm_loop.hpp"
#include "daemon/watchdog/storm_stats.hpp"
#include "util/enum_names.hpp"
#include "watchdog/action_budget.hpp"
#include "watchdog/settings.hpp"

namespace roced::watchdog {

using watchdog::Clock;
using watchdog::Direction;

// What happened, for the log, the D-Bus signals and the tests.
struct StormNotice {
  enum class Kind {
    Detected,    // StormDetected
    Acted,       // the action is applied and verification begins (a log line)
    Remediated,  // StormRemediated: the action verifiably stopped the storm's signal
    // The action is in effect but its effect cannot be told (an idle port under an RX storm):
    // a log line at warning, no escalation.
    Unverified,
    Restored,   // StormRestored: the storm ended; its hold released (unless held)
    Released,   // a hold kept past its storm (budget spent) is released (a log line)
    Escalated,  // StormEscalated: see `reason`
  } kind = Kind::Detected;
  std::string netdev;
  int priority = 0;
  Direction direction = Direction::rx;
  std::string action;  // "alert", "disable-pfc", "stall-prevention", "none" (the NIC acted)
  // Escalated: "remediation-failed" (the signal did not stop), "action-failed" (the hold could
  // not be applied or released), "budget-spent" (the port is held, or a storm is left as is).
  std::string reason;
  bool critical = false;
  Clock::time_point at;         // the poll that saw it (Detected, Remediated, Restored, Escalated)
  Clock::duration interval{0};  // that poll's measured interval
  Clock::duration latency{0};   // Detected: from the onset the counters show
  Clock::duration duration{0};  // Restored: onset to the last pause
  std::string message;          // one line, with the counter evidence
};
inline constexpr auto kNoticeKindNames = enum_names<StormNotice::Kind>({
    {StormNotice::Kind::Detected, "detected"},
    {StormNotice::Kind::Acted, "acted"},
    {StormNotice::Kind::Remediated, "remediated"},
    {StormNotice::Kind::Unverified, "unverified"},
    {StormNotice::Kind::Restored, "restored"},
    {StormNotice::Kind::Released, "released"},
    {StormNotice::Kind::Escalated, "escalated"},
});
static_assert(kNoticeKindNames.covers<StormNotice::Kind::Escalated>(), "name every notice Kind");
std::string_view notice_kind_name(StormNotice::Kind kind);  // "detected", "acted", ...

class Remediator final : public StormHandler {
 public:
  // Applies a hold on a port (Reconciler::remediate in the daemon).
  using Remediate = std::function<std::future<apply::PortResult>(const std::string& netdev,
                                                                 reconcile::Remediation hold)>;
  using Listener = std::function<void(const StormNotice&)>;
  // How soon a release (putting the configuration back) that failed is tried again.
  static constexpr std::chrono::seconds kReleaseRetry{1};

  Remediator(watchdog::WatchdogSettings settings, Remediate remediate);

  void on_notice(Listener listener);  // any time; called on the loop's thread
  // New settings, on the loop's thread (StormHandler::on_settings): storms being handled keep
  // the action decided at their detection, and its hold, until they are restored; the new
  // actions, budget and timeouts apply from the next detection.
  void on_settings(const watchdog::WatchdogSettings& settings) override;
  std::vector<StormStats> snapshot() const;

  // A hold put back when roced stops, and how its apply went.
  struct PutBack {
    std::string netdev;
    reconcile::Remediation hold;
    apply::PortResult result;
    bool ok() const;
  };
  // Stopping (the loop no longer runs): waits for an apply in flight, then puts every hold in
  // effect back through the reconciler, one port at a time, and waits for each. A stopped roced
  // watches no storm, so it leaves no port lossy behind it.
  std::vector<PutBack> put_back_all();

  // StormHandler
  void on_round(const std::vector<watchdog::PortStormEvent>& events, watchdog::StormWatch& watch,
                Clock::time_point now) override;
  void on_port_forgotten(const std::string& netdev) override;
  void on_targets(const std::vector<WatchedPort>& ports) override;
  bool holding() const override;

 private:
  using Key = std::tuple<std::string, int, Direction>;
  enum class Hold { none, disable_pfc, stall_prevention };

  struct Storm {
    StormStats stats;
    Hold hold = Hold::none;       // wanted on the NIC for this storm
    Hold in_effect = Hold::none;  // applied, as far as the last answer says
    Hold acting = Hold::none;     // asked for; its apply has not answered yet
    std::string action;           // what was decided at detection
  };
  struct Pending {
    std::future<apply::PortResult> result;
    reconcile::Remediation target;
  };
  struct Port {
    reconcile::Remediation applied;  // what the reconciler holds now (as far as we know)
    std::optional<Pending> pending;  // one apply at a time
    Clock::time_point retry_at;      // a failed release is tried again no sooner
  };

  // The record of (port, priority, direction), made with every counter at zero, so that the
  // first detection, action or escalation is an increase Prometheus sees.
  Storm& storm_of(const Key& key);
  void handle(const watchdog::PortStormEvent& event, Clock::time_point now,
              std::vector<StormNotice>& out);
  void detected(const Key& key, Storm& storm, const watchdog::StormDetected& event,
                Clock::time_point now, std::vector<StormNotice>& out);
  void restored(const Key& key, Storm& storm, const watchdog::StormRestored& event,
                Clock::time_point now, std::vector<StormNotice>& out);
  // Releases holds whose storm is gone: budget holds once the budget allows, holds whose
  // detector was dropped (the priority is no longer lossless).
  void review_holds(watchdog::StormWatch& watch, Clock::time_point now,
                    std::vector<StormNotice>& out);
  void collect_applies(watchdog::StormWatch& watch, Clock::time_point now,
                       std::vector<StormNotice>& out);
  // The apply that carried the storm's new hold answered: verification begins, or escalate.
  void acted(const Key& key, Storm& storm, const apply::PortResult& result, bool ok,
             watchdog::StormWatch& watch, Clock::time_point now, std::vector<StormNotice>& out);
  void start_applies(Clock::time_point now);
  reconcile::Remediation wanted(const std::string& netdev) const;
  StormNotice notice(StormNotice::Kind kind, const Key& key, const Storm& storm) const;
  void escalate(const Key& key, Storm& storm, std::string reason, bool critical,
                std::string message, std::vector<StormNotice>& out);

  watchdog::WatchdogSettings settings_;
  Remediate remediate_;
  watchdog::ActionBudget budget_;
  std::mutex listeners_mutex_;
  std::vector<Listener> listeners_;

  mutable std::mutex mutex_;  // storms_ and ports_, for snapshot()
  std::map<Key, Storm> storms_;
  std::map<std::string, Port> ports_;
};

}  // namespace roced::watchdog
