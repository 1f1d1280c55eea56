// SPDX-License-Identifier: Apache-2.0
#include "cli/health.hpp"

#include <algorithm>
#include <map>

#include "cli/json_text.hpp"

namespace roced::cli {
namespace {

using Json = nlohmann::ordered_json;

// What a port's condition means for its traffic. drifted, held, failed and vanished are not
// the configuration: the port may be lossy (a held port is, until released). pending and
// applying pass by themselves.
Health condition_health(const std::string& condition) {
  static const std::map<std::string, Health> kHealth = {
      {"in-sync", Health::Ok},        {"pending", Health::Warning}, {"applying", Health::Warning},
      {"drifted", Health::Critical},  {"held", Health::Critical},   {"failed", Health::Critical},
      {"vanished", Health::Critical},
  };
  const auto found = kHealth.find(condition);
  return found == kHealth.end() ? Health::Unknown : found->second;
}

Health worse(Health a, Health b) {
  // Nagios orders CRITICAL over WARNING over UNKNOWN over OK for a summary.
  const auto rank = [](Health h) {
    switch (h) {
      case Health::Ok:
        return 0;
      case Health::Unknown:
        return 1;
      case Health::Warning:
        return 2;
      case Health::Critical:
        return 3;
    }
    return 1;
  };
  return rank(a) >= rank(b) ? a : b;
}

// "drifted (pfc.priorities, mtu)"
std::string condition_text(const Json& port, const std::string& condition) {
  std::string out = condition;
  std::string settings;
  for (const auto& drift : port.value("drift", Json::array())) {
    settings += (settings.empty() ? "" : ", ") + json_text(drift.value("setting", Json()));
  }
  if (!settings.empty()) out += " (" + settings + ")";
  if (const std::string error = json_text(port.value("error", Json())); !error.empty()) {
    out += " (" + error + ")";
  }
  return out;
}

// The port's own problems, worst first within the port: its condition, its link, its findings.
Health judge_port(const Json& port, std::vector<std::string>& problems) {
  const std::string netdev = json_text(port.at("netdev"));
  const std::string condition = json_text(port.at("condition"));
  Health health = condition_health(condition);
  if (health != Health::Ok) problems.push_back(netdev + " " + condition_text(port, condition));
  const Json& observed = port.value("observed", Json());
  const Json& link = observed.is_object() ? observed.value("link", Json()) : Json();
  if (link.is_object() && link.contains("carrier") && !link.value("carrier", true)) {
    health = worse(health, Health::Critical);
    problems.push_back(netdev + " has no carrier");
  }
  for (const auto& found : port.value("findings", Json::array())) {
    const std::string severity = json_text(found.value("severity", Json()));
    const Health of = severity == "critical"  ? Health::Critical
                      : severity == "warning" ? Health::Warning
                                              : Health::Ok;
    if (of == Health::Ok) continue;
    health = worse(health, of);
    problems.push_back(netdev + " " + severity + ": " + json_text(found.value("id", Json())));
  }
  return health;
}

}  // namespace

const char* health_name(Health health) {
  switch (health) {
    case Health::Ok:
      return "OK";
    case Health::Warning:
      return "WARNING";
    case Health::Critical:
      return "CRITICAL";
    case Health::Unknown:
      return "UNKNOWN";
  }
  return "UNKNOWN";
}

HealthReport judge_health(const Json& status) {
  HealthReport report;
  const Json& ports = status.at("ports");
  Health health = Health::Ok;
  std::vector<std::string> problems;
  size_t in_sync = 0;
  size_t unhealthy = 0;
  for (const auto& port : ports) {
    const size_t before = problems.size();
    health = worse(health, judge_port(port, problems));
    if (json_text(port.at("condition")) == "in-sync") ++in_sync;
    if (problems.size() > before) ++unhealthy;
  }
  if (ports.empty()) {
    health = Health::Warning;
    problems.push_back("roced manages no port (ports.netdevs names none that is here)");
  }
  for (const auto& name : status.value("unmatched", Json::array())) {
    health = worse(health, Health::Warning);
    problems.push_back("unmatched: " + json_text(name));
  }
  std::string summary;
  if (problems.empty()) {
    summary = std::to_string(ports.size()) + (ports.size() == 1 ? " port" : " ports") +
              " in sync, lossless as configured";
  } else {
    for (size_t i = 0; i < problems.size() && i < 3; ++i) {
      summary += (i ? "; " : "") + problems[i];
    }
    if (problems.size() > 3) summary += "; " + std::to_string(problems.size() - 3) + " more";
  }
  report.health = health;
  report.status_line = std::string("ROCE ") + health_name(health) + " - " + summary +
                       " | ports=" + std::to_string(ports.size()) +
                       " in_sync=" + std::to_string(in_sync) +
                       " unhealthy=" + std::to_string(unhealthy);
  report.details = std::move(problems);
  const Json& daemon = status.value("daemon", Json());
  if (daemon.is_object()) {
    report.details.push_back("roced " + json_text(daemon.value("version", Json())) + ": " +
                             json_text(daemon.value("status", Json())));
  }
  return report;
}

HealthReport health_without_daemon(const std::string& why) {
  HealthReport report;
  report.health = Health::Critical;
  report.status_line =
      "ROCE CRITICAL - roced is not running (" + why + "): nothing keeps the ports lossless";
  return report;
}

}  // namespace roced::cli
