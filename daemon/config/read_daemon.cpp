// SPDX-License-Identifier: Apache-2.0
// Reads the `daemon:` section key by key over the defaults (DaemonSettings).
#include "daemon/config/read_daemon.hpp"

#include <cctype>

namespace roced::config::detail {

namespace {

const std::vector<std::string> kDaemonKeys = {"drift_policy", "drift_check_interval", "log_level",
                                              "disruptive_ports_at_once"};
// spdlog's level names (spdlog::level::from_str also takes "warning" and "err"; one spelling
// each keeps files greppable).
const std::vector<std::string> kLogLevels = {"trace", "debug",    "info", "warn",
                                             "error", "critical", "off"};

std::string format_duration(std::chrono::milliseconds duration) {
  const auto ms = duration.count();
  if (ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

void read_interval(Reader& reader, const Entry& entry, DaemonSettings& settings) {
  const std::string field = "daemon.drift_check_interval";
  const std::string what =
      "a duration: an integer with a unit ms, s, m or h (30s, 500ms, 5m), "
      "or plain seconds";
  if (!entry.value.IsScalar() || entry.value.Scalar().empty()) {
    reader.diagnostics().error(entry.value_at, field, "expected " + what);
    return;
  }
  const std::string& text = entry.value.Scalar();
  const auto interval = parse_duration(text);
  if (!interval) {
    reader.diagnostics().error(entry.value_at, field, "'" + text + "' is not " + what);
    return;
  }
  if (*interval < kMinDriftCheckInterval || *interval > kMaxDriftCheckInterval) {
    reader.diagnostics().error(entry.value_at, field,
                               text + " is out of range (" +
                                   format_duration(kMinDriftCheckInterval) + " to " +
                                   format_duration(kMaxDriftCheckInterval) + ")");
    return;
  }
  settings.drift_check_interval = *interval;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_duration(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0 || digits > 12) return std::nullopt;  // 12 digits of hours still fit int64 ms
  const int64_t number = std::stoll(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  int64_t scale = 0;
  if (unit.empty() || unit == "s") {
    scale = 1000;
  } else if (unit == "ms") {
    scale = 1;
  } else if (unit == "m") {
    scale = 60'000;
  } else if (unit == "h") {
    scale = 3'600'000;
  } else {
    return std::nullopt;
  }
  return std::chrono::milliseconds(number * scale);
}

void read_daemon(Reader& reader, const YAML::Node& node, Location where, DaemonSettings& settings) {
  reader.entries(node, where, "daemon", kDaemonKeys, [&](const Entry& e) {
    if (e.key == "drift_policy") {
      if (auto policy =
              reader.choice(e.value, e.value_at, "daemon.drift_policy", kDriftPolicyNames)) {
        settings.drift_policy = *policy;
      }
    } else if (e.key == "drift_check_interval") {
      read_interval(reader, e, settings);
    } else if (e.key == "log_level") {
      if (auto level = reader.choice(e.value, e.value_at, "daemon.log_level", kLogLevels)) {
        settings.log_level = *level;
      }
    } else if (e.key == "disruptive_ports_at_once") {
      if (auto count = reader.integer(e.value, e.value_at, "daemon.disruptive_ports_at_once", 1, 64,
                                      "a number of ports (1-64)")) {
        settings.disruptive_ports_at_once = static_cast<int>(*count);
      }
    }
  });
}

}  // namespace roced::config::detail
