// SPDX-License-Identifier: Apache-2.0
// mlx5 `ethtool -S` names -> (metric, priority, direction) (telemetry/ethtool_names.cpp). The input
// is a list of names, one a line, as `ethtool -S` prints them. Promise: a priority, when found,
// is one of 0..7.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/support/check.hpp"
#include "ethtool/ethtool_names.hpp"

using roced::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view name = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    // `ethtool -S` lines: "     rx_prio3_pause: 12"; the name is what precedes the colon.
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    name = name.substr(0, name.find(':'));
    const auto parsed = roced::parse_ethtool_name(name);
    if (!parsed) continue;
    require(!parsed->metric.empty(), "a parsed name has a metric");
    require(!parsed->priority || (*parsed->priority >= 0 && *parsed->priority <= 7),
            "a priority is 0..7");
    (void)roced::direction_name(parsed->direction);
  }
  return 0;
}
