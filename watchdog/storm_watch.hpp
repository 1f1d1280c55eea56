// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every port's storm detectors, fed each port's pause counters poll by poll: keeps each port's
// previous reading, turns each new one into per-(priority, direction) evidence for the port's
// lossless priorities, and returns the detectors' events tagged with where they happened. No
// threads and no I/O: the daemon's poll loop (daemon/watchdog) reads, feeds this and acts.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "watchdog/pause_counters.hpp"
#include "watchdog/storm_detector.hpp"

namespace roced::watchdog {

struct PortStormEvent {
  std::string netdev;
  int priority = 0;
  Direction direction = Direction::rx;
  StormEvent event;
};

class StormWatch {
 public:
  explicit StormWatch(DetectorSettings settings) : settings_(settings) {}

  // `lossless`: bit p set = watch priority p (the profile's PFC priorities) in both directions.
  // A port's first reading only sets its baseline. Detectors of priorities no longer watched are
  // dropped. The reading is kept as the port's next baseline.
  std::vector<PortStormEvent> feed(const PauseCounters& reading, uint8_t lossless);

  // The caller remediated this storm at `at` (StormDetector::on_action); false when no storm is
  // being handled there.
  bool on_action(const std::string& netdev, int priority, Direction direction,
                 Clock::time_point at);

  // New settings for every detector and those made from now on (StormDetector::reconfigure).
  void reconfigure(DetectorSettings settings);

  // The port vanished (driver reload): its counters restart, so its baseline and its detectors
  // go; it starts afresh when it returns.
  void forget(const std::string& netdev);

  // Whether a detector of the port is in a run of stormed polls or handling a storm: every poll
  // of it must then be read, none skipped as quiet.
  bool busy(const std::string& netdev) const;

  // The detector of (netdev, priority, direction); nullptr when there is none.
  const StormDetector* detector(const std::string& netdev, int priority, Direction direction) const;

 private:
  using Key = std::tuple<std::string, int, Direction>;
  DetectorSettings settings_;
  std::map<std::string, PauseCounters> previous_;
  std::map<Key, StormDetector> detectors_;
};

}  // namespace roced::watchdog
