#pragma once
// One human line per storm event, with the counter evidence an engineer needs at 3 a.m.

#include <string>

#include "watchdog/storm_watch.hpp"

namespace roced::storms {

std::string describe(const watchdog::PortStormEvent& event);

}  // namespace roced::storms
