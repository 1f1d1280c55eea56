// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reconciler's insides, shared by its public API (reconciler.cpp) and its event thread
// (event_loop.cpp): the host the port workers call back, the registry of ports, the lifecycle.

#include <sys/eventfd.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "daemon/reconcile/port_registry.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "os/unique_fd.hpp"

namespace roced::reconcile {

struct Reconciler::Impl final : WorkerHost {
  Impl(System& system, config::Config config, ReconcilerOptions options)
      : system_(system),
        options_(std::move(options)),
        config_(std::make_shared<const config::Config>(std::move(config))),
        gate_(*options_.time, config_->daemon.disruptive_ports_at_once) {}

  // ---- WorkerHost ----
  System& system() override { return system_; }
  const ReconcilerOptions& options() const override { return options_; }
  std::shared_ptr<const config::Config> current_config() const override {
    std::lock_guard lock(config_mutex_);
    return config_;
  }
  void emit(const PortEvent& event) override;
  void log(LogLevel level, const std::string& netdev, const std::string& message) override {
    if (options_.log) options_.log(level, netdev, {}, message);
  }
  void log_finding(const finding::Finding& found) override {
    if (options_.log_finding) {
      options_.log_finding(found);
    } else if (options_.log) {
      options_.log(LogLevel::Warn, found.subject, found.about, finding::line(found));
    }
  }
  void port_gone(PortWorker& worker) override;
  void check_finished() override {
    { std::lock_guard lock(progress_mutex_); }
    progress_.notify_all();
  }
  DisruptionGate& disruption_gate() override { return gate_; }

  void announce(const std::vector<PortEvent>& events);
  // announce(), then the unmatched ports.netdevs entries again when a port came or went.
  void announce_and_recount(const std::vector<PortEvent>& events);
  void resync(bool announce_new, bool recheck_all, bool reset_backoff);
  // The ports.netdevs entries that select nothing (unmatched_selection), logged when they change.
  void report_unmatched(std::vector<std::string> problems);
  std::vector<std::string> unmatched() const;
  // The event thread (event_loop.cpp): notifications, the drift timer, ports that appear.
  void event_loop();
  // Sleeps until the event socket has news (true), stop() or `timeout` on the clock.
  bool wait_for_news(std::chrono::milliseconds timeout);

  System& system_;
  const ReconcilerOptions options_;

  mutable std::mutex config_mutex_;
  std::shared_ptr<const config::Config> config_;

  DisruptionGate gate_;

  mutable std::mutex unmatched_mutex_;
  std::vector<std::string> unmatched_;
  // RDMA ports of other drivers, for GetStatus: listing them can walk every GID table (a netdev
  // without its own RDMA device is looked up there), so a listing serves for a while.
  mutable std::mutex other_rdma_mutex_;
  std::vector<DiscoveredPort> other_rdma_;
  std::optional<TimeSource::TimePoint> other_rdma_at_;

  std::mutex listeners_mutex_;
  std::vector<std::function<void(const PortEvent&)>> listeners_;

  PortRegistry ports_{*this};

  std::mutex progress_mutex_;
  std::condition_variable progress_;

  std::mutex lifecycle_mutex_;  // start() / stop()
  bool started_ = false;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> stopped_{false};
  std::unique_ptr<NetlinkSocket> socket_;                       // event thread only, once started
  UniqueFd stop_fd_{::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)};  // readable once stop() began
  std::thread event_thread_;
  // Set once event_thread_ runs: healthy() reads this, never the std::thread that start() and
  // stop() assign and join on other threads.
  std::atomic<bool> event_thread_running_{false};
  std::atomic<std::chrono::steady_clock::rep> event_heartbeat_{0};
};

}  // namespace roced::reconcile
