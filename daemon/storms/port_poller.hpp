// SPDX-License-Identifier: Apache-2.0
#pragma once
// One port's pause counters, read each poll with one ETHTOOL_GSTATS: the ethtool names are read
// (GSTRINGS) only when the string set may have changed — the value count differs, a DCB change
// was announced for the port, or kNamesRefresh passed (a firmware DCBX agent changes PFC without
// telling anyone) — and mapped to the watchdog's counters once (watchdog::PauseCounterIndex).

#include <array>
#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ethtool/ethtool.hpp"
#include "os/system.hpp"
#include "telemetry/stats_cache.hpp"
#include "util/time_source.hpp"
#include "watchdog/pause_counters.hpp"

namespace roced::storms {

class PortPoller {
 public:
  static constexpr std::chrono::seconds kNamesRefresh{10};
  // `time`: StormLoop's clock (the real one in roced).
  PortPoller(System& system, std::string netdev, TimeSource& time = real_time());

  // Reads the counters; `at` and `read_time` frame the GSTATS call.
  Result<watchdog::PauseCounters> read();
  // The same in two halves, for a batch of ports (EthtoolIoctl::call_batch): the GSTATS call
  // (the names read first when stale), then the counters from its answer.
  Result<EthtoolCall> prepare();
  Result<watchdog::PauseCounters> finish(const EthtoolCall& call);
  // With a `lossless` priority whose ethtool pause counters are unlisted (PFC off on it, as
  // disable-pfc leaves it), every priority's dcb_pause_frames from a DCB get right after the
  // GSTATS that read `counters`. Left empty when the get fails.
  void add_unlisted_pause_counts(watchdog::PauseCounters& counters, uint8_t lossless);
  // The string set may have changed (a DCB notification, our own PFC change): names next read.
  void names_stale() { names_stale_ = true; }
  // The port vanished (driver reload): its counters restart, which is no news.
  void forget_values() {
    previous_.clear();
    dcb_counts_.reset();
  }
  // Whether the string set read since the last call differs from the one before it: on mlx5 the
  // per-priority pause counters come and go with the PFC mask (en_stats.c
  // mlx5e_grp_per_prio_pfc_fill_strings), so a change nobody announced shows here.
  bool take_names_changed() { return std::exchange(names_changed_, false); }
  // Every full reading also goes to `cache`, for the metrics endpoint to serve.
  void share_readings(std::shared_ptr<telemetry::StatsCache> cache) { cache_ = std::move(cache); }

 private:
  Result<void> read_names();
  watchdog::PauseCounters counters(std::span<const uint64_t> values,
                                   std::chrono::steady_clock::time_point issued,
                                   std::chrono::steady_clock::time_point answered) const;

  System& system_;
  TimeSource& time_;
  StatsReader reader_;
  watchdog::PauseCounterIndex index_;
  // Logs a counter lower than in the previous poll (same string set): a counter cleared without
  // a driver reload (mlxlink --pc, firmware), which the detector cannot judge across.
  void note_decreases(std::span<const uint64_t> values);

  bool names_stale_ = true;
  bool names_changed_ = false;
  std::chrono::steady_clock::time_point names_at_;
  std::vector<std::string> names_;  // the string set the values are read with
  std::shared_ptr<const std::vector<std::string>> shared_names_;  // the same, for cache_
  std::shared_ptr<telemetry::StatsCache> cache_;
  std::vector<uint64_t> previous_;  // the last poll's values, in names_' order
  // The last DCB get's pause counts, and the port's MAC pause counts when it was made: while the
  // MAC counted no pause frame since, no priority's count can have moved either.
  struct DcbPauseCounts {
    std::array<std::optional<uint64_t>, 2> mac_pause_frames;
    std::array<std::array<uint64_t, 8>, 2> frames{};  // [Direction][priority]
  };
  std::optional<DcbPauseCounts> dcb_counts_;
};

}  // namespace roced::storms
