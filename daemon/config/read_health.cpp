// SPDX-License-Identifier: Apache-2.0
// Reads the `health:` section over the defaults, then reports HealthSettings::validate()'s
// problems at the key they are about.
#include "daemon/config/read_health.hpp"

#include <map>
#include <string>

#include "daemon/config/read_daemon.hpp"

namespace roced::config::detail {

namespace {

const std::vector<std::string> kHealthKeys = {"enabled",
                                              "interval",
                                              "symbol_errors_per_second",
                                              "symbol_errors_per_hour",
                                              "link_flaps_per_10m",
                                              "optics_interval"};

// Each duration's field in the settings.
std::chrono::milliseconds* duration_field(const std::string& key,
                                          health::HealthSettings& settings) {
  if (key == "interval") return &settings.interval;
  if (key == "optics_interval") return &settings.optics_interval;
  return nullptr;
}

// Each count's field in the settings, with the most the reader takes before validate()'s range
// says more precisely why.
uint64_t* count_field(const std::string& key, health::HealthSettings& settings) {
  if (key == "symbol_errors_per_second") return &settings.symbol_errors_per_second;
  if (key == "symbol_errors_per_hour") return &settings.symbol_errors_per_hour;
  if (key == "link_flaps_per_10m") return &settings.link_flaps_per_10m;
  return nullptr;
}

}  // namespace

void read_health(Reader& reader, const YAML::Node& node, Location where,
                 health::HealthSettings& settings) {
  std::map<std::string, Location> at;
  bool unreadable = false;
  reader.entries(node, where, "health", kHealthKeys, [&](const Entry& e) {
    at[e.key] = e.value_at;
    const std::string field = "health." + e.key;
    bool ok = false;
    if (e.key == "enabled") {
      if (auto value = reader.choice(e.value, e.value_at, field, {"true", "false"})) {
        settings.enabled = *value == "true";
        ok = true;
      }
    } else if (auto* duration = duration_field(e.key, settings)) {
      const std::string what = "a duration: an integer with a unit ms, s, m or h (10s, 1m)";
      const auto value = e.value.IsScalar() ? parse_duration(e.value.Scalar()) : std::nullopt;
      if (value) {
        *duration = *value;
        ok = true;
      } else {
        reader.diagnostics().error(e.value_at, field,
                                   e.value.IsScalar() && !e.value.Scalar().empty()
                                       ? "'" + e.value.Scalar() + "' is not " + what
                                       : "expected " + what);
      }
    } else if (uint64_t* count = count_field(e.key, settings)) {
      if (auto value = reader.integer(e.value, e.value_at, field, 0, 1'000'000'000'000,
                                      "a whole number of events")) {
        *count = static_cast<uint64_t>(*value);
        ok = true;
      }
    }
    unreadable = unreadable || !ok;
  });
  // A key that could not be read has said so; its default would only add a confusing second
  // problem.
  if (unreadable) return;
  for (const auto& problem : settings.validate()) {
    const auto it = at.find(problem.field);
    reader.diagnostics().error(it != at.end() ? it->second : where, "health." + problem.field,
                               problem.message);
  }
}

}  // namespace roced::config::detail
