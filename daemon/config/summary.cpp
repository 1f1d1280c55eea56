// SPDX-License-Identifier: Apache-2.0
#include "daemon/config/summary.hpp"

namespace roced::config {

namespace {

std::string joined(const std::vector<std::string>& names, const std::string& if_empty) {
  if (names.empty()) return if_empty;
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

std::string describe_selection(const Config& config) {
  std::string out = "drivers: " + joined(config.ports.drivers, "any") +
                    "; netdevs: " + joined(config.ports.netdevs, "none");
  if (!config.ports.exclude.empty()) out += "; exclude: " + joined(config.ports.exclude, "");
  std::vector<std::string> patterns;
  for (const auto& entry : config.overrides) patterns.push_back(entry.pattern);
  const size_t n = patterns.size();
  out += "; " + std::to_string(n) + (n == 1 ? " override" : " overrides");
  if (n > 0) out += " (" + joined(patterns, "") + ")";
  return out;
}

}  // namespace roced::config
