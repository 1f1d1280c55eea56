// SPDX-License-Identifier: Apache-2.0
#include "probe/schedule.hpp"

#include <algorithm>

namespace roced::probe {

namespace {

// splitmix64: a cheap, well-spread hash for the flow labels.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

ProbeSchedule::ProbeSchedule(ScheduleSettings settings, const std::vector<size_t>& targets,
                             TimePoint start, uint64_t seed)
    : settings_(settings), random_(seed), seed_(seed) {
  size_t probing = 0;
  for (const size_t count : targets) probing += count > 0 ? 1 : 0;
  double rate = settings_.probes_per_second_per_port;
  if (probing > 0) {
    rate = std::min(rate, settings_.probes_per_second_total / static_cast<double>(probing));
  }
  interval_ = rate > 0 ? std::chrono::nanoseconds(static_cast<int64_t>(1e9 / rate))
                       : std::chrono::nanoseconds::max();
  ports_.reserve(targets.size());
  for (const size_t count : targets) {
    PortTurn turn;
    turn.targets = count;
    turn.sent_to.assign(count, 0);
    // The first probes spread over one interval rather than all at the start.
    turn.due = start + (count > 0 ? jittered() / 2 : std::chrono::nanoseconds(0));
    ports_.push_back(std::move(turn));
  }
}

std::chrono::nanoseconds ProbeSchedule::jittered() {
  if (interval_ == std::chrono::nanoseconds::max()) return interval_;
  std::uniform_real_distribution<double> share(1.0 - settings_.jitter, 1.0 + settings_.jitter);
  return std::chrono::nanoseconds(
      static_cast<int64_t>(static_cast<double>(interval_.count()) * share(random_)));
}

uint32_t ProbeSchedule::label(size_t port, size_t target, uint32_t turn) const {
  const uint32_t slot = settings_.flow_labels > 0 ? turn % settings_.flow_labels : 0;
  const uint64_t hash = mix(seed_ ^ mix((static_cast<uint64_t>(port) << 40) ^
                                        (static_cast<uint64_t>(target) << 8) ^ slot));
  // 20 bits, never 0: a zero flow label asks the kernel to pick one itself.
  const auto value = static_cast<uint32_t>(hash & 0xfffff);
  return value == 0 ? 1 : value;
}

ProbeSchedule::TimePoint ProbeSchedule::next_due() const {
  TimePoint earliest = TimePoint::max();
  for (const PortTurn& turn : ports_) {
    if (turn.targets > 0) earliest = std::min(earliest, turn.due);
  }
  return earliest;
}

std::vector<DueProbe> ProbeSchedule::take_due(TimePoint now) {
  std::vector<DueProbe> due;
  for (size_t port = 0; port < ports_.size(); ++port) {
    PortTurn& turn = ports_[port];
    if (turn.targets == 0 || turn.due > now) continue;
    const size_t target = turn.next_target;
    due.push_back({port, target, label(port, target, turn.sent_to[target]++)});
    turn.next_target = (target + 1) % turn.targets;
    turn.due += jittered();
    if (turn.due <= now) turn.due = now + jittered();  // fell behind: no catch-up burst
  }
  return due;
}

}  // namespace roced::probe
