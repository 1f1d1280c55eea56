// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a process has cost so far, read from /proc: the benchmarks diff two readings.

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace roced::bench {

struct ProcessCost {
  double cpu_ticks_ms = 0;  // utime + stime from /proc/PID/stat (clock-tick resolution)
  double cpu_sched_ms = 0;  // sum of /proc/PID/task/*/schedstat run time (ns resolution)
  double rss_mib = 0, hwm_mib = 0;
  int threads = 0;
};

ProcessCost read_cost(pid_t pid);

// A whole (small) file; empty when it cannot be read.
std::string read_text(const std::filesystem::path& path);

}  // namespace roced::bench
