// SPDX-License-Identifier: Apache-2.0
// bench/load_bench: PFC storm detection latency with roced idle against roced under load
// (bench/load_run.hpp), in the same run: the same storms on lan3 (10 ms poll, 50 ms detection,
// RX disable-pfc), first with nobody else asking roced anything, then with `--scrapers` clients
// looping GET /metrics and `--dbus` clients looping GetStatus, GetPlan and GetStorms.
//   load_bench [--storms N] [--scrapers S] [--dbus D]
// Prints per run: detection latency as roced reports it (p50 / max), the detecting polls'
// measured intervals, when the StormDetected signal reached a listener, the scrapes and calls
// answered, and roced's RSS. Speed is printed, never asserted; exits 1 only when a run could not
// be made or a storm went undetected.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/load_run.hpp"
#include "test/support/build_paths.hpp"

namespace {

using roced::bench::LoadResult;

std::string spread(std::vector<double> values) {
  if (values.empty()) return "n/a";
  std::sort(values.begin(), values.end());
  char text[80];
  std::snprintf(text, sizeof text, "%.1f / %.1f ms", values[values.size() / 2] * 1e3,
                values.back() * 1e3);
  return text;
}

bool report(const char* name, const LoadResult& result) {
  if (!result.error.empty()) {
    std::printf("%s: %s\n", name, result.error.c_str());
    return false;
  }
  std::vector<double> latency, interval, arrival;
  bool all = true;
  int one_poll = 0, two_polls = 0;  // within detection time + one (two) detecting poll + 2 ms
  for (const auto& storm : result.storms) {
    all = all && storm.latency >= 0 && storm.restored;
    if (storm.latency >= 0) {
      const double poll = std::max(0.010, storm.interval);
      one_poll += storm.latency < 0.050 + poll + 0.002;
      two_polls += storm.latency < 0.050 + 2 * poll + 0.002;
      latency.push_back(storm.latency);
      interval.push_back(storm.interval);
      arrival.push_back(storm.arrival);
    }
  }
  std::printf("%-6s per storm (latency / detecting poll, ms):", name);
  for (const auto& storm : result.storms) {
    std::printf(" %.1f/%.1f", storm.latency * 1e3, storm.interval * 1e3);
  }
  std::printf("\n%-6s within detection time + one poll + 2 ms: %d of %zu; + two polls: %d\n", name,
              one_poll, result.storms.size(), two_polls);
  size_t rss_max = 0;
  for (const auto& sample : result.rss) rss_max = std::max(rss_max, sample.kib);
  std::printf(
      "%-6s storms detected %zu of %zu | latency p50/max %s | detecting poll %s | signal received "
      "%s after onset | %llu scrapes (%llu bad), %llu D-Bus calls (%llu bad) in %.1f s | RSS "
      "start %zu, end %zu, max %zu KiB\n",
      name, latency.size(), result.storms.size(), spread(latency).c_str(), spread(interval).c_str(),
      spread(arrival).c_str(), static_cast<unsigned long long>(result.scrapes_ok),
      static_cast<unsigned long long>(result.scrapes_bad),
      static_cast<unsigned long long>(result.calls_ok),
      static_cast<unsigned long long>(result.calls_bad), result.load_seconds,
      result.rss.empty() ? 0 : result.rss.front().kib,
      result.rss.empty() ? 0 : result.rss.back().kib, rss_max);
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  roced::bench::LoadOptions options;
  options.storms = 10;
  int scrapers = 32, dbus = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--storms") {
      options.storms = std::atoi(argv[i + 1]);
    } else if (arg == "--scrapers") {
      scrapers = std::atoi(argv[i + 1]);
    } else if (arg == "--dbus") {
      dbus = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: load_bench [--storms N] [--scrapers S] [--dbus D]\n");
      return 2;
    }
  }
  const roced::bench::LoadBinaries binaries{ROCED_BINARY, ROCE_SIM_BINARY, ROCED_DBUS_POLICY};
  std::printf("%d RX storms on lan3, 1 s each, 10 ms poll, 50 ms detection, disable-pfc\n",
              options.storms);
  const bool idle = report("idle", roced::bench::run_load(binaries, options));
  options.scrapers = scrapers;
  options.dbus_clients = dbus;
  std::printf("loaded: %d scrapers, %d D-Bus clients\n", scrapers, dbus);
  const bool loaded = report("loaded", roced::bench::run_load(binaries, options));
  return idle && loaded ? 0 : 1;
}
