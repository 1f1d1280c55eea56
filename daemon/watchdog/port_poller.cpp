// SPDX-License-Identifier: Apache-2.0
#include "daemon/watchdog/port_poller.hpp"

#include "daemon/log/log.hpp"
#include "dcb/client.hpp"
#include "ethtool/ethtool_names.hpp"
#include "util/counter_step.hpp"

namespace roced::watchdog {

PortPoller::PortPoller(System& system, std::string netdev, TimeSource& time)
    : system_(system), netdev_(netdev), stats_(system, std::move(netdev), time) {}

watchdog::PauseCounters PortPoller::counters(const sampling::StatsReading& reading) {
  if (reading.names != index_names_) {
    index_ = watchdog::PauseCounterIndex(*reading.names);
    index_names_ = reading.names;
    widths_.clear();
    for (const auto& name : *reading.names) widths_.push_back(ethtool_counter_width(name));
    previous_.clear();  // another string set: nothing to compare with
  }
  note_decreases(*reading.names, reading.values);
  watchdog::PauseCounters out;
  out.netdev = netdev_;
  out.read_time = reading.answered - reading.issued;
  out.at = reading.issued + out.read_time / 2;
  index_.fill(reading.values, out);
  // sysfs carrier (netif_carrier_ok: no firmware command). Unreadable (admin down: EINVAL, or
  // no file) leaves it unknown, and the counters alone decide.
  if (system_.files) {
    if (auto text = system_.files->read("/sys/class/net/" + netdev_ + "/carrier")) {
      if (text->rfind('1', 0) == 0) out.carrier = true;
      if (text->rfind('0', 0) == 0) out.carrier = false;
    }
  }
  return out;
}

void PortPoller::note_decreases(const std::vector<std::string>& names,
                                std::span<const uint64_t> values) {
  if (previous_.size() == values.size() && names.size() == values.size() &&
      widths_.size() == values.size()) {
    // A counter lower than before is a wrap or a reset by util/counter_step.hpp's rule: mlx5's
    // Q, vport environment and PCIe counters are 32-bit and wrap at 2^32 (en_stats.c
    // MLX5E_READ_CTR32_*, ethtool_names.hpp kMlx5Counters32), the rest are 64-bit and never do.
    // A reset's difference is no count (a wrapped subtraction would make a huge one).
    const bool reset = reading_reset(widths_, previous_, values);
    size_t lower = 0;
    size_t first = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] >= previous_[i]) continue;
      const CounterStep step = counter_step(previous_[i], values[i], widths_[i], reset);
      if (step.change == CounterChange::advanced) continue;  // a gauge: it goes down too
      if (step.change == CounterChange::wrapped) {
        ++counter_wraps_;
        log::port(spdlog::level::debug, netdev_, std::vector<std::string>{},
                  "ethtool counter {} (32-bit in firmware) wrapped: {} -> {}, {} counted", names[i],
                  previous_[i], values[i], step.delta);
        continue;
      }
      if (lower++ == 0) first = i;
    }
    if (lower > 0) {
      ++counter_resets_;
      log::port(spdlog::level::warn, netdev_, std::vector<std::string>{},
                "ethtool counter {} went backwards ({} -> {}){} without a driver reload: "
                "counted as a reset; the storm watchdog does not judge this poll",
                names[first], previous_[first], values[first],
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
    auto state = dcb::DcbClient(system_).get(netdev_);
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
  auto reading = stats_.read();
  if (!reading) return reading.error();
  return counters(*reading);
}

}  // namespace roced::watchdog
