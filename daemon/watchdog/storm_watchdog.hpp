// SPDX-License-Identifier: Apache-2.0
#pragma once
// The PFC storm watchdog of the roced service: the poll loop over the reconciler's ports, the
// Remediator acting through the reconciler, and the state the metrics and D-Bus show. Made by the
// Service after the first reconcile, switched on or not by `watchdog.enabled`; a reload that
// changes the settings hands them over (reconfigure) without losing the storms being handled,
// and one that switches it off releases every hold it has on a port.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/reconcile/reconciler.hpp"
#include "daemon/watchdog/remediator.hpp"
#include "daemon/watchdog/storm_loop.hpp"
#include "daemon/watchdog/storm_stats.hpp"

namespace roced::watchdog {

class StormWatchdog {
 public:
  // `time`: the poll loop's clock (the reconciler's, in tests a simulated one).
  StormWatchdog(System& system, reconcile::Reconciler& reconciler,
                watchdog::WatchdogSettings settings, TimeSource& time = real_time());
  ~StormWatchdog();  // stop()
  StormWatchdog(const StormWatchdog&) = delete;
  StormWatchdog& operator=(const StormWatchdog&) = delete;

  // Any time; called on the loop's thread.
  void on_notice(Remediator::Listener listener) { remediator_.on_notice(std::move(listener)); }
  // The statistics poller its loop drives, shared with the scrapes (before start()).
  void use_poller(std::shared_ptr<sampling::StatsPoller> poller) {
    loop_.use_poller(std::move(poller));
  }
  void start();
  void stop();  // joins the loop; holds stay with the reconciler's workers
  // After stop(): every hold put back (Remediator::put_back_all).
  std::vector<Remediator::PutBack> put_back_holds() { return remediator_.put_back_all(); }
  // New settings (a reload): from the next round; storms being handled keep their action and
  // hold until restored.
  void reconfigure(const watchdog::WatchdogSettings& settings);

  watchdog::WatchdogSettings settings() const;
  bool enabled() const { return settings().enabled; }
  WatchdogStats stats() const;
  bool healthy(std::chrono::steady_clock::time_point now) const { return loop_.healthy(now); }

 private:
  mutable std::mutex settings_mutex_;
  watchdog::WatchdogSettings settings_;
  Remediator remediator_;
  StormLoop loop_;
};

// The log line of a notice, at its level, on its port (journal PORT=, SETTING=watchdog).
void log_notice(const StormNotice& notice);

}  // namespace roced::watchdog
