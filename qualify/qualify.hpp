// SPDX-License-Identifier: Apache-2.0
#pragma once
// rocectl qualify: every port read and judged (read_checks.hpp), then, with --write, changed and
// put back one port at a time (write_run.hpp), into one Report.
#include <chrono>
#include <string>
#include <vector>

#include "os/system.hpp"
#include "port/discovery.hpp"
#include "qualify/report.hpp"
#include "qualify/write_run.hpp"
#include "util/stop_signal.hpp"
#include "util/time_source.hpp"

namespace roced::qualify {

struct Options {
  bool write = false;
  // How long to listen for the switches' LLDP on every port at once; 0: not asked.
  std::chrono::seconds listen{0};
  WriteOptions write_options;
  std::string roced_version;
  std::string hostname;  // empty unless the person asked for it in the report
};

Report qualify(System& system, TimeSource& time, const StopSignal& stop,
               const std::vector<DiscoveredPort>& ports, const Options& options);

}  // namespace roced::qualify
