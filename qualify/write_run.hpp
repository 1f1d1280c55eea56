// SPDX-License-Identifier: Apache-2.0
#pragma once
// The checks that change a port (rocectl qualify --write, on a drained node): each setting roced
// makes is set, read back and put back, the PFC link flap is timed, and the port is compared with
// what it was before the run. Every change is journalled first and undone in reverse order at the
// end, also when the run is stopped (SIGINT) or a step fails.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "os/system.hpp"
#include "port/discovery.hpp"
#include "qualify/report.hpp"
#include "util/stop_signal.hpp"
#include "util/time_source.hpp"

namespace roced::qualify {

struct WriteOptions {
  // The longest a link may take to train again before the run gives up on it.
  std::chrono::milliseconds carrier_bound{30000};
  // One line per step, before it is taken ("lan2: PFC 0x00 -> 0x08: the link flaps").
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

struct WriteOutcome {
  std::vector<Check> checks;
  std::vector<Touched> touched;
  bool interrupted = false;
  std::optional<uint32_t> link_training_ms;  // carrier down to up, the longest seen
  // 0 m read back as 0 (nic-kernel, firmware with PCAM cable_length); unset: cannot tell.
  std::optional<bool> cable_length_in_firmware;
  std::vector<std::string> statistics_pfc_on;
  std::vector<std::string> statistics_pfc_off;
};

// How many times --write flaps a port's link (a PFC mask change each), for the warning that
// asks for --links-may-flap: two, or three when the port's mask is neither 0x00 nor 0x08.
int planned_flaps(uint8_t pfc_mask);

// Runs the changing checks on one port; `stop` ends them early (everything is still put back).
// What the driver does is told from what reads back, whatever tree the port seems to run.
WriteOutcome run_write_checks(System& system, TimeSource& time, const StopSignal& stop,
                              const DiscoveredPort& port, const WriteOptions& options);

}  // namespace roced::qualify
