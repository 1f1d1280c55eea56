// SPDX-License-Identifier: Apache-2.0
#pragma once
// `rocectl check`: the status document judged as a health check would (Nagios plugin
// conventions: one status line first, exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace roced::cli {

enum class Health { Ok = 0, Warning = 1, Critical = 2, Unknown = 3 };

struct HealthReport {
  Health health = Health::Unknown;
  // "ROCE CRITICAL - lan3 drifted (pfc.priorities) | ports=4 in_sync=3 problems=1"
  std::string status_line;
  std::vector<std::string> details;  // one line per port that is not healthy, then the daemon's
};

const char* health_name(Health health);

// Judges GetStatus's document (roced.status/v1 as roced answers it). Throws
// nlohmann::json::exception on a document of another shape.
HealthReport judge_health(const nlohmann::ordered_json& status);

// The report for a check that could not ask roced at all.
HealthReport health_without_daemon(const std::string& why);

}  // namespace roced::cli
