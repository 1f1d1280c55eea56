// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every port's ethtool statistics through one path: the storm watchdog's loop asks for a round
// every poll, scrapes are served the latest reading (or read one through here when it is too old).
//
// A round reads a port fully (one ETHTOOL_GSTATS: some thirty firmware commands on mlx5) only when
// it must: the caller says the port is being watched closely (a storm being judged or handled),
// its MAC control frames moved since the last round (every PAUSE and PFC frame is one), it moved
// within kHotHold, or its last full reading is kRestInterval old. Otherwise the port is only
// probed: its MAC control frame counts through ethtool netlink, one firmware command
// (ethtool/mac_control.hpp). A storm pauses with frames, so its first frame makes the next round
// (at the latest) read fully, and from then on every round does, as before.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ethtool/mac_control.hpp"
#include "os/system.hpp"
#include "sampling/port_stats.hpp"
#include "util/time_source.hpp"

namespace roced::sampling {

class StatsPoller {
 public:
  // A quiet port's full reading is refreshed this often: the scrapes' counters are at most this
  // old (metrics.max_sample_age must allow it), and the names' own refresh rides on it.
  static constexpr std::chrono::seconds kRestInterval{2};
  // After MAC control frames last moved: short pauses come in episodes, and a detector that saw
  // pausing wants the polls that follow it.
  static constexpr std::chrono::seconds kHotHold{1};
  static constexpr std::chrono::milliseconds kProbeTimeout{1000};

  StatsPoller(System& system, TimeSource& time);

  // One port's part of a round.
  struct PortRound {
    std::string netdev;
    // Read fully this round: `reading` holds the result. Otherwise only probed, and nothing in
    // its pause counters can have moved since its last full reading.
    bool full = false;
    Result<StatsReading> reading = Error{EINVAL, "not read"};
    bool names_changed = false;  // the string set differs from the one before (PortStats)
  };
  using Watched = std::function<bool(const std::string& netdev)>;
  // A round over `netdevs`, in order; `watched` says which need a full reading whatever the probe
  // says. Ports not named are forgotten.
  std::vector<PortRound> round(const std::vector<std::string>& netdevs, const Watched& watched);
  // When a port's GSTATS of the last round was issued and answered: the poll budget's times.
  // Owned copies, since a port forgotten after the round takes its call's buffers with it.
  struct ReadTime {
    std::string netdev;
    std::chrono::steady_clock::time_point issued;
    std::chrono::steady_clock::time_point answered;
  };
  // The last round's reads, in the order they were sent, and how long its probe took before them.
  const std::vector<ReadTime>& last_reads() const { return reads_; }
  std::chrono::steady_clock::duration last_probe_time() const { return probe_time_; }

  // The port's string set may have changed (a DCB notification): its names are read again.
  void names_stale(const std::string& netdev);
  void all_names_stale();
  // The port vanished (a driver reload): what is known of it goes.
  void forget(const std::string& netdev);

  // For scrapes, from any thread: the port's latest full reading if it is at most `max_age` old,
  // else one read now (with its names afresh unless rounds keep them current). Empty when the
  // port cannot be read, or max_age is 0 and `read_if_old` false.
  std::optional<StatsReading> reading(const std::string& netdev,
                                      std::chrono::steady_clock::duration max_age,
                                      bool read_if_old = true);

  uint64_t full_reads() const;  // since start, every port
  uint64_t probes() const;

 private:
  struct Port {
    explicit Port(PortStats reader) : stats(std::move(reader)) {}
    PortStats stats;
    std::optional<MacControlFrames> frames;  // at the last probe or full reading
    TimeSource::TimePoint moved_at{};        // when they last moved
    TimeSource::TimePoint full_at{};         // the last full reading
    TimeSource::TimePoint round_at{};        // the last round that named the port
    bool read_once = false;
  };
  Port& port(const std::string& netdev);  // under mutex_
  // Which ports the probe clears this round: those whose MAC control frames did not move.
  std::vector<bool> quiet_by_probe(const std::vector<std::string>& netdevs,
                                   const std::vector<bool>& candidates, TimeSource::TimePoint now);
  // A full reading's own MAC control counts (mlx5's tx/rx_mac_control_phy are the same hardware
  // counters the probe reads), so the next probe compares against it.
  void note_frames(Port& port, const StatsReading& reading, TimeSource::TimePoint now);
  void keep(const std::string& netdev, const StatsReading& reading);

  System& system_;
  TimeSource& time_;
  std::mutex mutex_;  // ports_, calls_, reads_, probe_: a round, or a scrape's own read
  std::map<std::string, std::unique_ptr<Port>> ports_;
  MacControlReader probe_;
  std::vector<EthtoolCall> calls_;  // borrow their ports' names and buffers: a round's only
  std::vector<ReadTime> reads_;
  std::chrono::steady_clock::duration probe_time_{0};
  mutable std::mutex latest_mutex_;  // latest_ and the counts: what scrapes take
  std::map<std::string, StatsReading> latest_;
  uint64_t full_reads_ = 0;
  uint64_t probes_ = 0;
};

}  // namespace roced::sampling
