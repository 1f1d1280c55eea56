// SPDX-License-Identifier: Apache-2.0
// The reconciler: the port workers, the event thread (netlink notifications, the drift timer,
// ports that appear and vanish) and the public API the service and D-Bus layers call.
#include "daemon/reconcile/reconciler.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "daemon/reconcile/netlink_events.hpp"
#include "daemon/reconcile/port_worker.hpp"

namespace roced::reconcile {

namespace {

using SteadyClock = std::chrono::steady_clock;
namespace fs = std::filesystem;

const fs::path kClassNet = "/sys/class/net";

// The event thread's longest sleep: how soon it notices stop() and beats its heartbeat.
constexpr std::chrono::milliseconds kEventPoll{1000};
// A netdev announced by RTM_NEWLINK whose sysfs entry is not there yet is looked for this often,
// for this long (the periodic drift check catches anything later).
constexpr std::chrono::milliseconds kAppearPoll{50};
constexpr std::chrono::seconds kAppearPatience{30};
// ib_core updates the RoCE GID table from a workqueue after the address notification
// (roce_gid_mgmt.c): a port whose address changed is checked at once and once more this much later.
constexpr std::chrono::seconds kGidFollowUp{1};
// After the event socket failed, it is reopened this often.
constexpr std::chrono::seconds kReopenDelay{1};

// The selected netdevs that exist now, as make_plan selects them.
std::vector<DiscoveredPort> selected_ports(const FileTree& files, const config::Config& config) {
  std::vector<DiscoveredPort> ports;
  auto names = files.list(kClassNet);
  if (!names) return ports;
  for (const auto& name : *names) {
    if (!files.exists(kClassNet / name / "ifindex")) continue;  // bonding_masters etc.
    auto port = describe_netdev(files, name);
    if (!port || !config.ports.selects(name, port->driver, port->own_rdma_driver())) continue;
    ports.push_back(std::move(*port));
  }
  return ports;
}

struct LinkState {
  int ifindex = 0;
  uint32_t mtu = 0;
  bool admin_up = false;
  bool carrier = false;
  bool operator==(const LinkState&) const = default;
};

}  // namespace

struct Reconciler::Impl final : WorkerHost {
  Impl(System& system, config::Config config, ReconcilerOptions options)
      : system_(system),
        options_(std::move(options)),
        config_(std::make_shared<const config::Config>(std::move(config))) {}

  // ---- WorkerHost ----
  System& system() override { return system_; }
  const ReconcilerOptions& options() const override { return options_; }
  std::shared_ptr<const config::Config> current_config() const override {
    std::lock_guard lock(config_mutex_);
    return config_;
  }
  void emit(const PortEvent& event) override {
    std::vector<std::function<void(const PortEvent&)>> listeners;
    {
      std::lock_guard lock(listeners_mutex_);
      listeners = listeners_;
    }
    for (const auto& listener : listeners) listener(event);
  }
  void log(LogLevel level, const std::string& netdev, const std::string& message) override {
    if (options_.log) options_.log(level, netdev, {}, message);
  }
  void port_gone(PortWorker& worker) override {
    std::vector<PortEvent> events;
    {
      std::lock_guard lock(ports_mutex_);
      auto it = workers_.find(worker.netdev());
      if (it == workers_.end() || it->second.get() != &worker) return;  // already forgotten
      forget(it, true, events);
    }
    announce(events);
  }
  void check_finished() override {
    { std::lock_guard lock(progress_mutex_); }
    progress_.notify_all();
  }

  // ---- ports (ports_mutex_ held) ----
  using Workers = std::map<std::string, std::unique_ptr<PortWorker>>;

  void add_worker(DiscoveredPort port, bool announce_it, std::vector<PortEvent>& events) {
    const std::string netdev = port.netdev;
    std::shared_future<void> predecessor;
    for (const auto& old : retired_) {
      if (old->netdev() == netdev && !old->finished()) predecessor = old->done();
    }
    PortCounters counters;
    if (auto gone = vanished_.find(netdev); gone != vanished_.end())
      counters = gone->second.counters;
    auto worker = std::make_unique<PortWorker>(*this, std::move(port), predecessor, counters);
    worker->start();
    workers_[netdev] = std::move(worker);
    vanished_.erase(netdev);
    if (announce_it) {
      events.push_back(PortEvent{PortEvent::Kind::Appeared, netdev, {}, "appeared"});
    }
  }

  // The worker stops after its check in progress; stop() or the event thread joins it.
  void forget(Workers::iterator it, bool vanished, std::vector<PortEvent>& events) {
    PortWorker& worker = *it->second;
    worker.request_stop();
    if (vanished) {
      PortSnapshot last = worker.snapshot();
      last.condition = PortCondition::Vanished;
      vanished_[worker.netdev()] = std::move(last);
      events.push_back(PortEvent{PortEvent::Kind::Vanished, worker.netdev(), {}, "vanished"});
    }
    retired_.push_back(std::move(it->second));
    workers_.erase(it);
  }

  // Brings the workers in line with the selected netdevs that exist: new ones start, gone ones
  // are forgotten (Vanished), ones the config no longer selects stop quietly.
  void sync_ports(bool announce_new, bool recheck_all, bool reset_backoff,
                  std::vector<PortEvent>& events) {
    const auto config = current_config();
    std::map<std::string, DiscoveredPort> selected;
    for (auto& port : selected_ports(*system_.files, *config)) {
      const std::string name = port.netdev;
      selected.emplace(name, std::move(port));
    }
    for (auto it = workers_.begin(); it != workers_.end();) {
      auto next = std::next(it);
      if (!selected.count(it->first)) {
        forget(it, !system_.files->exists(kClassNet / it->first), events);
      }
      it = next;
    }
    for (auto& [name, port] : selected) {
      if (workers_.count(name)) {
        if (recheck_all) workers_[name]->recheck(reset_backoff);
      } else {
        add_worker(std::move(port), announce_new, events);
      }
    }
  }

  void reap() {
    std::lock_guard lock(ports_mutex_);
    std::erase_if(retired_, [](const std::unique_ptr<PortWorker>& worker) {
      if (!worker->finished()) return false;
      worker->join();
      return true;
    });
  }

  void announce(const std::vector<PortEvent>& events) {
    for (const auto& event : events) {
      log(event.kind == PortEvent::Kind::Vanished ? LogLevel::Warn : LogLevel::Info, event.netdev,
          event.message);
      emit(event);
    }
  }

  void resync(bool announce_new, bool recheck_all, bool reset_backoff) {
    std::vector<PortEvent> events;
    {
      std::lock_guard lock(ports_mutex_);
      sync_ports(announce_new, recheck_all, reset_backoff, events);
    }
    announce(events);
  }

  // ---- the event thread ----
  void handle(const NetlinkEvent& event, std::vector<PortEvent>& events) {
    std::lock_guard lock(ports_mutex_);
    auto it = workers_.find(event.netdev);
    switch (event.kind) {
      case NetlinkEvent::Kind::LinkRemoved:
        links_.erase(event.netdev);
        appearing_.erase(event.netdev);
        if (it != workers_.end()) forget(it, true, events);
        break;
      case NetlinkEvent::Kind::LinkChanged: {
        const LinkState state{event.ifindex, event.mtu, event.admin_up, event.carrier};
        auto known = links_.find(event.netdev);
        const bool news = known == links_.end() || !(known->second == state);
        links_[event.netdev] = state;
        if (it != workers_.end()) {
          // Repeats (statistics, our own reads) carry nothing the plan depends on.
          if (news) it->second->mark_dirty(true);
        } else {
          appearing_[event.netdev] = SteadyClock::now() + kAppearPatience;
        }
        break;
      }
      case NetlinkEvent::Kind::DcbChanged:
        if (it != workers_.end()) it->second->mark_dirty(true);
        break;
      case NetlinkEvent::Kind::AddressChanged:
        address_changed(event.ifindex);
        break;
    }
  }

  // The GID table follows the addresses: re-check the port whose index it is. An index no link
  // notification has named yet (none since roced started) may be any port's: check them all.
  void address_changed(int ifindex) {
    const auto follow_up = SteadyClock::now() + kGidFollowUp;
    for (const auto& [netdev, link] : links_) {
      if (link.ifindex != ifindex) continue;
      if (auto worker = workers_.find(netdev); worker != workers_.end()) {
        worker->second->mark_dirty(true);
        gid_follow_ups_[netdev] = follow_up;
      }
      return;
    }
    for (auto& [netdev, worker] : workers_) {
      worker->mark_dirty(true);
      gid_follow_ups_[netdev] = follow_up;
    }
  }

  // The second check of ports whose addresses changed; returns when the next one is due.
  std::optional<SteadyClock::time_point> follow_up_gids() {
    std::lock_guard lock(ports_mutex_);
    std::optional<SteadyClock::time_point> next;
    const auto now = SteadyClock::now();
    for (auto it = gid_follow_ups_.begin(); it != gid_follow_ups_.end();) {
      if (now < it->second) {
        next = next ? std::min(*next, it->second) : it->second;
        ++it;
        continue;
      }
      if (auto worker = workers_.find(it->first); worker != workers_.end()) {
        worker->second->mark_dirty(false);
      }
      it = gid_follow_ups_.erase(it);
    }
    return next;
  }

  // Netdevs announced but not yet managed: managed once sysfs shows them, if selected.
  void look_for_appearing(std::vector<PortEvent>& events) {
    if (appearing_.empty()) return;
    const auto config = current_config();
    const auto now = SteadyClock::now();
    std::lock_guard lock(ports_mutex_);
    for (auto it = appearing_.begin(); it != appearing_.end();) {
      auto port = describe_netdev(*system_.files, it->first);
      const bool present = port && system_.files->exists(kClassNet / it->first / "ifindex");
      if (present && !config->ports.selects(it->first, port->driver, port->own_rdma_driver())) {
        it = appearing_.erase(it);  // not ours
      } else if (present) {
        if (!workers_.count(it->first)) add_worker(std::move(*port), true, events);
        it = appearing_.erase(it);
      } else if (now >= it->second) {
        it = appearing_.erase(it);
      } else {
        ++it;
      }
    }
  }

  void event_loop() {
    auto next_drift_check = SteadyClock::now() + current_config()->daemon.drift_check_interval;
    auto next_reopen = SteadyClock::now();
    while (!stopping_) {
      event_heartbeat_ = SteadyClock::now().time_since_epoch().count();
      reap();
      std::vector<PortEvent> events;
      look_for_appearing(events);
      announce(events);
      events.clear();

      auto now = SteadyClock::now();
      const auto interval = current_config()->daemon.drift_check_interval;
      if (interval.count() > 0 && now >= next_drift_check) {
        resync(true, true, false);
        next_drift_check = now + interval;
      } else if (interval.count() <= 0) {
        next_drift_check = now + kEventPoll;
      }
      auto timeout = std::min<std::chrono::milliseconds>(
          kEventPoll,
          std::chrono::duration_cast<std::chrono::milliseconds>(next_drift_check - now) +
              std::chrono::milliseconds(1));
      if (!appearing_.empty()) timeout = std::min(timeout, kAppearPoll);
      if (const auto follow_up = follow_up_gids()) {
        timeout = std::min(timeout, std::chrono::duration_cast<std::chrono::milliseconds>(
                                        *follow_up - now + std::chrono::milliseconds(1)));
      }
      timeout = std::max(timeout, std::chrono::milliseconds(1));

      if (!socket_) {
        if (now >= next_reopen) {
          auto opened = open_event_socket(system_);
          if (opened) {
            socket_ = std::move(*opened);
            resync(true, true, false);  // what happened while deaf
          } else {
            log(LogLevel::Error, {}, "netlink events: " + opened.error().message);
            next_reopen = now + kReopenDelay;
          }
        }
        if (!socket_) {
          std::this_thread::sleep_for(timeout);
          continue;
        }
      }
      auto datagram = socket_->receive(timeout);
      if (!datagram) {
        // ENOBUFS: notifications were lost; anything else: the socket is broken. Either way
        // every port is re-read, as nothing can be known of what was missed.
        log(LogLevel::Warn, {}, "netlink events: " + datagram.error().message);
        if (datagram.error().code != ENOBUFS) {
          socket_.reset();
          next_reopen = SteadyClock::now() + kReopenDelay;
        }
        resync(true, true, false);
        continue;
      }
      for (const auto& event : parse_notifications(*datagram)) handle(event, events);
      announce(events);
    }
  }

  bool all_checked() {
    std::lock_guard lock(ports_mutex_);
    return std::all_of(workers_.begin(), workers_.end(),
                       [](const auto& entry) { return entry.second->checked(); });
  }

  System& system_;
  const ReconcilerOptions options_;

  mutable std::mutex config_mutex_;
  std::shared_ptr<const config::Config> config_;

  std::mutex listeners_mutex_;
  std::vector<std::function<void(const PortEvent&)>> listeners_;

  // Lock order: ports_mutex_, then a worker's own mutex. A worker never takes ports_mutex_
  // while holding its own.
  mutable std::mutex ports_mutex_;
  Workers workers_;
  std::vector<std::unique_ptr<PortWorker>> retired_;  // stopping; joined once finished
  std::map<std::string, PortSnapshot> vanished_;
  std::map<std::string, LinkState> links_;                         // last link state seen
  std::map<std::string, SteadyClock::time_point> gid_follow_ups_;  // address changed: look again
  std::map<std::string, SteadyClock::time_point> appearing_;       // netdev -> give up at

  std::mutex progress_mutex_;
  std::condition_variable progress_;

  std::mutex lifecycle_mutex_;  // start() / stop()
  bool started_ = false;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> stopped_{false};
  std::unique_ptr<NetlinkSocket> socket_;  // event thread only, once started
  std::thread event_thread_;
  // Set once event_thread_ runs: healthy() reads this, never the std::thread that start() and
  // stop() assign and join on other threads.
  std::atomic<bool> event_thread_running_{false};
  std::atomic<SteadyClock::rep> event_heartbeat_{0};
};

Reconciler::Reconciler(System& system, config::Config config, ReconcilerOptions options)
    : impl_(std::make_unique<Impl>(system, std::move(config), std::move(options))) {}

Reconciler::~Reconciler() { stop(); }

void Reconciler::start() {
  Impl& impl = *impl_;
  {
    std::lock_guard lock(impl.lifecycle_mutex_);
    if (impl.started_ || impl.stopping_) return;
    impl.started_ = true;
    // Joined before the ports are read, so no change after the first read goes unheard.
    auto opened = open_event_socket(impl.system_);
    if (opened) {
      impl.socket_ = std::move(*opened);
    } else {
      impl.log(LogLevel::Error, {}, "netlink events: " + opened.error().message);
    }
    impl.resync(false, false, false);
    impl.event_heartbeat_ = SteadyClock::now().time_since_epoch().count();
    impl.event_thread_ = std::thread([&impl] { impl.event_loop(); });
    impl.event_thread_running_ = true;
  }
  std::unique_lock lock(impl.progress_mutex_);
  impl.progress_.wait(lock, [&impl] { return impl.stopping_ || impl.all_checked(); });
}

void Reconciler::stop() {
  Impl& impl = *impl_;
  std::lock_guard lifecycle(impl.lifecycle_mutex_);
  if (impl.stopped_) return;
  impl.stopping_ = true;
  impl.check_finished();  // releases a start() that is waiting
  if (impl.event_thread_.joinable()) impl.event_thread_.join();
  std::vector<std::unique_ptr<PortWorker>> workers;
  {
    std::lock_guard lock(impl.ports_mutex_);
    for (auto& [name, worker] : impl.workers_) workers.push_back(std::move(worker));
    impl.workers_.clear();
    for (auto& worker : impl.retired_) workers.push_back(std::move(worker));
    impl.retired_.clear();
  }
  // Every worker is told first, so they finish their in-flight applies side by side.
  for (auto& worker : workers) worker->request_stop();
  for (auto& worker : workers) worker->join();
  impl.socket_.reset();
  impl.stopped_ = true;
}

ReloadResult Reconciler::reload(const std::string& path) {
  auto loaded = config::load_file(path);
  if (!loaded.ok()) {
    // Info: the service logs the failure and each diagnostic itself.
    impl_->log(LogLevel::Info, {}, "reload of " + path + " failed; the running config is kept");
    return ReloadResult{false, std::move(loaded.diagnostics)};
  }
  ReloadResult result = reload(std::move(*loaded.config));
  result.diagnostics = std::move(loaded.diagnostics);  // warnings only
  return result;
}

ReloadResult Reconciler::reload(config::Config config) {
  Impl& impl = *impl_;
  {
    std::lock_guard lock(impl.config_mutex_);
    impl.config_ = std::make_shared<const config::Config>(std::move(config));
  }
  impl.log(LogLevel::Info, {}, "config reloaded; re-checking every port");
  bool running = false;
  {
    std::lock_guard lock(impl.lifecycle_mutex_);
    running = impl.started_ && !impl.stopping_;
  }
  if (running) impl.resync(true, true, true);
  return ReloadResult{true, {}};
}

plan::Plan Reconciler::current_plan() {
  const auto config = impl_->current_config();
  std::map<std::string, Remediation> held;
  for (const auto& port : snapshot()) {
    if (!port.remediation.empty()) held[port.port.netdev] = port.remediation;
  }
  plan::Plan plan = plan::make_plan(impl_->system_, *config, [&](const std::string& netdev) {
    const auto it = held.find(netdev);
    return it == held.end() ? config->profile_for(netdev)
                            : remediated(config->profile_for(netdev), it->second);
  });
  for (auto& port : plan.ports) {
    const auto it = held.find(port.port.netdev);
    if (it == held.end()) continue;
    port.warnings.push_back(hold_warning(it->second));
  }
  return plan;
}

std::future<apply::PortResult> Reconciler::remediate(const std::string& netdev,
                                                     Remediation remediation) {
  {
    std::lock_guard lock(impl_->ports_mutex_);
    const auto it = impl_->workers_.find(netdev);
    if (it != impl_->workers_.end()) return it->second->request_remediation(remediation);
  }
  // No worker, no hold: a release is done already; a hold has nothing to hold it.
  std::promise<apply::PortResult> none;
  apply::PortResult result;
  result.netdev = netdev;
  if (!remediation.empty()) {
    result.outcome = apply::PortResult::Outcome::Unreadable;
    result.error = "roced does not manage " + netdev + " now";
  }
  none.set_value(result);
  return none.get_future();
}

apply::ApplyResult Reconciler::apply_now() {
  std::vector<std::future<apply::PortResult>> pending;
  {
    std::lock_guard lock(impl_->ports_mutex_);
    for (auto& [name, worker] : impl_->workers_) pending.push_back(worker->request_apply());
  }
  apply::ApplyResult result;
  for (auto& port : pending) result.ports.push_back(port.get());
  return result;
}

std::vector<PortSnapshot> Reconciler::snapshot() const {
  std::vector<PortSnapshot> out;
  {
    std::lock_guard lock(impl_->ports_mutex_);
    for (const auto& [name, worker] : impl_->workers_) out.push_back(worker->snapshot());
    for (const auto& [name, last] : impl_->vanished_) out.push_back(last);
  }
  std::sort(out.begin(), out.end(), [](const PortSnapshot& a, const PortSnapshot& b) {
    return a.port.netdev < b.port.netdev;
  });
  return out;
}

config::Config Reconciler::config() const { return *impl_->current_config(); }

bool Reconciler::healthy() const {
  const Impl& impl = *impl_;
  if (impl.stopping_ || !impl.event_thread_running_) return false;
  const auto now = SteadyClock::now();
  const SteadyClock::time_point event_beat{SteadyClock::duration(impl.event_heartbeat_.load())};
  if (now - event_beat > impl.options_.health_window) return false;
  std::lock_guard lock(impl.ports_mutex_);
  return std::all_of(impl.workers_.begin(), impl.workers_.end(), [&](const auto& entry) {
    return entry.second->alive(now, impl.options_.health_window);
  });
}

std::string Reconciler::status_line() const {
  const auto ports = snapshot();
  std::string applying;
  std::map<PortCondition, std::vector<std::string>> by_condition;
  size_t present = 0;
  for (const auto& port : ports) {
    by_condition[port.condition].push_back(port.port.netdev);
    if (port.condition != PortCondition::Vanished) ++present;
  }
  if (by_condition.count(PortCondition::Applying)) {
    std::string names;
    for (const auto& name : by_condition[PortCondition::Applying]) {
      names += (names.empty() ? "" : ", ") + name;
    }
    return "applying " + names;
  }
  if (ports.empty()) return "no ports selected";
  std::string line = std::to_string(present) + (present == 1 ? " port: " : " ports: ");
  std::string parts;
  for (const auto& [condition, names] : by_condition) {
    std::string part = std::to_string(names.size()) + " " +
                       (condition == PortCondition::InSync ? "in sync" : condition_name(condition));
    // The ones needing attention are named, so the status says where to look.
    if (condition != PortCondition::InSync && condition != PortCondition::Pending) {
      std::string list;
      for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
      part += " (" + list + ")";
    }
    parts += (parts.empty() ? "" : ", ") + part;
  }
  return line + parts;
}

void Reconciler::on_event(std::function<void(const PortEvent&)> listener) {
  std::lock_guard lock(impl_->listeners_mutex_);
  impl_->listeners_.push_back(std::move(listener));
}

}  // namespace roced::reconcile
