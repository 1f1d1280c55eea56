// SPDX-License-Identifier: Apache-2.0
// The reconciler's public API and lifecycle; the ports live in PortRegistry (port_registry.cpp),
// the event thread in event_loop.cpp.
#include "daemon/reconcile/reconciler.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "daemon/reconcile/netlink_events.hpp"
#include "daemon/reconcile/reconciler_impl.hpp"
#include "port/discovery.hpp"

namespace roced::reconcile {

namespace {

using SteadyClock = std::chrono::steady_clock;

}  // namespace

void Reconciler::Impl::emit(const PortEvent& event) {
  std::vector<std::function<void(const PortEvent&)>> listeners;
  {
    std::lock_guard lock(listeners_mutex_);
    listeners = listeners_;
  }
  for (const auto& listener : listeners) listener(event);
}

void Reconciler::Impl::port_gone(PortWorker& worker) {
  std::vector<PortEvent> events;
  ports_.forget_gone(worker, events);
  announce(events);
}

void Reconciler::Impl::announce(const std::vector<PortEvent>& events) {
  for (const auto& event : events) {
    log(LogLevel::Debug, event.netdev, event.message);  // the event is logged by whoever takes it
    emit(event);
  }
}

void Reconciler::Impl::resync(bool announce_new, bool recheck_all, bool reset_backoff) {
  std::vector<PortEvent> events;
  const auto config = current_config();
  ports_.sync(*config, announce_new, recheck_all, reset_backoff, events);
  announce(events);
  report_unmatched(unmatched_selection(*system_.files, *config));
}

void Reconciler::Impl::report_unmatched(std::vector<std::string> problems) {
  {
    std::lock_guard lock(unmatched_mutex_);
    if (problems == unmatched_) return;
    unmatched_ = problems;
  }
  if (current_config()->ports.netdevs.empty()) {
    log(LogLevel::Warn, {}, "idle: ports.netdevs names no port; nothing is changed until it does");
    return;
  }
  // Once per change: a port named in the file that is not here is configured when it appears.
  for (const auto& problem : problems) {
    log(LogLevel::Warn, {}, "ports.netdevs: " + problem + "; it is configured once it is here");
  }
}

std::vector<std::string> Reconciler::Impl::unmatched() const {
  std::lock_guard lock(unmatched_mutex_);
  return unmatched_;
}

namespace {
// The applier's retry backoff waits on the reconciler's clock too.
ReconcilerOptions on_one_clock(ReconcilerOptions options) {
  options.apply.time = options.time;
  return options;
}
}  // namespace

Reconciler::Reconciler(System& system, config::Config config, ReconcilerOptions options)
    : impl_(std::make_unique<Impl>(system, std::move(config), on_one_clock(std::move(options)))) {}

Reconciler::~Reconciler() { stop(); }

void Reconciler::start() {
  begin();
  wait_first_checks();
}

void Reconciler::begin() {
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
    impl.event_heartbeat_ = impl.options_.time->now().time_since_epoch().count();
    impl.event_thread_ = std::thread([&impl] { impl.event_loop(); });
    impl.event_thread_running_ = true;
  }
}

void Reconciler::wait_first_checks() {
  Impl& impl = *impl_;
  std::unique_lock lock(impl.progress_mutex_);
  // Ports queued behind one that lost its carrier to its change wait for it as long as that
  // takes; roced is ready meanwhile (they show as drifted, the log says why).
  impl.progress_.wait(lock, [&impl] {
    return impl.stopping_ || impl.ports_.all_checked() ||
           (impl.gate_.stalled() && impl.ports_.all_checked_or_at_gate());
  });
}

void Reconciler::stop() {
  Impl& impl = *impl_;
  std::lock_guard lifecycle(impl.lifecycle_mutex_);
  if (impl.stopped_) return;
  impl.stopping_ = true;
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t woken = ::write(impl.stop_fd_.get(), &one, sizeof one);
  impl.check_finished();  // releases a start() that is waiting
  if (impl.event_thread_.joinable()) impl.event_thread_.join();
  std::vector<std::unique_ptr<PortWorker>> workers;
  workers = impl.ports_.take_all();
  // Every worker is told first, so they finish their in-flight applies side by side.
  for (auto& worker : workers) worker->request_stop();
  impl.gate_.wake_all();  // those waiting for a slot give up: their ports stay as they are
  for (auto& worker : workers) worker->join();
  impl.socket_.reset();
  impl.stopped_ = true;
}

ReloadResult Reconciler::reload(const std::string& path) {
  auto loaded = config::load_file(path);
  if (!loaded.ok()) {
    // Debug: the service logs the failure and each diagnostic itself.
    impl_->log(LogLevel::Debug, {}, "reload of " + path + " failed; the running config is kept");
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
    impl.gate_.set_limit(impl.config_->daemon.disruptive_ports_at_once);
  }
  impl.log(LogLevel::Debug, {}, "config reloaded; re-checking every port");  // the service says it
  bool running = false;
  {
    std::lock_guard lock(impl.lifecycle_mutex_);
    running = impl.started_ && !impl.stopping_;
  }
  if (running) impl.resync(true, true, true);
  return ReloadResult{true, {}};
}

plan::Plan Reconciler::current_plan() { return plan_of(*impl_->current_config()); }

plan::Plan Reconciler::plan_of(const config::Config& wanted) {
  const config::Config* config = &wanted;
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
    port.findings.push_back(hold_finding(port.port.netdev, it->second));
  }
  return plan;
}

std::future<apply::PortResult> Reconciler::remediate(const std::string& netdev,
                                                     Remediation remediation) {
  if (auto pending = impl_->ports_.request_remediation(netdev, remediation)) {
    return std::move(*pending);
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

void Reconciler::check_soon(const std::string& netdev) { impl_->ports_.recheck(netdev); }

apply::ApplyResult Reconciler::apply_now() {
  std::vector<std::future<apply::PortResult>> pending = impl_->ports_.request_apply_all();
  apply::ApplyResult result;
  for (auto& port : pending) result.ports.push_back(port.get());
  return result;
}

std::vector<PortSnapshot> Reconciler::snapshot() const {
  std::vector<PortSnapshot> out = impl_->ports_.snapshots();
  std::sort(out.begin(), out.end(), [](const PortSnapshot& a, const PortSnapshot& b) {
    return a.port.netdev < b.port.netdev;
  });
  return out;
}

std::vector<ManagedPort> Reconciler::ports() const { return impl_->ports_.ports(); }

config::Config Reconciler::config() const { return *impl_->current_config(); }

std::shared_ptr<const config::Config> Reconciler::shared_config() const {
  return impl_->current_config();
}

SelectionReport Reconciler::selection_report() const {
  constexpr std::chrono::seconds kOtherRdmaRefresh{30};
  SelectionReport report;
  report.unmatched = impl_->unmatched();
  Impl& impl = *impl_;
  const std::lock_guard lock(impl.other_rdma_mutex_);
  const auto now = impl.options_.time->now();
  if (!impl.other_rdma_at_ || now - *impl.other_rdma_at_ >= kOtherRdmaRefresh) {
    const auto drivers = impl.current_config()->ports.drivers;
    if (auto inventory = discover_ports(*impl.system_.files, {}, drivers)) {
      impl.other_rdma_ = std::move(inventory->other_rdma);
    }
    impl.other_rdma_at_ = now;
  }
  report.other_rdma = impl.other_rdma_;
  return report;
}

bool Reconciler::healthy() const {
  const Impl& impl = *impl_;
  if (impl.stopping_ || !impl.event_thread_running_) return false;
  const auto now = impl.options_.time->now();
  const SteadyClock::time_point event_beat{SteadyClock::duration(impl.event_heartbeat_.load())};
  if (now - event_beat > impl.options_.health_window) return false;
  return impl.ports_.all_alive(now, impl.options_.health_window);
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
  if (ports.empty() && impl_->current_config()->ports.netdevs.empty()) {
    return "idle: ports.netdevs names no port";
  }
  if (ports.empty()) {
    std::string why;
    for (const auto& problem : impl_->unmatched()) why += (why.empty() ? "" : "; ") + problem;
    return why.empty() ? "no ports selected" : "no ports selected (ports.netdevs " + why + ")";
  }
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
