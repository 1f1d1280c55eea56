// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test helper: successive readings of one port's pause counters with chosen values and times.
// Counters are kept between readings, so a test says only what moves in each poll.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "watchdog/pause_counters.hpp"

namespace roced::watchdog::test {

class SampleSeries {
 public:
  using Clock = std::chrono::steady_clock;

  explicit SampleSeries(std::string netdev = "lan3") : netdev_(std::move(netdev)) {}

  // A counter that exists from now on, at `value`.
  void set(const std::string& name, uint64_t value) { counters_[name] = value; }
  void add(const std::string& name, uint64_t by) { counters_[name] += by; }
  // mlx5 drops the per-priority pause names when PFC goes off on the priority.
  void erase(const std::string& name) { counters_.erase(name); }
  // A driver reload: every counter restarts from zero.
  void reset_all() {
    for (auto& entry : counters_) entry.second = 0;
    for (auto& entry : dcb_) entry.second = 0;
  }
  uint64_t value(const std::string& name) const { return counters_.at(name); }
  // A priority's pause frames as dcbnl getpfc reports them (dcb_pause_frames), from now on.
  void add_dcb(Direction direction, int priority, uint64_t by) {
    dcb_[{direction, priority}] += by;
  }

  // The reading taken `after` the previous one (the first at a fixed origin), instantaneous.
  PauseCounters take(Clock::duration after) {
    now_ += after;
    PauseCounters sample = pause_counters_from(counters_);
    sample.netdev = netdev_;
    sample.at = now_;
    for (const auto& [key, value] : dcb_) {
      sample.priority[static_cast<size_t>(key.second)][static_cast<size_t>(key.first)]
          .dcb_pause_frames = value;
    }
    return sample;
  }

  Clock::time_point now() const { return now_; }

 private:
  std::string netdev_;
  std::map<std::string, uint64_t> counters_;
  std::map<std::pair<Direction, int>, uint64_t> dcb_;
  Clock::time_point now_ = Clock::time_point{} + std::chrono::hours(1);
};

}  // namespace roced::watchdog::test
