// SPDX-License-Identifier: Apache-2.0
#include "daemon/storms/port_poller.hpp"

#include "daemon/log/log.hpp"
#include "dcb/client.hpp"

namespace roced::storms {

namespace {
using SteadyClock = std::chrono::steady_clock;
}  // namespace

PortPoller::PortPoller(System& system, std::string netdev, TimeSource& time)
    : system_(system), time_(time), reader_(system, std::move(netdev)) {}

Result<void> PortPoller::read_names() {
  auto names = reader_.names();
  if (!names) return names.error();
  index_ = watchdog::PauseCounterIndex(*names);
  if (!names_.empty() && *names != names_) names_changed_ = true;
  names_ = *names;
  shared_names_ = std::make_shared<const std::vector<std::string>>(names_);
  previous_.clear();  // another string set: nothing to compare with
  names_stale_ = false;
  names_at_ = time_.now();
  return ok();
}

watchdog::PauseCounters PortPoller::counters(std::span<const uint64_t> values,
                                             SteadyClock::time_point issued,
                                             SteadyClock::time_point answered) const {
  watchdog::PauseCounters out;
  out.netdev = reader_.ifname();
  out.read_time = answered - issued;
  out.at = issued + out.read_time / 2;
  index_.fill(values, out);
  // sysfs carrier (netif_carrier_ok: no firmware command). Unreadable (admin down: EINVAL, or
  // no file) leaves it unknown, and the counters alone decide.
  if (system_.files) {
    if (auto text = system_.files->read("/sys/class/net/" + reader_.ifname() + "/carrier")) {
      if (text->rfind('1', 0) == 0) out.carrier = true;
      if (text->rfind('0', 0) == 0) out.carrier = false;
    }
  }
  return out;
}

Result<EthtoolCall> PortPoller::prepare() {
  if (names_stale_ || time_.now() - names_at_ >= kNamesRefresh) {
    if (auto names = read_names(); !names) return names.error();
  }
  return reader_.values_call();
}

Result<watchdog::PauseCounters> PortPoller::finish(const EthtoolCall& call) {
  auto values = reader_.values_answered(call);
  if (!values) return values.error();
  if (values->size() == index_.size()) {
    note_decreases(*values);
    return counters(*values, call.issued, call.answered);
  }
  // The count differs from the names': PFC changed since they were read. Read both again.
  if (auto names = read_names(); !names) return names.error();
  const auto issued = time_.now();
  values = reader_.values();
  const auto answered = time_.now();
  if (!values) return values.error();
  if (values->size() != index_.size()) {
    names_stale_ = true;
    return Error{EAGAIN, reader_.ifname() + ": the statistics changed twice while read"};
  }
  note_decreases(*values);
  return counters(*values, issued, answered);
}

void PortPoller::note_decreases(std::span<const uint64_t> values) {
  if (cache_) cache_->put(reader_.ifname(), shared_names_, {values.begin(), values.end()});
  if (previous_.size() == values.size() && names_.size() == values.size()) {
    size_t lower = 0;
    size_t first = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] < previous_[i] && lower++ == 0) first = i;
    }
    // mlx5's ethtool counters are 64-bit and never wrap: a drop is a reset, and the difference
    // is no count (a wrapped subtraction would make a huge one).
    if (lower > 0) {
      log::port(spdlog::level::warn, reader_.ifname(), std::vector<std::string>{},
                "ethtool counter {} went backwards ({} -> {}){} without a driver reload: "
                "counted as a reset; the storm watchdog does not judge this poll",
                names_[first], previous_[first], values[first],
                lower > 1 ? fmt::format(", and {} more", lower - 1) : std::string());
    }
  }
  previous_.assign(values.begin(), values.end());
}

void PortPoller::add_unlisted_pause_counts(watchdog::PauseCounters& counters, uint8_t lossless) {
  bool unlisted = false;
  for (int p = 0; p < 8; ++p) {
    if ((lossless >> p & 1) != 0 && !counters.of(p, Direction::rx).pause_frames) unlisted = true;
  }
  if (!unlisted) {
    dcb_counts_.reset();
    return;
  }
  if (!dcb_counts_ || dcb_counts_->mac_pause_frames != counters.mac_pause_frames ||
      !counters.mac_pause_frames[0] || !counters.mac_pause_frames[1]) {
    // mlx5e_dcbnl_ieee_getpfc (en_dcbnl.c) reports priv->stats.pport's per-priority pause
    // counts, which only mlx5e_stats_update refreshes (en_stats.c; the NIC profile's periodic
    // update is mlx5e_stats_update_ndo_stats, software groups only), that is ETHTOOL_GSTATS:
    // asked right after ours, they are that read's. A DCB get runs every dcbnl getter (some 28
    // firmware commands on mlx5): it is made only when the MAC counted pause frames since the
    // last one.
    auto state = dcb::DcbClient(system_).get(reader_.ifname());
    if (!state || !state->pfc) {
      dcb_counts_.reset();
      return;
    }
    dcb_counts_ =
        DcbPauseCounts{counters.mac_pause_frames, {state->pfc->indications, state->pfc->requests}};
  }
  for (size_t p = 0; p < 8; ++p) {
    for (const Direction direction : {Direction::rx, Direction::tx}) {
      const auto d = static_cast<size_t>(direction);
      counters.priority[p][d].dcb_pause_frames = dcb_counts_->frames[d][p];
    }
  }
}

Result<watchdog::PauseCounters> PortPoller::read() {
  auto call = prepare();
  if (!call) return call.error();
  system_.ethtool->call_batch(std::span<EthtoolCall>(&*call, 1));
  return finish(*call);
}

}  // namespace roced::storms
