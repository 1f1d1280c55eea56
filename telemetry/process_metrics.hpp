// SPDX-License-Identifier: Apache-2.0
#pragma once
// The process_* families every Prometheus client library serves about its own process
// (prometheus.io "Writing client libraries": process metrics), which prometheus-cpp has no
// collector for: read from /proc as the Go and Python clients read it.

#include <cstdint>
#include <optional>
#include <string>

#include "telemetry/collector.hpp"

namespace roced::telemetry {

struct ProcessStats {
  double cpu_seconds = 0;         // utime + stime
  double start_time_seconds = 0;  // since the Unix epoch
  uint64_t virtual_bytes = 0;
  uint64_t resident_bytes = 0;
  std::optional<uint64_t> open_fds;
  std::optional<uint64_t> max_fds;  // the soft limit; absent when unlimited
};

// `self` is a process's /proc directory (/proc/self), `proc_stat` the system's /proc/stat (its
// btime); `ticks_per_second` and `page_size` as sysconf gives them. nullopt when `self`/stat
// cannot be read.
std::optional<ProcessStats> read_process_stats(const std::string& self,
                                               const std::string& proc_stat, long ticks_per_second,
                                               long page_size);

void write_process_families(ExpositionWriter& out, const ProcessStats& stats);

// roced's own process: the real /proc whatever node roced serves (a simulated one included).
class ProcessCollector final : public Collector {
 public:
  void collect(ExpositionWriter& out) override;
};

}  // namespace roced::telemetry
