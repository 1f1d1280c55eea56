// SPDX-License-Identifier: Apache-2.0
#pragma once
// The symbol errors each port counted within the last hour, as a document that survives roced's
// restart: a threshold that counts over an hour would otherwise begin again at every restart
// (an upgrade, a config change that needs one) and a failing link would never reach it.
// Times are wall-clock (the monotonic clock restarts with the machine); pure, no I/O.
#include <chrono>
#include <map>
#include <string>

#include "health/counter_window.hpp"

namespace roced::health {

using SteadyTime = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

// {"version": 1, "symbol_errors": {"lan2": [[wall ms, counted, seconds], ...]}}: each port's
// steps within the hour before `wall_now`.
std::string history_document(const std::map<std::string, const CounterWindow*>& windows,
                             SteadyTime now, WallTime wall_now);

// The steps of a document, per port, on this run's monotonic clock; those older than the hour
// (or from the future: a clock set back) are left out. Empty for a document that does not
// parse or is not this version: a history is only ever a help.
std::map<std::string, std::deque<CounterWindow::Step>> read_history(const std::string& text,
                                                                    SteadyTime now,
                                                                    WallTime wall_now);

}  // namespace roced::health
