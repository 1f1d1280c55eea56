// SPDX-License-Identifier: Apache-2.0
// Reads the `watchdog:` section over the defaults, then reports WatchdogSettings::validate()'s
// problems at the key they are about.
#include "daemon/config/read_watchdog.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "daemon/config/read_daemon.hpp"

namespace roced::config::detail {

namespace {

const std::vector<std::string> kWatchdogKeys = {
    "enabled",          "poll_interval", "detection_time",
    "restoration_time", "action",        "stall_prevention_timeout",
    "poll_budget",      "verify_polls",  "max_actions_per_hour"};

// "5%", "0.5%": a share as a fraction (0.05), or nothing after saying what is wrong.
std::optional<double> percentage(Reader& reader, const YAML::Node& value, Location at,
                                 const std::string& field) {
  const std::string what = "a percentage such as 5% or 0.5%";
  const std::string text = value.IsScalar() ? value.Scalar() : std::string();
  if (text.size() < 2 || text.back() != '%') {
    reader.diagnostics().error(at, field, "expected " + what);
    return std::nullopt;
  }
  const std::string_view number(text.data(), text.size() - 1);
  double parsed = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), parsed,
                                            std::chars_format::fixed);
  if (error != std::errc() || end != number.data() + number.size() || !std::isfinite(parsed)) {
    reader.diagnostics().error(at, field, "'" + text + "' is not " + what);
    return std::nullopt;
  }
  return parsed / 100.0;
}

// `poll_budget: {cpu: 5%, firmware: 10%}`.
bool read_poll_budget(Reader& reader, const Entry& e, watchdog::WatchdogSettings& settings,
                      std::map<std::string, Location>& at) {
  bool ok = true;
  reader.entries(
      e.value, e.value_at, "watchdog.poll_budget", {"cpu", "firmware"}, [&](const Entry& share) {
        const std::string field = "watchdog.poll_budget." + share.key;
        const auto value = percentage(reader, share.value, share.value_at, field);
        if (!value) {
          ok = false;
          return;
        }
        (share.key == "cpu" ? settings.poll_budget_cpu : settings.poll_budget_firmware) = *value;
        at["poll_budget." + share.key] = share.value_at;
      });
  return ok;
}

// `action: NAME` for both directions, or `action: {rx: NAME, tx: NAME}`. A single
// `stall-prevention` is for TX storms only (it cannot end an RX storm): RX ones are alerted.
bool read_action(Reader& reader, const Entry& e, watchdog::WatchdogSettings& settings,
                 std::map<std::string, Location>& at) {
  const std::vector<std::string> names = {"alert", "disable-pfc", "stall-prevention"};
  if (!e.value.IsMap()) {
    const auto name = reader.choice(e.value, e.value_at, "watchdog.action", names);
    if (!name) return false;
    const watchdog::WatchdogAction action = *watchdog::parse_action(*name);
    settings.tx_action = action;
    settings.rx_action = action == watchdog::WatchdogAction::stall_prevention
                             ? watchdog::WatchdogAction::alert
                             : action;
    at["action.rx"] = at["action.tx"] = e.value_at;
    return true;
  }
  bool ok = true;
  reader.entries(e.value, e.value_at, "watchdog.action", {"rx", "tx"}, [&](const Entry& side) {
    const std::string field = "watchdog.action." + side.key;
    const auto name = reader.choice(side.value, side.value_at, field, names);
    if (!name) {
      ok = false;
      return;
    }
    (side.key == "rx" ? settings.rx_action : settings.tx_action) = *watchdog::parse_action(*name);
    at["action." + side.key] = side.value_at;
  });
  return ok;
}

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
               e.key == "restoration_time" || e.key == "stall_prevention_timeout") {
      if (auto value = duration(reader, e)) {
        ok = true;
        if (e.key == "poll_interval") settings.poll_interval = *value;
        if (e.key == "detection_time") settings.detection_time = *value;
        if (e.key == "restoration_time") settings.restoration_time = *value;
        if (e.key == "stall_prevention_timeout") settings.stall_prevention_timeout = *value;
      }
    } else if (e.key == "action") {
      ok = read_action(reader, e, settings, at);
    } else if (e.key == "poll_budget") {
      ok = read_poll_budget(reader, e, settings, at);
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
