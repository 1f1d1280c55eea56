// SPDX-License-Identifier: Apache-2.0
#include "watchdog/pause_counters.hpp"

#include <functional>
#include <unordered_map>

namespace roced::watchdog {

namespace {

// One watched counter: its mlx5 ethtool name and where its value goes.
struct Slot {
  std::string name;
  std::function<std::optional<uint64_t>&(PauseCounters&)> field;
};

const std::vector<Slot>& slots() {
  static const std::vector<Slot> table = [] {
    std::vector<Slot> out;
    for (size_t p = 0; p < 8; ++p) {
      for (const Direction direction : {Direction::rx, Direction::tx}) {
        const auto d = static_cast<size_t>(direction);
        const std::string prefix =
            std::string(roced::direction_name(direction)) + "_prio" + std::to_string(p) + "_";
        out.push_back({prefix + "pause", [p, d](PauseCounters& c) -> std::optional<uint64_t>& {
                         return c.priority[p][d].pause_frames;
                       }});
        out.push_back(
            {prefix + "pause_duration", [p, d](PauseCounters& c) -> std::optional<uint64_t>& {
               return c.priority[p][d].pause_duration_us;
             }});
        out.push_back({prefix + "packets", [p, d](PauseCounters& c) -> std::optional<uint64_t>& {
                         return c.priority[p][d].packets;
                       }});
        if (direction == Direction::rx) {
          out.push_back({prefix + "discards", [p, d](PauseCounters& c) -> std::optional<uint64_t>& {
                           return c.priority[p][d].discards;
                         }});
        }
      }
    }
    for (const Direction direction : {Direction::rx, Direction::tx}) {
      const auto d = static_cast<size_t>(direction);
      out.push_back(
          {std::string(roced::direction_name(direction)) + "_pause_ctrl_phy",
           [d](PauseCounters& c) -> std::optional<uint64_t>& { return c.mac_pause_frames[d]; }});
    }
    out.push_back(
        {"tx_pause_storm_warning_events",
         [](PauseCounters& c) -> std::optional<uint64_t>& { return c.storm_warning_events; }});
    out.push_back({"tx_pause_storm_error_events", [](PauseCounters& c) -> std::optional<uint64_t>& {
                     return c.storm_error_events;
                   }});
    return out;
  }();
  return table;
}

}  // namespace

PauseCounters pause_counters_from(const std::map<std::string, uint64_t>& counters) {
  PauseCounters out;
  for (const Slot& slot : slots()) {
    if (const auto it = counters.find(slot.name); it != counters.end()) {
      slot.field(out) = it->second;
    }
  }
  return out;
}

PauseCounterIndex::PauseCounterIndex(const std::vector<std::string>& names) : size_(names.size()) {
  std::unordered_map<std::string_view, uint32_t> position;
  position.reserve(names.size());
  // A duplicated name keeps its first position, as `ethtool -S` shows it first.
  for (uint32_t i = 0; i < names.size(); ++i) position.emplace(names[i], i);
  slots_.reserve(slots().size());
  for (const Slot& slot : slots()) {
    const auto it = position.find(slot.name);
    slots_.push_back(it == position.end() ? kAbsent : it->second);
  }
}

void PauseCounterIndex::fill(std::span<const uint64_t> values, PauseCounters& out) const {
  const auto& table = slots();
  for (size_t i = 0; i < slots_.size(); ++i) {
    std::optional<uint64_t>& field = table[i].field(out);
    if (slots_[i] != kAbsent && slots_[i] < values.size()) {
      field = values[slots_[i]];
    } else {
      field.reset();
    }
  }
}

}  // namespace roced::watchdog
