// SPDX-License-Identifier: Apache-2.0
#pragma once
// What one port has heard: a neighbour per sender (802.1AB's MSAP: chassis ID and port ID), each
// forgotten when its TTL runs out or it sends a shutdown LLDPDU (TTL 0). A cable has one switch
// port at its end; more than one sender (a hub, a misbehaving bridge) is shown, and their number
// is capped so a flood of made-up senders cannot grow the table.

#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

#include "lldp/lldpdu.hpp"

namespace roced::lldp {

inline constexpr size_t kMaxNeighbours = 4;

struct Neighbour {
  using TimePoint = std::chrono::steady_clock::time_point;
  Lldpdu lldpdu;
  TimePoint first_heard{};
  TimePoint last_heard{};
  TimePoint expires{};
  uint64_t frames = 0;
};

enum class Heard : uint8_t {
  Same,     // a refresh of what was known
  Changed,  // a new neighbour, a changed advertisement, or one gone (TTL 0)
  Crowded,  // a new sender while kMaxNeighbours are known: dropped
};

class Neighbours {
 public:
  using TimePoint = Neighbour::TimePoint;

  Heard hear(const Lldpdu& lldpdu, TimePoint now);
  // Forgets those whose TTL ran out by `now`; true when one was.
  bool expire(TimePoint now);
  std::optional<TimePoint> next_expiry() const;
  void clear() { all_.clear(); }

  // Most recently heard first.
  const std::vector<Neighbour>& all() const { return all_; }
  const Neighbour* current() const { return all_.empty() ? nullptr : &all_.front(); }

 private:
  std::vector<Neighbour> all_;
};

}  // namespace roced::lldp
