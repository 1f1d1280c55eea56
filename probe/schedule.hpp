// SPDX-License-Identifier: Apache-2.0
#pragma once
// When each port sends its next probe, and to whom. Each port goes round its own targets in
// turn at its rate: the configured rate a port, unless the node's budget split over its ports
// allows less. Each interval is jittered (a random share either way) so that the nodes of a
// fleet, started together, do not probe in step. Each probe to a target takes the next of a
// few IPv6 flow labels, which RoCE v2 turns into the UDP source port switches hash on
// (rdma_flow_label_to_udp_sport, include/rdma/ib_verbs.h), so successive probes spread over
// the fabric's ECMP paths.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace roced::probe {

struct ScheduleSettings {
  double probes_per_second_per_port = 10;
  double probes_per_second_total = 100;  // the node's budget
  double jitter = 0.2;                   // each interval's share either way
  uint32_t flow_labels = 8;              // per target, rotated
};

struct DueProbe {
  size_t port;    // index into the ports given
  size_t target;  // index into that port's targets
  uint32_t flow_label;
  bool operator==(const DueProbe&) const = default;
};

class ProbeSchedule {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // `targets[p]`: how many targets port p has. `seed` makes the jitter and the labels
  // reproducible (a test's; the daemon seeds from the host).
  ProbeSchedule(ScheduleSettings settings, const std::vector<size_t>& targets, TimePoint start,
                uint64_t seed);

  // Each port's interval between probes.
  std::chrono::nanoseconds interval() const { return interval_; }
  // The earliest time a probe is due; TimePoint::max() when no port has a target.
  TimePoint next_due() const;
  // The probes due at `now`, each port's at most once (a late caller does not get a burst).
  std::vector<DueProbe> take_due(TimePoint now);

 private:
  struct PortTurn {
    size_t targets = 0;
    size_t next_target = 0;
    std::vector<uint32_t> sent_to;  // per target: probes sent, for its label
    TimePoint due;
  };
  std::chrono::nanoseconds jittered();
  uint32_t label(size_t port, size_t target, uint32_t turn) const;

  ScheduleSettings settings_;
  std::chrono::nanoseconds interval_{};
  std::vector<PortTurn> ports_;
  std::mt19937_64 random_;
  uint64_t seed_;
};

}  // namespace roced::probe
