// Reads the `watchdog:` section over the defaults, then reports WatchdogSettings::validate()'s
// problems at the key they are about.
#include "daemon/config/read_watchdog.hpp"

#include <map>

#include "daemon/config/read_daemon.hpp"

namespace roced::config::detail {

namespace {

const std::vector<std::string> kWatchdogKeys = {
    "enabled", "poll_interval", "detection_time",      "restoration_time",
    "action",  "verify_polls",  "max_actions_per_hour"};

std::optional<std::chrono::milliseconds> duration(Reader& reader, const Entry& entry) {
  const std::string field = "watchdog." + entry.key;
  const std::string what = "a duration: an integer with a unit ms, s, m or h (100ms, 2s)";
  if (!entry.value.IsScalar() || entry.value.Scalar().empty()) {
    reader.diagnostics().error(entry.value_at, field, "expected " + what);
    return std::nullopt;
  }
  auto value = parse_duration(entry.value.Scalar());
  if (!value) {
    reader.diagnostics().error(entry.value_at, field,
                               "'" + entry.value.Scalar() + "' is not " + what);
  }
  return value;
}

}  // namespace

void read_watchdog(Reader& reader, const YAML::Node& node, Location where,
                   watchdog::WatchdogSettings& settings) {
  std::map<std::string, Location> at;
  bool unreadable = false;
  reader.entries(node, where, "watchdog", kWatchdogKeys, [&](const Entry& e) {
    at[e.key] = e.value_at;
    const std::string field = "watchdog." + e.key;
    bool ok = false;
    if (e.key == "enabled") {
      if (auto value = reader.choice(e.value, e.value_at, field, {"true", "false"})) {
        settings.enabled = *value == "true";
        ok = true;
      }
    } else if (e.key == "poll_interval" || e.key == "detection_time" ||
               e.key == "restoration_time") {
      if (auto value = duration(reader, e)) {
        ok = true;
        if (e.key == "poll_interval") settings.poll_interval = *value;
        if (e.key == "detection_time") settings.detection_time = *value;
        if (e.key == "restoration_time") settings.restoration_time = *value;
      }
    } else if (e.key == "action") {
      if (auto name = reader.choice(e.value, e.value_at, field,
                                    {"alert", "disable-pfc", "stall-prevention"})) {
        settings.action = *watchdog::parse_action(*name);
        ok = true;
      }
    } else if (e.key == "verify_polls" || e.key == "max_actions_per_hour") {
      if (auto value = reader.integer(e.value, e.value_at, field, 1, 100, "an integer (1-100)")) {
        (e.key == "verify_polls" ? settings.verify_polls : settings.max_actions_per_hour) =
            static_cast<int>(*value);
        ok = true;
      }
    }
    unreadable = unreadable || !ok;
  });
  // The ranges and the rules between keys, once every key was read (a key that could not be
  // read has already said so; its default would only add a second, confusing problem).
  if (unreadable) return;
  for (const auto& problem : settings.validate()) {
    const auto it = at.find(problem.field);
    reader.diagnostics().error(it != at.end() ? it->second : where, "watchdog." + problem.field,
                               problem.message);
  }
}

}  // namespace roced::config::detail
