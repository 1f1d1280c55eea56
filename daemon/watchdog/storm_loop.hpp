// SPDX-License-Identifier: Apache-2.0
#pragma once
// The storm watchdog's poll loop, on a thread of its own: every poll_interval, a round of the
// statistics poller (sampling::StatsPoller) over the target ports: each port read fully (one
// ETHTOOL_GSTATS) is fed to a watchdog::StormWatch with its lossless priorities (PortPoller);
// a port the poller only probed had no MAC control frame since its last full reading, so no pause
// either, and its detectors wait for the next full one. The events go to a StormHandler (the
// Remediator) on this thread. DCB notifications (RTNLGRP_DCB) mark a port's ethtool names stale:
// mlx5 lists the pause counters of PFC priorities only.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "daemon/watchdog/port_poller.hpp"
#include "os/system.hpp"
#include "port/discovery.hpp"
#include "sampling/stats_poller.hpp"
#include "watchdog/poll_budget.hpp"
#include "watchdog/settings.hpp"
#include "watchdog/storm_watch.hpp"

namespace roced::watchdog {

struct WatchedPort {
  DiscoveredPort port;
  uint8_t lossless = 0;  // the profile's PFC priorities
};

// Called on the loop's thread.
class StormHandler {
 public:
  virtual ~StormHandler() = default;
  // After each round over every port, with the round's events (often none) and the watch, so
  // the handler can report its actions (on_action) and ask the detectors.
  virtual void on_round(const std::vector<watchdog::PortStormEvent>& events,
                        watchdog::StormWatch& watch, watchdog::Clock::time_point now) = 0;
  // The port left the targets or vanished: its detectors are gone.
  virtual void on_port_forgotten(const std::string& netdev) = 0;
  // The ports watched from now on (asked again every kTargetsRefresh).
  virtual void on_targets(const std::vector<WatchedPort>& ports) = 0;
  // New settings (a reload), before the round that first uses them.
  virtual void on_settings(const watchdog::WatchdogSettings& settings) = 0;
  // A hold is on a port, or being applied or released: a switched-off loop keeps making rounds
  // (without reading any port) until it is released.
  virtual bool holding() const = 0;
};

class StormLoop {
 public:
  using Targets = std::function<std::vector<WatchedPort>()>;
  // `targets` is asked again every kTargetsRefresh (ports come and go, profiles change). `time`:
  // the real clocks in the daemon; a simulated one in tests (the soak calls round() itself).
  StormLoop(System& system, watchdog::WatchdogSettings settings, Targets targets,
            StormHandler& handler, TimeSource& time = real_time());
  ~StormLoop();  // stop()
  StormLoop(const StormLoop&) = delete;
  StormLoop& operator=(const StormLoop&) = delete;

  // Called on the loop's thread with a port whose ethtool string set changed between two reads
  // (set before start()).
  // The statistics poller to drive, shared with the scrapes (set before start(); else one of its
  // own).
  void use_poller(std::shared_ptr<sampling::StatsPoller> poller) { poller_ = std::move(poller); }
  void on_names_changed(std::function<void(const std::string& netdev)> listener) {
    names_changed_ = std::move(listener);
  }
  // New settings from any thread, taken at the next round (StormWatch::reconfigure, the
  // handler's on_settings, a new poll budget): the detectors and their storms stay. Switched
  // off (`enabled` false), the loop forgets every port, which releases their holds, and waits
  // without polling until it is switched on again; it then starts from fresh baselines.
  void reconfigure(const watchdog::WatchdogSettings& settings);
  void start();
  void stop();
  // One round on the caller's thread, as the loop's thread makes one every poll_interval: for a
  // caller that keeps time itself (a week of polls on a virtual clock). Not while started.
  void round();

  uint64_t polls() const { return polls_; }            // rounds done
  uint64_t late_polls() const { return late_polls_; }  // rounds begun > half a poll late
  // The interval in use: poll_interval unless the poll budget needs a longer one (and why).
  std::chrono::nanoseconds interval() const {
    return std::chrono::nanoseconds(interval_ns_.load());
  }
  watchdog::BudgetLimit budget_limit() const { return budget_limit_.load(); }
  // The latest a storm is detected at the interval in use, with the reads as they now take.
  std::chrono::nanoseconds detection_bound() const {
    return std::chrono::nanoseconds(detection_bound_ns_.load());
  }
  // The loop thread's CPU time in rounds, and each port's time in its statistics reads.
  std::chrono::nanoseconds read_cpu() const {
    return std::chrono::nanoseconds(read_cpu_ns_.load());
  }
  std::map<std::string, std::chrono::nanoseconds> read_time() const;
  // The loop made a round recently (within ten polls, at least 5 s), or is switched off and
  // holds nothing.
  bool healthy(std::chrono::steady_clock::time_point now) const;

 private:
  void run();
  // Switched off: every port forgotten, their holds released through the handler.
  void quiet_round();
  // Until new settings or stop(); while a hold is still being released, a poll at most.
  // True on stop().
  bool wait_switched_off();
  void refresh_targets(std::chrono::steady_clock::time_point now);  // when kTargetsRefresh is due
  void poll_once(const std::vector<WatchedPort>& ports);
  void take_notifications();
  void forget(const std::string& netdev);
  void skip(const std::string& netdev, const Error& error);  // a port that could not be read
  // This round's reads: their cost goes to the poll budget, which may change the interval.
  void account(std::chrono::nanoseconds cpu);
  void report_budget(watchdog::BudgetLimit before) const;
  void publish_budget();  // the budget's interval, limit and bound, for other threads

  System& system_;
  watchdog::WatchdogSettings settings_;  // the loop thread's
  Targets targets_;
  StormHandler& handler_;
  std::function<void(const std::string&)> names_changed_;
  TimeSource& time_;
  watchdog::StormWatch watch_;
  std::vector<WatchedPort> ports_;                              // the targets, as last asked
  std::chrono::steady_clock::time_point targets_at_{};          // when
  std::map<std::string, std::unique_ptr<PortPoller>> pollers_;  // by netdev
  std::shared_ptr<sampling::StatsPoller> poller_;
  std::unique_ptr<NetlinkSocket> events_;  // RTNLGRP_LINK and _DCB
  std::vector<std::string> netdevs_;       // this round's ports, in order: kept to reuse the memory

  void take_settings();  // what reconfigure() left, on the loop thread

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::atomic<bool> switched_off_idle_{false};  // off, holding nothing: waiting for settings
  std::optional<watchdog::WatchdogSettings> new_settings_;  // from reconfigure()
  std::atomic<uint64_t> polls_{0};
  std::atomic<uint64_t> late_polls_{0};
  std::atomic<std::chrono::steady_clock::rep> last_round_{0};
  watchdog::PollBudget budget_;
  std::atomic<int64_t> interval_ns_;
  std::atomic<watchdog::BudgetLimit> budget_limit_{watchdog::BudgetLimit::none};
  std::atomic<int64_t> detection_bound_ns_{0};
  std::atomic<int64_t> read_cpu_ns_{0};
  mutable std::mutex read_time_mutex_;
  std::map<std::string, std::chrono::nanoseconds> read_time_;  // by netdev, since start
  // Each port's last full read: a quiet round reads none, but a storm's first round reads its
  // port fully, and the detection bound must count that.
  std::map<std::string, std::chrono::steady_clock::duration> last_read_;
  std::thread thread_;
};

}  // namespace roced::watchdog
