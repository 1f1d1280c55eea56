// SPDX-License-Identifier: Apache-2.0
#include "lldp/neighbours.hpp"

#include <algorithm>

namespace roced::lldp {
namespace {

bool same_sender(const Lldpdu& a, const Lldpdu& b) {
  return a.chassis_id_subtype == b.chassis_id_subtype && a.chassis_id == b.chassis_id &&
         a.port_id_subtype == b.port_id_subtype && a.port_id == b.port_id;
}

}  // namespace

Heard Neighbours::hear(const Lldpdu& lldpdu, TimePoint now) {
  const auto known = std::find_if(
      all_.begin(), all_.end(), [&](const Neighbour& n) { return same_sender(n.lldpdu, lldpdu); });
  if (lldpdu.ttl == 0) {  // 802.1AB 9.2.7.7.1: a shutdown LLDPDU ends the neighbour at once
    if (known == all_.end()) return Heard::Same;
    all_.erase(known);
    return Heard::Changed;
  }
  if (known == all_.end() && all_.size() >= kMaxNeighbours) return Heard::Crowded;
  Neighbour neighbour;
  if (known != all_.end()) {
    neighbour = std::move(*known);
    all_.erase(known);
  } else {
    neighbour.first_heard = now;
  }
  const bool changed = neighbour.frames == 0 || !(neighbour.lldpdu == lldpdu);
  neighbour.lldpdu = lldpdu;
  neighbour.last_heard = now;
  neighbour.expires = now + std::chrono::seconds(lldpdu.ttl);
  ++neighbour.frames;
  all_.insert(all_.begin(), std::move(neighbour));
  return changed ? Heard::Changed : Heard::Same;
}

bool Neighbours::expire(TimePoint now) {
  const size_t before = all_.size();
  std::erase_if(all_, [&](const Neighbour& n) { return n.expires <= now; });
  return all_.size() != before;
}

std::optional<Neighbours::TimePoint> Neighbours::next_expiry() const {
  std::optional<TimePoint> next;
  for (const auto& n : all_) {
    if (!next || n.expires < *next) next = n.expires;
  }
  return next;
}

}  // namespace roced::lldp
