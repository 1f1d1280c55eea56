// SPDX-License-Identifier: Apache-2.0
#include "watchdog/storm_watch.hpp"

namespace roced::watchdog {

std::vector<PortStormEvent> StormWatch::feed(const PauseCounters& sample, uint8_t lossless) {
  std::vector<PortStormEvent> out;
  // Detectors of this port whose priority is no longer lossless go, storm or not: without PFC
  // on the priority the NIC neither honours nor sends pauses there.
  for (auto it = detectors_.lower_bound(Key{sample.netdev, 0, Direction::rx});
       it != detectors_.end() && std::get<0>(it->first) == sample.netdev;) {
    it = (lossless >> std::get<1>(it->first)) & 1u ? std::next(it) : detectors_.erase(it);
  }
  const auto before = previous_.find(sample.netdev);
  if (before != previous_.end()) {
    for (int priority = 0; priority < 8; ++priority) {
      if (((lossless >> priority) & 1u) == 0) continue;
      for (const Direction direction : {Direction::rx, Direction::tx}) {
        const StormEvidence evidence =
            read_storm_evidence(before->second, sample, priority, direction);
        auto [it, added] =
            detectors_.try_emplace(Key{sample.netdev, priority, direction}, settings_);
        for (auto& event : it->second.feed(evidence)) {
          out.push_back(PortStormEvent{sample.netdev, priority, direction, std::move(event)});
        }
      }
    }
  }
  if (before != previous_.end()) {
    before->second = sample;
  } else {
    previous_.emplace(sample.netdev, sample);
  }
  return out;
}

void StormWatch::reconfigure(DetectorSettings settings) {
  settings_ = settings;
  for (auto& [key, detector] : detectors_) detector.reconfigure(settings);
}

bool StormWatch::on_action(const std::string& netdev, int priority, Direction direction,
                           Clock::time_point at) {
  const auto it = detectors_.find(Key{netdev, priority, direction});
  return it != detectors_.end() && it->second.on_action(at);
}

void StormWatch::forget(const std::string& netdev) {
  previous_.erase(netdev);
  std::erase_if(detectors_, [&](const auto& entry) { return std::get<0>(entry.first) == netdev; });
}

bool StormWatch::busy(const std::string& netdev) const {
  for (auto it = detectors_.lower_bound(Key{netdev, 0, Direction::rx});
       it != detectors_.end() && std::get<0>(it->first) == netdev; ++it) {
    if (it->second.state() == StormState::storming || it->second.stormed_polls() > 0) return true;
  }
  return false;
}

const StormDetector* StormWatch::detector(const std::string& netdev, int priority,
                                          Direction direction) const {
  const auto it = detectors_.find(Key{netdev, priority, direction});
  return it == detectors_.end() ? nullptr : &it->second;
}

}  // namespace roced::watchdog
