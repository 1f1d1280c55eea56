// SPDX-License-Identifier: Apache-2.0
#include "daemon/storms/storm_loop.hpp"

#include <algorithm>

#include "daemon/reconcile/netlink_events.hpp"

namespace roced::storms {

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
      watch_(watchdog::detector_settings(settings)) {}

StormLoop::~StormLoop() { stop(); }

void StormLoop::start() {
  last_round_ = time_.now().time_since_epoch().count();
  thread_ = std::thread([this] { run(); });
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
  const SteadyClock::time_point last{SteadyClock::duration(last_round_.load())};
  return now - last <=
         std::max<SteadyClock::duration>(10 * settings_.poll_interval, std::chrono::seconds(5));
}

void StormLoop::take_notifications() {
  if (!events_) {
    auto opened = reconcile::open_event_socket(system_);
    if (!opened) return;  // names are still refreshed on a count change and every 10 s
    events_ = std::move(*opened);
    for (auto& [netdev, poller] : pollers_) poller->names_stale();  // what happened unheard
  }
  for (;;) {
    auto datagram = events_->receive(std::chrono::milliseconds(0));
    if (!datagram) {
      // ENOBUFS: notifications were lost; otherwise the socket broke. Either way, re-read.
      if (datagram.error().code != ENOBUFS) events_.reset();
      for (auto& [netdev, poller] : pollers_) poller->names_stale();
      return;
    }
    if (datagram->empty()) return;
    for (const auto& event : reconcile::parse_notifications(*datagram)) {
      if (event.kind != reconcile::NetlinkEvent::Kind::DcbChanged) continue;
      if (auto it = pollers_.find(event.netdev); it != pollers_.end()) it->second->names_stale();
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
    if (auto it = pollers_.find(netdev); it != pollers_.end()) it->second->forget_values();
  }
}

void StormLoop::poll_once(const std::vector<WatchedPort>& ports) {
  take_notifications();
  // Every port's GSTATS in one batch (EthtoolIoctl::call_batch), then each port's answer.
  round_.clear();
  calls_.clear();
  for (const auto& watched : ports) {
    const std::string& netdev = watched.port.netdev;
    auto& poller = pollers_[netdev];
    if (!poller) {
      poller = std::make_unique<PortPoller>(system_, netdev, time_);
      poller->share_readings(cache_);
    }
    auto call = poller->prepare();
    if (!call) {
      skip(netdev, call.error());
      continue;
    }
    round_.push_back({poller.get(), watched.lossless});
    calls_.push_back(std::move(*call));
  }
  system_.ethtool->call_batch(calls_);
  std::vector<watchdog::PortStormEvent> events;
  for (size_t i = 0; i < round_.size(); ++i) {
    auto counters = round_[i].poller->finish(calls_[i]);
    if (round_[i].poller->take_names_changed() && names_changed_) {
      names_changed_(std::string(calls_[i].ifname));
    }
    if (!counters) {
      skip(std::string(calls_[i].ifname), counters.error());
      continue;
    }
    round_[i].poller->add_unlisted_pause_counts(*counters, round_[i].lossless);
    for (auto& event : watch_.feed(*counters, round_[i].lossless)) {
      events.push_back(std::move(event));
    }
  }
  // A port no longer targeted (vanished, deselected) starts afresh if it returns.
  for (auto it = pollers_.begin(); it != pollers_.end();) {
    const bool targeted = std::any_of(ports.begin(), ports.end(), [&](const WatchedPort& port) {
      return port.port.netdev == it->first;
    });
    if (targeted) {
      ++it;
      continue;
    }
    forget(it->first);
    it = pollers_.erase(it);
  }
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
  refresh_targets(time_.now());
  poll_once(ports_);
}

void StormLoop::run() {
  auto next = time_.now();  // when this round should begin
  for (;;) {
    const auto now = time_.now();
    // Late: woken late, or the last round overran its interval.
    if (now - next > settings_.poll_interval / 2) ++late_polls_;
    if (now > next) next = now;  // no burst of catch-up rounds after a late one
    refresh_targets(now);
    poll_once(ports_);
    // A fixed cadence, not a fixed sleep: the detector uses the measured interval, but polls
    // should not drift later by the time a poll takes.
    next += settings_.poll_interval;
    std::unique_lock lock(mutex_);
    if (time_.wait_until(lock, wake_, next, [this] { return stop_; })) return;
  }
}

}  // namespace roced::storms
