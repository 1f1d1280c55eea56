// SPDX-License-Identifier: Apache-2.0
#include "daemon/watchdog/storm_loop.hpp"

#include <algorithm>

#include "daemon/log/log.hpp"
#include "daemon/reconcile/netlink_events.hpp"

namespace roced::watchdog {

namespace {

using SteadyClock = std::chrono::steady_clock;

// Ports and profiles change seldom; asking the reconciler every 10 ms poll would copy its whole
// state a hundred times a second.
constexpr std::chrono::seconds kTargetsRefresh{1};

}  // namespace

StormLoop::StormLoop(System& system, watchdog::WatchdogSettings settings, Targets targets,
                     StormHandler& handler, TimeSource& time)
    : system_(system),
      settings_(settings),
      targets_(std::move(targets)),
      handler_(handler),
      time_(time),
      watch_(watchdog::detector_settings(settings)),
      poller_(std::make_shared<sampling::StatsPoller>(system, time)),
      budget_(settings.poll_interval, settings.poll_budget_cpu, settings.poll_budget_firmware),
      interval_ns_(std::chrono::nanoseconds(settings.poll_interval).count()) {
  publish_budget();
}

StormLoop::~StormLoop() { stop(); }

void StormLoop::start() {
  last_round_ = time_.now().time_since_epoch().count();
  thread_ = std::thread([this] { run(); });
}

void StormLoop::reconfigure(const watchdog::WatchdogSettings& settings) {
  {
    std::lock_guard lock(mutex_);
    new_settings_ = settings;
  }
  wake_.notify_all();  // a switched-off loop waits for it; a polling one ends no wait for it
}

void StormLoop::take_settings() {
  std::optional<watchdog::WatchdogSettings> settings;
  {
    std::lock_guard lock(mutex_);
    settings.swap(new_settings_);
  }
  if (!settings) return;
  settings_ = *settings;
  watch_.reconfigure(watchdog::detector_settings(settings_));
  handler_.on_settings(settings_);
  // A new budget: the cost is measured afresh against it.
  budget_ = watchdog::PollBudget(settings_.poll_interval, settings_.poll_budget_cpu,
                                 settings_.poll_budget_firmware);
  publish_budget();
}

void StormLoop::publish_budget() {
  interval_ns_ = std::chrono::nanoseconds(budget_.interval()).count();
  budget_limit_ = budget_.limit();
  detection_bound_ns_ = std::chrono::nanoseconds(
                            budget_.detection_bound(settings_.detection_time, budget_.interval()))
                            .count();
}

void StormLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool StormLoop::healthy(SteadyClock::time_point now) const {
  if (switched_off_idle_) return true;
  const SteadyClock::time_point last{SteadyClock::duration(last_round_.load())};
  return now - last <= std::max<SteadyClock::duration>(10 * interval(), std::chrono::seconds(5));
}

std::map<std::string, std::chrono::nanoseconds> StormLoop::read_time() const {
  std::lock_guard lock(read_time_mutex_);
  return read_time_;
}

void StormLoop::account(std::chrono::nanoseconds cpu) {
  watchdog::RoundCost cost;
  cost.cpu = cpu;
  read_cpu_ns_ += cpu.count();
  // A port's read is from its call, or from the answer before it when a transport sent the batch
  // at once: the time its own answer took either way.
  SteadyClock::time_point previous{};
  {
    std::lock_guard lock(read_time_mutex_);
    for (const auto& call : poller_->last_reads()) {
      const auto read = call.answered - std::max(call.issued, previous);
      previous = call.answered;
      if (read <= SteadyClock::duration::zero()) continue;
      const std::string& netdev = call.netdev;
      read_time_[netdev] += read;
      last_read_[netdev] = read;
      if (read > cost.slowest_read) {
        cost.slowest_read = read;
        cost.slowest_port = netdev;
      }
    }
  }
  // The reads of a round in which every port is read fully, after the probe: how late a storm's
  // port can be read, whichever ports are quiet now.
  cost.reads = poller_->last_probe_time();
  std::erase_if(last_read_, [&](const auto& entry) {
    return std::find(netdevs_.begin(), netdevs_.end(), entry.first) == netdevs_.end();
  });
  for (const auto& [netdev, read] : last_read_) cost.reads += read;
  const watchdog::BudgetLimit before = budget_.limit();
  const bool changed = budget_.after_round(cost);
  publish_budget();  // the round's reads move the bound even when the interval stays
  if (changed) report_budget(before);
}

void StormLoop::report_budget(watchdog::BudgetLimit before) const {
  using Ms = std::chrono::duration<double, std::milli>;
  const auto ms = [](auto d) { return std::chrono::duration_cast<Ms>(d).count(); };
  const watchdog::BudgetLimit now = budget_.limit();
  const auto bound = [&](SteadyClock::duration interval) {
    return ms(budget_.detection_bound(settings_.detection_time, interval));
  };
  if (now == watchdog::BudgetLimit::none) {
    spdlog::log(spdlog::level::info,
                "storm watchdog: polling every {:.0f} ms again, as configured: its reads fit "
                "the poll budget",
                ms(budget_.interval()));
    return;
  }
  const std::string why =
      now == watchdog::BudgetLimit::cpu
          ? fmt::format(
                "a round of reads takes {:.2f} ms of CPU, more than {:g}% of a core "
                "allows at the configured interval",
                ms(budget_.cpu_per_round()), budget_.cpu_share() * 100)
          : fmt::format(
                "a statistics read of {} takes {:.2f} ms of its firmware's time, more "
                "than {:g}% allows at the configured interval",
                budget_.slowest_port(), ms(budget_.slowest_read()), budget_.firmware_share() * 100);
  spdlog::log(now == before ? spdlog::level::debug : spdlog::level::warn,
              "storm watchdog: polling every {:.0f} ms, not the configured {:.0f} ms: {}; storms "
              "are detected within {:.0f} ms instead of {:.0f} ms (watchdog.poll_budget)",
              ms(budget_.interval()), ms(budget_.configured()), why, bound(budget_.interval()),
              bound(budget_.configured()));
}

void StormLoop::take_notifications() {
  if (!events_) {
    auto opened = reconcile::open_event_socket(system_);
    if (!opened) return;  // names are still refreshed on a count change and every 10 s
    events_ = std::move(*opened);
    poller_->all_names_stale();  // what happened unheard
  }
  for (;;) {
    auto datagram = events_->receive(std::chrono::milliseconds(0));
    if (!datagram) {
      // ENOBUFS: notifications were lost; otherwise the socket broke. Either way, re-read.
      if (datagram.error().code != ENOBUFS) events_.reset();
      poller_->all_names_stale();
      return;
    }
    if (datagram->empty()) return;
    for (const auto& event : reconcile::parse_notifications(*datagram)) {
      if (event.kind != reconcile::NetlinkEvent::Kind::DcbChanged) continue;
      poller_->names_stale(event.netdev);
    }
  }
}

void StormLoop::forget(const std::string& netdev) {
  // A new baseline when it is back.
  watch_.forget(netdev);
  handler_.on_port_forgotten(netdev);
}

void StormLoop::skip(const std::string& netdev, const Error& error) {
  // Gone (a driver reload): forgotten. Anything else (the string set changing twice while read,
  // a busy driver) is this round's: the next reading measures across the gap, and a storm being
  // handled keeps its hold.
  if (error.code == ENODEV) {
    forget(netdev);
    poller_->forget(netdev);
    if (auto it = pollers_.find(netdev); it != pollers_.end()) it->second->forget_values();
  }
}

void StormLoop::poll_once(const std::vector<WatchedPort>& ports) {
  const auto cpu_before = time_.thread_cpu_time();
  take_notifications();
  netdevs_.clear();
  for (const auto& watched : ports) netdevs_.push_back(watched.port.netdev);
  const auto round =
      poller_->round(netdevs_, [this](const std::string& netdev) { return watch_.busy(netdev); });
  std::vector<watchdog::PortStormEvent> events;
  for (size_t i = 0; i < round.size(); ++i) {
    const std::string& netdev = round[i].netdev;
    if (round[i].names_changed && names_changed_) names_changed_(netdev);
    if (!round[i].full) continue;  // quiet since its last full reading: nothing to judge
    if (!round[i].reading) {
      skip(netdev, round[i].reading.error());
      continue;
    }
    auto& poller = pollers_[netdev];
    if (!poller) poller = std::make_unique<PortPoller>(system_, netdev, time_);
    auto counters = poller->counters(*round[i].reading);
    poller->add_unlisted_pause_counts(counters, ports[i].lossless);
    for (auto& event : watch_.feed(counters, ports[i].lossless)) events.push_back(std::move(event));
  }
  // A port no longer targeted (vanished, deselected) starts afresh if it returns.
  for (auto it = pollers_.begin(); it != pollers_.end();) {
    if (std::find(netdevs_.begin(), netdevs_.end(), it->first) != netdevs_.end()) {
      ++it;
      continue;
    }
    forget(it->first);
    it = pollers_.erase(it);
  }
  account(time_.thread_cpu_time() - cpu_before);
  handler_.on_round(events, watch_, time_.now());
  ++polls_;
  last_round_ = time_.now().time_since_epoch().count();
}

void StormLoop::refresh_targets(SteadyClock::time_point now) {
  if (now - targets_at_ < kTargetsRefresh) return;
  ports_ = targets_();
  targets_at_ = now;
  handler_.on_targets(ports_);
}

void StormLoop::round() {
  take_settings();
  if (!settings_.enabled) {
    quiet_round();
    return;
  }
  refresh_targets(time_.now());
  poll_once(ports_);
}

void StormLoop::quiet_round() {
  events_.reset();  // nothing to hear meanwhile; reopened (names re-read) when switched on
  for (const auto& [netdev, poller] : pollers_) forget(netdev);
  pollers_.clear();
  ports_.clear();
  poller_->round({}, {});  // the poller forgets them too: scrapes read on demand meanwhile
  targets_at_ = {};        // asked afresh when switched on
  handler_.on_round({}, watch_, time_.now());
  last_round_ = time_.now().time_since_epoch().count();
}

bool StormLoop::wait_switched_off() {
  const bool releasing = handler_.holding();
  std::unique_lock lock(mutex_);
  const auto woken = [this] { return stop_ || new_settings_.has_value(); };
  if (releasing) {
    time_.wait_until(lock, wake_, time_.now() + settings_.poll_interval, woken);
  } else {
    switched_off_idle_ = true;
    time_.wait(lock, wake_, woken);
    switched_off_idle_ = false;
    last_round_ = time_.now().time_since_epoch().count();
  }
  return stop_;
}

void StormLoop::run() {
  auto next = time_.now();  // when this round should begin
  for (;;) {
    take_settings();
    if (!settings_.enabled) {
      quiet_round();
      if (wait_switched_off()) return;
      next = time_.now();
      continue;
    }
    const auto now = time_.now();
    // Late: woken late, or the last round overran its interval.
    if (now - next > budget_.interval() / 2) ++late_polls_;
    if (now > next) next = now;  // no burst of catch-up rounds after a late one
    refresh_targets(now);
    poll_once(ports_);
    // A fixed cadence, not a fixed sleep: the detector uses the measured interval, but polls
    // should not drift later by the time a poll takes.
    next += budget_.interval();
    std::unique_lock lock(mutex_);
    if (time_.wait_until(lock, wake_, next, [this] { return stop_; })) return;
  }
}

}  // namespace roced::watchdog
