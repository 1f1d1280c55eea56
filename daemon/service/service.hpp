// SPDX-License-Identifier: Apache-2.0
#pragma once
// roced's service mode: loads the configuration into its store, makes the modules (the
// reconciler, then those added: the peer watch, the storm watchdog, the metrics endpoint, the
// D-Bus API) on the real machine or a simulated node, starts them, and then serves: signals
// (SIGHUP reload, SIGTERM/SIGINT stop) through a signalfd, sd_notify READY=1 / STATUS= /
// WATCHDOG=1, and the log lines of the reconciler's port events.
//
//   Service service(options);              // first: blocks the signals before any thread starts
//   service.add(make_some_module);         // e.g. the D-Bus API
//   return service.run();                  // until SIGTERM

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "daemon/module/config_store.hpp"
#include "daemon/module/module_set.hpp"
#include "daemon/reconcile/reconcile_module.hpp"
#include "daemon/service/config_watch.hpp"
#include "daemon/service/notifier.hpp"
#include "daemon/service/signals.hpp"
#include "os/node_lock.hpp"
#include "os/system.hpp"
#include "sampling/stats_poller.hpp"

namespace roced::service {

inline constexpr const char* kDefaultConfigPath = "/etc/roced/roced.yaml";

struct ServiceOptions {
  std::string config_path = kDefaultConfigPath;
  std::optional<std::string> sim_dir;    // --sim DIR: the simulated node there
  std::optional<std::string> log_level;  // --log-level: wins over daemon.log_level
  bool on_bus = true;                    // serves io.roced.Daemon1 (said in the node's lock)
  bool watch_config = false;             // --watch-config: a changed file is reloaded
};

class Service {
 public:
  // Makes a module once the configuration is loaded and the reconciler exists, before any
  // module starts; nullptr adds none. Modules start by stage, then in the order added.
  using ModuleFactory = std::function<std::unique_ptr<module::Module>(Service&)>;

  explicit Service(ServiceOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  void add(ModuleFactory factory);  // before run()

  // Runs until SIGTERM, SIGINT or request_stop(): 0 then; 1 when the configuration cannot be
  // loaded at start (each problem logged as file:line:column: field: message).
  int run();

  // --- for the modules' factories and the modules (any thread, while run() serves) ---
  reconcile::Reconciler& reconciler() { return reconcile_->reconciler(); }
  const module::ModuleSet& modules() const { return modules_; }
  const module::ConfigStore& config_store() const { return store_; }
  // The first configuration, every module's before a reload: what factories make modules with.
  const config::Config& config() const { return *first_config_; }
  // Every collector a scrape serves after the ports' own: the modules' and the store's.
  std::vector<telemetry::Collector*> collectors();
  // Re-reads the configuration file. A broken file keeps the running configuration; the
  // problems are logged and STATUS= says so until a reload succeeds. Serialised with SIGHUP.
  reconcile::ReloadResult reload();
  // The configuration file as it is on disk now, validated and planned against the ports but
  // not taken: what a reload would change (rocectl plan after an edit). Its problems when invalid.
  struct Pending {
    config::LoadResult loaded;
    std::vector<module::Section> changed;  // against the running configuration
    plan::Plan plan;                       // when loaded.ok()
  };
  Pending pending();
  // The one-line status STATUS= carries: the reconciler's, and a failed reload's problem.
  std::string status_text() const;
  void request_stop();
  const ServiceOptions& options() const { return options_; }
  const std::string& source() const { return system_.description; }  // "simulated node at DIR"
  System& system() { return system_; }  // the reconciler's; its clients are safe to share
  // Every port's statistics: the storm watchdog drives its rounds, the metrics endpoint is served
  // its readings.
  std::shared_ptr<sampling::StatsPoller> stats_poller() { return stats_poller_; }

 private:
  // Waits on signals, wake-ups and the watchdog until `done()` or a stop is asked for.
  void serve(const std::function<bool()>& done);
  void handle_signals();
  // False, said in the log and STATUS=, when roced lacks a capability it cannot run without.
  bool capable();
  void update_status();
  void feed_systemd_watchdog();
  void extend_start_timeout();  // while starting, every 10 s: EXTEND_TIMEOUT_USEC=
  void wake();
  void log_event(const reconcile::PortEvent& event);
  void apply_log_level(const config::Config& config);

  ServiceOptions options_;
  SignalFd signals_;
  std::optional<ConfigWatch> config_watch_;
  int wake_fd_ = -1;  // eventfd: reconciler events and request_stop() end the poll early

  std::optional<NodeLock> node_lock_;  // held for roced's whole life (os/node_lock.hpp)
  System system_;
  module::ConfigStore store_;
  module::Snapshot first_config_;  // the modules' first, kept whatever reloads do
  std::shared_ptr<sampling::StatsPoller> stats_poller_ =
      std::make_shared<sampling::StatsPoller>(system_, real_time());
  module::ModuleSet modules_;
  reconcile::ReconcileModule* reconcile_ = nullptr;  // in modules_, the first
  std::vector<ModuleFactory> factories_;

  std::atomic<bool> stop_requested_{false};
  bool reload_pending_ = false;       // a SIGHUP during start-up, served once running
  std::atomic<bool> running_{false};  // every module started

  std::mutex reload_mutex_;         // one reload at a time (SIGHUP, D-Bus)
  mutable std::mutex state_mutex_;  // notifier_, systemd_watchdog_unhealthy_
  Notifier notifier_;
  bool systemd_watchdog_unhealthy_ = false;
  std::chrono::steady_clock::time_point next_systemd_watchdog_;
  std::chrono::steady_clock::time_point next_start_extension_;
};

}  // namespace roced::service
