// SPDX-License-Identifier: Apache-2.0
#include "sampling/stats_poller.hpp"

#include <algorithm>

namespace roced::sampling {

namespace {

// The index of `name` in a reading's names; npos when absent.
size_t index_of(const std::vector<std::string>& names, std::string_view name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? std::string::npos : static_cast<size_t>(it - names.begin());
}

}  // namespace

StatsPoller::StatsPoller(System& system, TimeSource& time)
    : system_(system), time_(time), probe_(system) {}

StatsPoller::Port& StatsPoller::port(const std::string& netdev) {
  auto& slot = ports_[netdev];
  if (!slot) slot = std::make_unique<Port>(PortStats(system_, netdev, time_));
  return *slot;
}

void StatsPoller::note_frames(Port& port, const StatsReading& reading, TimeSource::TimePoint now) {
  // en_stats.c pport_802_3_stats_desc: tx/rx_mac_control_phy are a_mac_control_frames_*, the
  // counters mlx5e_stats_eth_ctrl_get reads for the probe.
  const size_t tx = index_of(*reading.names, "tx_mac_control_phy");
  const size_t rx = index_of(*reading.names, "rx_mac_control_phy");
  if (tx == std::string::npos || rx == std::string::npos) {
    port.frames.reset();  // nothing to compare the next probe with: it reads fully again
    return;
  }
  const MacControlFrames frames{reading.values[tx], reading.values[rx]};
  if (port.frames && *port.frames != frames) port.moved_at = now;
  port.frames = frames;
}

void StatsPoller::keep(const std::string& netdev, const StatsReading& reading) {
  const std::lock_guard lock(latest_mutex_);
  latest_[netdev] = reading;
  ++full_reads_;
}

std::vector<bool> StatsPoller::quiet_by_probe(const std::vector<std::string>& netdevs,
                                              const std::vector<bool>& candidates,
                                              TimeSource::TimePoint now) {
  std::vector<bool> quiet(netdevs.size(), false);
  std::vector<std::string> asked;
  std::vector<size_t> which;
  for (size_t i = 0; i < netdevs.size(); ++i) {
    if (!candidates[i]) continue;
    asked.push_back(netdevs[i]);
    which.push_back(i);
  }
  if (asked.empty() || !probe_.available()) return quiet;
  const auto start = time_.now();
  const auto answers = probe_.read(asked, kProbeTimeout);
  probe_time_ = time_.now() - start;
  {
    const std::lock_guard lock(latest_mutex_);
    probes_ += asked.size();
  }
  for (size_t k = 0; k < asked.size(); ++k) {
    Port& p = *ports_.at(asked[k]);
    if (!answers[k]) continue;  // unreadable this way: read fully
    const bool moved = !p.frames || *p.frames != *answers[k];
    if (moved) p.moved_at = now;
    p.frames = *answers[k];
    quiet[which[k]] = !moved && now - p.moved_at >= kHotHold;
  }
  return quiet;
}

std::vector<StatsPoller::PortRound> StatsPoller::round(const std::vector<std::string>& netdevs,
                                                       const Watched& watched) {
  const std::lock_guard lock(mutex_);
  const auto now = time_.now();
  probe_time_ = {};
  std::erase_if(ports_, [&](const auto& entry) {
    return std::find(netdevs.begin(), netdevs.end(), entry.first) == netdevs.end();
  });
  // Probed, not read: a port read before, recently enough, that nobody watches closely.
  std::vector<bool> candidates(netdevs.size(), false);
  for (size_t i = 0; i < netdevs.size(); ++i) {
    Port& p = port(netdevs[i]);
    p.round_at = now;
    // Stale names (PFC changed the string set) make it read fully: the reading scrapes are
    // served carries the old names until then.
    candidates[i] = p.read_once && p.frames && !p.stats.names_are_stale() &&
                    now - p.full_at < kRestInterval && now - p.moved_at >= kHotHold &&
                    !(watched && watched(netdevs[i]));
  }
  const std::vector<bool> quiet = quiet_by_probe(netdevs, candidates, now);

  std::vector<PortRound> out(netdevs.size());
  std::vector<size_t> batch;  // the ports whose GSTATS calls_ holds, in order
  calls_.clear();
  for (size_t i = 0; i < netdevs.size(); ++i) {
    out[i].netdev = netdevs[i];
    if (quiet[i]) continue;
    out[i].full = true;
    auto call = ports_.at(netdevs[i])->stats.prepare();
    if (!call) {
      out[i].reading = call.error();
      continue;
    }
    batch.push_back(i);
    calls_.push_back(std::move(*call));
  }
  system_.ethtool->call_batch(calls_);
  reads_.clear();
  for (const EthtoolCall& call : calls_)
    reads_.push_back({std::string(call.ifname), call.issued, call.answered});
  for (size_t k = 0; k < batch.size(); ++k) {
    PortRound& result = out[batch[k]];
    Port& p = *ports_.at(result.netdev);
    result.reading = p.stats.finish(calls_[k]);
    result.names_changed = p.stats.take_names_changed();
    if (!result.reading) continue;
    p.read_once = true;
    p.full_at = now;
    note_frames(p, *result.reading, now);
    keep(result.netdev, *result.reading);
  }
  calls_.clear();
  return out;
}

void StatsPoller::names_stale(const std::string& netdev) {
  const std::lock_guard lock(mutex_);
  if (auto it = ports_.find(netdev); it != ports_.end()) it->second->stats.names_stale();
}

void StatsPoller::all_names_stale() {
  const std::lock_guard lock(mutex_);
  for (auto& [netdev, p] : ports_) p->stats.names_stale();
}

void StatsPoller::forget(const std::string& netdev) {
  {
    const std::lock_guard lock(mutex_);
    ports_.erase(netdev);
  }
  const std::lock_guard lock(latest_mutex_);
  latest_.erase(netdev);
}

std::optional<StatsReading> StatsPoller::reading(const std::string& netdev,
                                                 std::chrono::steady_clock::duration max_age,
                                                 bool read_if_old) {
  {
    const std::lock_guard lock(latest_mutex_);
    const auto it = latest_.find(netdev);
    if (it != latest_.end() && max_age > std::chrono::steady_clock::duration::zero() &&
        time_.now() - it->second.answered <= max_age) {
      return it->second;
    }
  }
  if (!read_if_old) return std::nullopt;
  const std::lock_guard lock(mutex_);
  Port& p = port(netdev);
  // No round keeps this port's names current (no DCB notification reaches them): a PFC change
  // keeps the value count on mlx5 when it moves a priority, so the names are read every time.
  if (time_.now() - p.round_at > kRestInterval) p.stats.names_stale();
  auto fresh = p.stats.read();
  if (!fresh) return std::nullopt;
  keep(netdev, *fresh);
  return *fresh;
}

uint64_t StatsPoller::full_reads() const {
  const std::lock_guard lock(latest_mutex_);
  return full_reads_;
}

uint64_t StatsPoller::probes() const {
  const std::lock_guard lock(latest_mutex_);
  return probes_;
}

}  // namespace roced::sampling
