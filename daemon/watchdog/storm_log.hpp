// SPDX-License-Identifier: Apache-2.0
#pragma once
// The words of the storm watchdog's log lines and signals: where a storm is, and the counter
// evidence an engineer needs at 3 a.m.

#include <string>

#include "watchdog/storm_events.hpp"

namespace roced::watchdog {

// "priority 3 RX (the switch pauses us)"
std::string storm_place(int priority, watchdog::Direction direction);
// "rx_prio3_pause_duration +10000 us in 10002 us, rx_prio3_pause +59, tx_prio3_packets +0"
std::string evidence_text(const watchdog::StormEvidence& poll);
// "42 ms"
std::string ms_text(watchdog::Clock::duration duration);

}  // namespace roced::watchdog
