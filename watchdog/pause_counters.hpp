// SPDX-License-Identifier: Apache-2.0
#pragma once
// The few ethtool counters of one port the storm watchdog reads each poll, out of the ~220 mlx5
// lists. Built either from a name -> value map (tests, a full telemetry sample) or, on the poll
// path, by PauseCounterIndex from the raw ETHTOOL_GSTATS values: the indexes of these names in
// the port's string set are found once per string set, not per poll.

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ethtool/ethtool_names.hpp"

namespace roced::watchdog {

using Clock = std::chrono::steady_clock;
using roced::Direction;  // rx: the peer pauses us; tx: we pause the peer

// One priority, one direction. Absent = not listed by the driver (mlx5 lists the pause counters
// of a priority only while PFC is on for it).
struct DirectionCounters {
  std::optional<uint64_t> pause_frames;       // {dir}_prio{p}_pause
  std::optional<uint64_t> pause_duration_us;  // {dir}_prio{p}_pause_duration
  std::optional<uint64_t> packets;            // {dir}_prio{p}_packets
  std::optional<uint64_t> discards;           // rx only: rx_prio{p}_discards
  // The priority's pause frames as dcbnl getpfc reports them (tx: requests, rx: indications),
  // which it does for every priority, PFC or not. Read only while a lossless priority of the
  // port has no ethtool pause counters (PFC off on it): the port's MAC count cannot tell whose
  // pause frames it counts.
  std::optional<uint64_t> dcb_pause_frames;
};

struct PauseCounters {
  std::string netdev;
  // When the counters were read: the middle of the read. The device took its snapshot somewhere
  // within [at - read_time / 2, at + read_time / 2].
  Clock::time_point at;
  Clock::duration read_time{0};
  std::array<std::array<DirectionCounters, 2>, 8> priority{};  // [p][Direction]
  std::array<std::optional<uint64_t>, 2> mac_pause_frames{};   // {dir}_pause_ctrl_phy
  std::optional<uint64_t> storm_warning_events;                // tx_pause_storm_warning_events
  std::optional<uint64_t> storm_error_events;                  // tx_pause_storm_error_events
  // The link's carrier when the counters were read; empty when it could not be read. A PFC mask
  // change flaps an mlx5 link for seconds, and no counter moves while it is down.
  std::optional<bool> carrier;

  const DirectionCounters& of(int p, Direction direction) const {
    return priority[static_cast<size_t>(p)][static_cast<size_t>(direction)];
  }
};

// From counters by name (every name optional).
PauseCounters pause_counters_from(const std::map<std::string, uint64_t>& counters);

// Where each watched counter sits in one string set.
class PauseCounterIndex {
 public:
  PauseCounterIndex() = default;
  explicit PauseCounterIndex(const std::vector<std::string>& names);

  size_t size() const { return size_; }  // the string set's length it was built for
  // Fills `out`'s counters from GSTATS values of the same string set (netdev and times untouched).
  void fill(std::span<const uint64_t> values, PauseCounters& out) const;

 private:
  static constexpr uint32_t kAbsent = UINT32_MAX;
  std::vector<uint32_t> slots_;  // per watched name (pause_counters.cpp's order): its index
  size_t size_ = 0;
};

}  // namespace roced::watchdog
