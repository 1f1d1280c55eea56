// SPDX-License-Identifier: Apache-2.0
#pragma once
// One port's ethtool statistics, read with one ETHTOOL_GSTATS: the names are read (GSTRINGS) only
// when the string set may have changed — the value count differs, a DCB change was announced for
// the port, or kNamesRefresh passed (a firmware DCBX agent changes PFC without telling anyone).

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ethtool/ethtool.hpp"
#include "os/system.hpp"
#include "util/time_source.hpp"

namespace roced::sampling {

// A full reading: the values in the order of the names they were read with.
struct StatsReading {
  std::shared_ptr<const std::vector<std::string>> names;
  std::vector<uint64_t> values;
  TimeSource::TimePoint issued;    // the GSTATS call was made
  TimeSource::TimePoint answered;  // and answered: the device read its counters in between
};

class PortStats {
 public:
  static constexpr std::chrono::seconds kNamesRefresh{10};
  PortStats(System& system, std::string netdev, TimeSource& time);

  const std::string& netdev() const { return reader_.ifname(); }
  // Both halves below, alone.
  Result<StatsReading> read();
  // The GSTATS call (the names read first when stale), for a batch of ports
  // (EthtoolIoctl::call_batch); then the reading from its answer. A count that differs from the
  // names' reads both again; EAGAIN when the string set changed twice meanwhile.
  Result<EthtoolCall> prepare();
  Result<StatsReading> finish(EthtoolCall& call);
  // The string set may have changed (a DCB notification, our own PFC change): names next read.
  void names_stale() { names_stale_ = true; }
  bool names_are_stale() const { return names_stale_; }
  // Whether the string set read since the last call differs from the one before it: on mlx5 the
  // per-priority pause counters come and go with the PFC mask (en_stats.c
  // mlx5e_grp_per_prio_pfc_fill_strings), so a change nobody announced shows here.
  bool take_names_changed() { return std::exchange(names_changed_, false); }

 private:
  Result<void> read_names();
  StatsReading reading(std::span<const uint64_t> values, TimeSource::TimePoint issued,
                       TimeSource::TimePoint answered) const;

  System& system_;
  TimeSource& time_;
  StatsReader reader_;
  bool names_stale_ = true;
  bool names_changed_ = false;
  TimeSource::TimePoint names_at_{};
  std::shared_ptr<const std::vector<std::string>> names_;
};

}  // namespace roced::sampling
