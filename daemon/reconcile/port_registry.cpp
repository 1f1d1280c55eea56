// SPDX-License-Identifier: Apache-2.0
#include "daemon/reconcile/port_registry.hpp"

#include <algorithm>
#include <filesystem>

namespace roced::reconcile {

namespace {

namespace fs = std::filesystem;
const fs::path kClassNet = "/sys/class/net";

// A netdev announced by RTM_NEWLINK whose sysfs entry is not there yet is looked for this long
// (the periodic drift check catches anything later).
constexpr std::chrono::seconds kAppearPatience{30};
// ib_core updates the RoCE GID table from a workqueue after the address notification
// (roce_gid_mgmt.c): a port whose address changed is checked at once and once more this much later.
constexpr std::chrono::seconds kGidFollowUp{1};

// The selected netdevs that exist now, as make_plan selects them.
std::vector<DiscoveredPort> selected_ports(const FileTree& files, const config::Config& config) {
  std::vector<DiscoveredPort> ports;
  auto names = files.list(kClassNet);
  if (!names) return ports;
  NetdevDescriber describer(files);
  for (const auto& name : *names) {
    if (!files.exists(kClassNet / name / "ifindex")) continue;  // bonding_masters etc.
    auto port = describer.describe(name);
    if (!port || !config.ports.selects(*port)) continue;
    ports.push_back(std::move(*port));
  }
  return ports;
}

}  // namespace

std::vector<std::string> unmatched_selection(const FileTree& files, const config::Config& config) {
  std::vector<std::string> problems;
  const config::PortSelection& selection = config.ports;
  if (selection.netdevs.empty()) return {"names no port"};
  std::vector<DiscoveredPort> present;
  if (auto names = files.list(kClassNet)) {
    NetdevDescriber describer(files);
    for (const auto& name : *names) {
      if (!files.exists(kClassNet / name / "ifindex")) continue;
      if (auto port = describer.describe(name)) present.push_back(std::move(*port));
    }
  }
  for (const std::string& entry : selection.netdevs) {
    const config::PortSelection just_this{selection.drivers, {entry}, selection.exclude};
    const config::PortSelection any_driver{{}, {entry}, {}};
    const auto selected_by = [&](const config::PortSelection& s) {
      return std::find_if(present.begin(), present.end(),
                          [&](const DiscoveredPort& port) { return s.selects(port); });
    };
    if (selected_by(just_this) != present.end()) continue;
    const auto named = selected_by(any_driver);
    const bool glob = entry.find_first_of("*?[") != std::string::npos;
    const bool only_functions = std::any_of(present.begin(), present.end(), [&](const auto& port) {
      return any_driver.selects(port.netdev, port.driver, port.own_rdma_driver());
    });
    if (named == present.end() && only_functions) {
      problems.push_back(entry +
                         ": matches only VFs, representors or sub-functions, which roced manages "
                         "only when ports.netdevs names them exactly");
    } else if (named == present.end()) {
      problems.push_back(entry + (glob ? ": matches no netdev" : ": no such netdev"));
    } else if (!config::PortSelection{{}, {entry}, selection.exclude}.selects(*named)) {
      problems.push_back(entry + ": not selected (ports.exclude)");
    } else {
      problems.push_back(entry + ": not selected (driver " + named->driver +
                         " is not in ports.drivers)");
    }
  }
  return problems;
}

void PortRegistry::add_worker(DiscoveredPort port, bool announce_it,
                              std::vector<PortEvent>& events) {
  const std::string netdev = port.netdev;
  std::shared_future<void> predecessor;
  for (const auto& old : retired_) {
    if (old->netdev() == netdev && !old->finished()) predecessor = old->done();
  }
  PortCounters counters;
  if (auto gone = vanished_.find(netdev); gone != vanished_.end()) counters = gone->second.counters;
  auto worker = std::make_unique<PortWorker>(host_, std::move(port), predecessor, counters);
  worker->start();
  workers_[netdev] = std::move(worker);
  vanished_.erase(netdev);
  if (announce_it) events.push_back(PortEvent{PortEvent::Kind::Appeared, netdev, {}, "appeared"});
}

// The worker stops after its check in progress; reap() or take_all() joins it.
void PortRegistry::forget(Workers::iterator it, bool vanished, std::vector<PortEvent>& events) {
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

void PortRegistry::sync(const config::Config& config, bool announce_new, bool recheck_all,
                        bool reset_backoff, std::vector<PortEvent>& events) {
  const FileTree& files = *host_.system().files;
  // Read under the lock: a port the event thread adds meanwhile must not look unselected.
  std::lock_guard lock(mutex_);
  std::map<std::string, DiscoveredPort> selected;
  for (auto& port : selected_ports(files, config)) {
    const std::string name = port.netdev;
    selected.emplace(name, std::move(port));
  }
  for (auto it = workers_.begin(); it != workers_.end();) {
    auto next = std::next(it);
    if (!selected.count(it->first)) forget(it, !files.exists(kClassNet / it->first), events);
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

void PortRegistry::forget_gone(PortWorker& worker, std::vector<PortEvent>& events) {
  std::lock_guard lock(mutex_);
  auto it = workers_.find(worker.netdev());
  if (it == workers_.end() || it->second.get() != &worker) return;  // already forgotten
  forget(it, true, events);
}

void PortRegistry::reap() {
  std::lock_guard lock(mutex_);
  std::erase_if(retired_, [](const std::unique_ptr<PortWorker>& worker) {
    if (!worker->finished()) return false;
    worker->join();
    return true;
  });
}

void PortRegistry::handle(const NetlinkEvent& event, TimePoint now,
                          std::vector<PortEvent>& events) {
  std::lock_guard lock(mutex_);
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
        appearing_[event.netdev] = now + kAppearPatience;
      }
      break;
    }
    case NetlinkEvent::Kind::DcbChanged:
      if (it != workers_.end()) it->second->mark_dirty(true);
      break;
    case NetlinkEvent::Kind::AddressChanged:
      address_changed(event.ifindex, now);
      break;
  }
}

void PortRegistry::recheck(const std::string& netdev) {
  std::lock_guard lock(mutex_);
  if (auto it = workers_.find(netdev); it != workers_.end()) it->second->mark_dirty(true);
}

// The GID table follows the addresses: re-check the port whose index it is. An index no link
// notification has named yet (none since roced started) may be any port's: check them all.
void PortRegistry::address_changed(int ifindex, TimePoint now) {
  const auto follow_up = now + kGidFollowUp;
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

std::optional<PortRegistry::TimePoint> PortRegistry::follow_up_gids(TimePoint now) {
  std::lock_guard lock(mutex_);
  std::optional<TimePoint> next;
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

bool PortRegistry::awaiting_appearance() const {
  std::lock_guard lock(mutex_);
  return !appearing_.empty();
}

void PortRegistry::look_for_appearing(const config::Config& config, TimePoint now,
                                      std::vector<PortEvent>& events) {
  const FileTree& files = *host_.system().files;
  std::lock_guard lock(mutex_);
  NetdevDescriber describer(files);
  for (auto it = appearing_.begin(); it != appearing_.end();) {
    auto port = describer.describe(it->first);
    const bool present = port && files.exists(kClassNet / it->first / "ifindex");
    if (present && !config.ports.selects(*port)) {
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

bool PortRegistry::all_checked() const {
  std::lock_guard lock(mutex_);
  return std::all_of(workers_.begin(), workers_.end(),
                     [](const auto& entry) { return entry.second->checked(); });
}

bool PortRegistry::all_checked_or_at_gate() const {
  std::lock_guard lock(mutex_);
  return std::all_of(workers_.begin(), workers_.end(), [](const auto& entry) {
    return entry.second->checked() || entry.second->at_gate();
  });
}

bool PortRegistry::all_alive(TimePoint now, std::chrono::milliseconds window) const {
  std::lock_guard lock(mutex_);
  return std::all_of(workers_.begin(), workers_.end(),
                     [&](const auto& entry) { return entry.second->alive(now, window); });
}

std::vector<PortSnapshot> PortRegistry::snapshots() const {
  std::vector<PortSnapshot> out;
  std::lock_guard lock(mutex_);
  out.reserve(workers_.size() + vanished_.size());
  for (const auto& [name, worker] : workers_) out.push_back(worker->snapshot());
  for (const auto& [name, last] : vanished_) out.push_back(last);
  return out;
}

std::vector<ManagedPort> PortRegistry::ports() const {
  std::vector<ManagedPort> out;
  std::lock_guard lock(mutex_);
  out.reserve(workers_.size() + vanished_.size());
  for (const auto& [name, worker] : workers_) out.push_back(worker->managed_port());
  for (const auto& [name, last] : vanished_) out.push_back({last.port, last.condition});
  return out;
}

std::optional<std::future<apply::PortResult>> PortRegistry::request_remediation(
    const std::string& netdev, Remediation remediation) {
  std::lock_guard lock(mutex_);
  const auto it = workers_.find(netdev);
  if (it == workers_.end()) return std::nullopt;
  return it->second->request_remediation(remediation);
}

std::vector<std::future<apply::PortResult>> PortRegistry::request_apply_all() {
  std::vector<std::future<apply::PortResult>> pending;
  std::lock_guard lock(mutex_);
  for (auto& [name, worker] : workers_) pending.push_back(worker->request_apply());
  return pending;
}

std::vector<std::unique_ptr<PortWorker>> PortRegistry::take_all() {
  std::vector<std::unique_ptr<PortWorker>> workers;
  std::lock_guard lock(mutex_);
  for (auto& [name, worker] : workers_) workers.push_back(std::move(worker));
  workers_.clear();
  for (auto& worker : retired_) workers.push_back(std::move(worker));
  retired_.clear();
  return workers;
}

}  // namespace roced::reconcile
