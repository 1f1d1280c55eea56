// SPDX-License-Identifier: Apache-2.0
#pragma once
// roced's service mode: loads the configuration, starts the Reconciler on the real machine or a
// simulated node, and then serves: signals (SIGHUP reload, SIGTERM/SIGINT stop) through a
// signalfd, sd_notify READY=1 / STATUS= / WATCHDOG=1, and the log lines of the reconciler's
// port events. Other front ends (the D-Bus API) attach to it and use its Reconciler.
//
//   Service service(options);              // first: blocks the signals before any thread starts
//   service.attach(make_something);        // e.g. the D-Bus object
//   return service.run();                  // until SIGTERM

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "daemon/peers/peer_watch.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "daemon/service/notifier.hpp"
#include "daemon/service/signals.hpp"
#include "daemon/storms/storm_watchdog.hpp"
#include "os/system.hpp"
#include "sampling/stats_poller.hpp"

namespace roced::service {

inline constexpr const char* kDefaultConfigPath = "/etc/roced/roced.yaml";

struct ServiceOptions {
  std::string config_path = kDefaultConfigPath;
  std::optional<std::string> sim_dir;    // --sim DIR: the simulated node there
  std::optional<std::string> log_level;  // --log-level: wins over daemon.log_level
};

class Service {
 public:
  // Something that runs beside the reconciler (the D-Bus API). Made by its factory once the
  // first reconcile is done and before READY=1 (so a client ordered After=roced.service finds
  // it); destroyed, in reverse order, before the reconciler stops.
  class Attachment {
   public:
    virtual ~Attachment() = default;
  };
  using AttachmentFactory = std::function<std::unique_ptr<Attachment>(Service&)>;

  explicit Service(ServiceOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  void attach(AttachmentFactory factory);  // before run()

  // Runs until SIGTERM, SIGINT or request_stop(): 0 then; 1 when the configuration cannot be
  // loaded at start (each problem logged as file:line:column: field: message).
  int run();

  // --- for attachments (any thread, while run() serves) ---
  reconcile::Reconciler& reconciler() { return *reconciler_; }
  // Re-reads the configuration file. A broken file keeps the running configuration; the
  // problems are logged and STATUS= says so until a reload succeeds. Serialised with SIGHUP.
  reconcile::ReloadResult reload();
  // The one-line status STATUS= carries: the reconciler's, and a failed reload's problem.
  std::string status_text() const;
  // How the last reload went (a start counts as a successful one), for the metrics.
  struct ReloadState {
    bool ok = true;
    std::chrono::system_clock::time_point last_success;
  };
  ReloadState reload_state() const;
  void request_stop();
  const ServiceOptions& options() const { return options_; }
  const std::string& source() const { return system_.description; }  // "simulated node at DIR"
  System& system() { return system_; }  // the reconciler's; its clients are safe to share
  // The PFC storm watchdog, switched on or off (`watchdog.enabled`, reload); nullptr only
  // before start-up's first reconcile ends. Exists before the attachments are made, so they can
  // listen to it.
  storms::StormWatchdog* storm_watchdog() { return storms_.get(); }
  // The switch at each managed port's other end (LLDP); nullptr only before start-up's first
  // reconcile ends.
  peers::PeerWatch* peer_watch() { return peers_.get(); }
  // Every port's statistics: the storm watchdog drives its rounds, the metrics endpoint is served
  // its readings.
  std::shared_ptr<sampling::StatsPoller> stats_poller() { return stats_poller_; }

 private:
  // Waits on signals, wake-ups and the watchdog until `done()` or a stop is asked for.
  void serve(const std::function<bool()>& done);
  void start_storm_watchdog();
  void start_peer_watch();
  void log_storm_watchdog(const watchdog::WatchdogSettings& settings, std::string_view what);
  // A reload's new watchdog settings to the running watchdog, switching it on or off too.
  void reconfigure_storm_watchdog(const watchdog::WatchdogSettings& before,
                                  const watchdog::WatchdogSettings& after);
  void handle_signals();
  void update_status();
  void feed_systemd_watchdog();
  void extend_start_timeout();  // while starting, every 10 s: EXTEND_TIMEOUT_USEC=
  void wake();
  void log_event(const reconcile::PortEvent& event);
  void apply_log_level(const config::Config& config);

  ServiceOptions options_;
  SignalFd signals_;
  int wake_fd_ = -1;  // eventfd: reconciler events and request_stop() end the poll early

  System system_;
  std::unique_ptr<reconcile::Reconciler> reconciler_;
  std::shared_ptr<sampling::StatsPoller> stats_poller_ =
      std::make_shared<sampling::StatsPoller>(system_, real_time());
  std::unique_ptr<peers::PeerWatch> peers_;
  // peers_ for the reconciler's threads, whose events begin before it exists.
  std::atomic<peers::PeerWatch*> live_peers_{nullptr};
  std::unique_ptr<storms::StormWatchdog> storms_;
  std::vector<AttachmentFactory> factories_;
  std::vector<std::unique_ptr<Attachment>> attachments_;

  std::atomic<bool> stop_requested_{false};
  bool reload_pending_ = false;       // a SIGHUP during start-up, served once running
  std::atomic<bool> running_{false};  // start() returned

  std::mutex reload_mutex_;         // one reload at a time (SIGHUP, D-Bus)
  mutable std::mutex state_mutex_;  // notifier_, reload_problem_, last_good_config_, ...
  Notifier notifier_;
  std::optional<std::string> reload_problem_;  // why the last reload failed
  std::chrono::system_clock::time_point last_good_config_ = std::chrono::system_clock::now();
  bool systemd_watchdog_unhealthy_ = false;
  std::chrono::steady_clock::time_point next_systemd_watchdog_;
  std::chrono::steady_clock::time_point next_start_extension_;
};

}  // namespace roced::service
