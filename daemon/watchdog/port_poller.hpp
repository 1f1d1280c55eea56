// SPDX-License-Identifier: Apache-2.0
#pragma once
// One port's pause counters for the storm watchdog, from a full statistics reading
// (sampling::StatsReading, which the StatsPoller makes each round it reads the port fully): the
// watched counters are found by index (watchdog::PauseCounterIndex), mapped once per string set.
// Standalone, for a loop of its own (a benchmark's), it reads the port itself through the same
// sampling::PortStats.

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "os/system.hpp"
#include "sampling/port_stats.hpp"
#include "util/counter_step.hpp"
#include "util/time_source.hpp"
#include "watchdog/pause_counters.hpp"

namespace roced::watchdog {

class PortPoller {
 public:
  // `time`: StormLoop's clock (the real one in roced).
  PortPoller(System& system, std::string netdev, TimeSource& time = real_time());

  // Reads the port itself (GSTATS) and gives its counters.
  Result<watchdog::PauseCounters> read();
  // The counters of a full reading of this port; `at` and `read_time` frame its GSTATS call.
  watchdog::PauseCounters counters(const sampling::StatsReading& reading);
  // With a `lossless` priority whose ethtool pause counters are unlisted (PFC off on it, as
  // disable-pfc leaves it), every priority's dcb_pause_frames from a DCB get right after the
  // GSTATS that read `counters`. Left empty when the get fails.
  void add_unlisted_pause_counts(watchdog::PauseCounters& counters, uint8_t lossless);
  // The string set may have changed (standalone reads only; the StatsPoller's own otherwise).
  void names_stale() { stats_.names_stale(); }
  // Counters seen wrapping at 2^32 (32-bit in firmware), and readings seen reset (some counter
  // went down and was no wrap), since this poller started.
  uint64_t counter_wraps() const { return counter_wraps_; }
  uint64_t counter_resets() const { return counter_resets_; }
  // The port vanished (driver reload): its counters restart, which is no news.
  void forget_values() {
    previous_.clear();
    dcb_counts_.reset();
  }

 private:
  System& system_;
  std::string netdev_;
  sampling::PortStats stats_;  // standalone reads
  watchdog::PauseCounterIndex index_;
  std::shared_ptr<const std::vector<std::string>> index_names_;  // the string set index_ is of
  // Logs a counter lower than in the previous poll (same string set): a counter cleared without
  // a driver reload (mlxlink --pc, firmware), which the detector cannot judge across.
  void note_decreases(const std::vector<std::string>& names, std::span<const uint64_t> values);

  std::vector<uint64_t> previous_;    // the last reading's values, in index_names_' order
  std::vector<CounterWidth> widths_;  // each of index_names_' counters' width
  uint64_t counter_wraps_ = 0;
  uint64_t counter_resets_ = 0;
  // The last DCB get's pause counts, and the port's MAC pause counts when it was made: while the
  // MAC counted no pause frame since, no priority's count can have moved either.
  struct DcbPauseCounts {
    std::array<std::optional<uint64_t>, 2> mac_pause_frames;
    std::array<std::array<uint64_t, 8>, 2> frames{};  // [Direction][priority]
  };
  std::optional<DcbPauseCounts> dcb_counts_;
};

}  // namespace roced::watchdog
