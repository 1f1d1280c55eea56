// SPDX-License-Identifier: Apache-2.0
// On demand: the soak (soak.hpp) over a whole simulated week of polls, or any length.
//   soak_week [--days D] [--poll-ms P]
// Prints the checkpoints and figures; exits 1 on any mismatch, escalation or heap growth (over
// soak_test's 4 KiB in the second half of the run), else 0.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "soak.hpp"

int main(int argc, char** argv) {
  using namespace std::chrono_literals;
  roced::load::SoakOptions options;
  double days = 7;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--days" && i + 1 < argc) {
      days = std::atof(argv[++i]);
    } else if (arg == "--poll-ms" && i + 1 < argc) {
      options.poll = std::chrono::milliseconds(std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: soak_week [--days D] [--poll-ms P]\n");
      return 2;
    }
  }
  options.simulated = std::chrono::seconds(static_cast<long long>(days * 86400));
  options.checkpoints = static_cast<int>(days * 8);
  const auto report = roced::load::run_soak(options);
  size_t rss_max = 0;
  for (const auto& point : report.checkpoints) {
    std::printf("checkpoint %7lld s: heap %zu B, RSS %zu KiB, storm records %zu\n",
                static_cast<long long>(point.at.count()), point.heap_bytes, point.rss_kib,
                point.storm_records);
    rss_max = std::max(rss_max, point.rss_kib);
  }
  uint64_t detected = 0;
  for (const auto& [where, count] : report.detected) detected += count;
  std::printf(
      "%.2f simulated days at %lld ms: %llu rounds (%llu port polls), %llu storms injected, %llu "
      "detected, %llu remediated, %llu escalated, %llu congestion episodes (none detected), "
      "%llu values compared, %zu mismatches\n"
      "detection latency %.1f-%.1f ms; CPU %.1f s, wall %.1f s\n",
      days, static_cast<long long>(options.poll.count()),
      static_cast<unsigned long long>(report.rounds),
      static_cast<unsigned long long>(report.rounds * 4),
      static_cast<unsigned long long>(report.storms), static_cast<unsigned long long>(detected),
      static_cast<unsigned long long>(report.remediated),
      static_cast<unsigned long long>(report.escalated),
      static_cast<unsigned long long>(report.congestion_episodes),
      static_cast<unsigned long long>(report.checks), report.mismatches.size(),
      std::chrono::duration<double, std::milli>(report.min_latency).count(),
      std::chrono::duration<double, std::milli>(report.max_latency).count(), report.cpu_seconds,
      report.wall_seconds);
  if (report.checkpoints.size() >= 2) {
    std::printf(
        "RSS start %zu KiB (first checkpoint), end %zu KiB, max %zu KiB; heap %zu B (second "
        "checkpoint), %zu B (middle), %zu B (end)\n",
        report.checkpoints.front().rss_kib, report.checkpoints.back().rss_kib, rss_max,
        report.checkpoints[1].heap_bytes,
        report.checkpoints[report.checkpoints.size() / 2].heap_bytes,
        report.checkpoints.back().heap_bytes);
  }
  for (const auto& line : report.mismatches) std::printf("MISMATCH %s\n", line.c_str());
  const bool flat = report.checkpoints.size() >= 2 &&
                    report.checkpoints.back().heap_bytes <=
                        report.checkpoints[report.checkpoints.size() / 2].heap_bytes + 4096;
  return report.mismatches.empty() && detected == report.storms && flat ? 0 : 1;
}
