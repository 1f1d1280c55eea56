// SPDX-License-Identifier: Apache-2.0
#pragma once
// One load run: the roced binary with its storm watchdog (10 ms poll, 50 ms
// detection, RX disable-pfc), its metrics endpoint and its D-Bus API on a private bus, over a
// roce-sim node playing RX storms on lan3. Optionally, during the whole storm schedule: `scrapers`
// clients looping GET /metrics and `dbus_clients` clients looping GetStatus, GetPlan and
// GetStorms, each answer checked. roced's RSS is sampled throughout. Shared by test/load (which
// asserts) and bench/load_bench (which prints idle against loaded).

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace roced::bench {

struct LoadOptions {
  int storms = 6;            // measured; a few more are scheduled for a roced slow to start
  double first_storm = 6.0;  // s, scenario time
  double period = 4.0;       // s between onsets: storm 1 s + restoration 300 ms, far apart
  double length = 1.0;       // s
  int scrapers = 0;          // 0: no load
  int dbus_clients = 0;
};

// One storm, as roced's StormDetected said it and as the node's clock saw it.
struct StormSeen {
  double onset = 0;         // s, scenario time
  double latency = -1;      // s, the signal's: from the onset the counters show to the detection
  double interval = -1;     // s, the detecting poll's measured interval (from the evidence)
  double arrival = -1;      // s after the true onset that the signal reached us (node's clock)
  bool remediated = false;  // StormRemediated (disable-pfc) for it
  bool restored = false;    // StormRestored for it
};

struct RssSample {
  double at = 0;  // s since roced was ready
  size_t kib = 0;
};

struct LoadResult {
  std::vector<StormSeen> storms;  // the `storms` measured, all begun with the load running
  uint64_t detected_before = 0;   // storms roced detected before the load began (a slow start)
  uint64_t scrapes_ok = 0, scrapes_bad = 0;
  uint64_t calls_ok = 0, calls_bad = 0;  // D-Bus
  std::vector<std::string> bad;          // the first few bad answers, why
  std::vector<RssSample> rss;
  std::string final_storms;   // GetStorms after the run (JSON)
  bool alive_at_end = false;  // roced still running when the load stopped
  int exit_status = -1;       // after SIGTERM
  double load_seconds = 0;    // how long the load ran
  std::string error;          // set when the run could not be made (no node, roced did not start)
  std::string log;            // roced's output, for failure messages
};

struct LoadBinaries {
  std::string roced, roce_sim, dbus_policy;
};

LoadResult run_load(const LoadBinaries& binaries, const LoadOptions& options);

}  // namespace roced::bench
