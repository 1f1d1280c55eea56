// SPDX-License-Identifier: Apache-2.0
#pragma once
// DIR/roce-sim.clock (docs/sim-formats.md): when the simulated node's scenario time 0 was, on
// CLOCK_MONOTONIC, and at what speed it runs, so that a client can tell when a scenario event
// happens on its own clock. Written once by the server before it is ready; read by tests and
// benchmarks.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "roce_sim.h"

namespace roce_sim {

struct ClockFile {
  std::chrono::steady_clock::time_point epoch;  // scenario time 0
  double speed = 1;                             // simulated seconds per real second

  // When scenario time `seconds` happens, on steady_clock (CLOCK_MONOTONIC on Linux).
  std::chrono::steady_clock::time_point at(double seconds) const {
    return epoch + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(seconds / speed));
  }

  std::string text() const {
    char out[96];
    std::snprintf(
        out, sizeof out, "epoch_monotonic_ns %lld\nspeed %.17g\n",
        static_cast<long long>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(epoch.time_since_epoch()).count()),
        speed);
    return out;
  }

  // DIR's clock file; nullopt when there is none (the node is not ready) or it is malformed.
  static std::optional<ClockFile> read(const std::filesystem::path& dir) {
    std::ifstream in(dir / ROCE_SIM_CLOCKFILE);
    std::string epoch_key, speed_key;
    long long epoch_ns = 0;
    ClockFile clock;
    if (!(in >> epoch_key >> epoch_ns >> speed_key >> clock.speed) ||
        epoch_key != "epoch_monotonic_ns" || speed_key != "speed" || clock.speed <= 0) {
      return std::nullopt;
    }
    clock.epoch = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(epoch_ns));
    return clock;
  }
};

}  // namespace roce_sim
