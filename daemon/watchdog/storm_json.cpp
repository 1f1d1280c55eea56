// SPDX-License-Identifier: Apache-2.0
#include "daemon/watchdog/storm_json.hpp"

namespace roced::watchdog {

nlohmann::ordered_json storms_to_json(const watchdog::WatchdogSettings& settings,
                                      const WatchdogStats& stats) {
  nlohmann::ordered_json doc;
  doc["enabled"] = settings.enabled;
  doc["poll_interval_ms"] = settings.poll_interval.count();
  doc["detection_time_ms"] = settings.detection_time.count();
  doc["restoration_time_ms"] = settings.restoration_time.count();
  doc["action"] = {{"rx", watchdog::action_name(settings.rx_action)},
                   {"tx", watchdog::action_name(settings.tx_action)}};
  doc["max_actions_per_hour"] = settings.max_actions_per_hour;
  doc["poll_budget"] = {{"cpu_percent", settings.poll_budget_cpu * 100},
                        {"firmware_percent", settings.poll_budget_firmware * 100}};
  doc["effective_poll_interval_ms"] =
      std::chrono::duration<double, std::milli>(stats.effective_interval).count();
  doc["poll_budget_limit"] = stats.budget_limit;
  doc["detection_bound_ms"] =
      std::chrono::duration<double, std::milli>(stats.detection_bound).count();
  doc["polls"] = stats.polls;
  doc["late_polls"] = stats.late_polls;
  doc["storms"] = nlohmann::ordered_json::array();
  for (const auto& storm : stats.storms) {
    nlohmann::ordered_json actions = nlohmann::ordered_json::object();
    for (const auto& [key, count] : storm.actions) actions[key.first][key.second] = count;
    nlohmann::ordered_json escalations = nlohmann::ordered_json::object();
    for (const auto& [reason, count] : storm.escalations) escalations[reason] = count;
    doc["storms"].push_back({
        {"netdev", storm.netdev},
        {"priority", storm.priority},
        {"direction", roced::direction_name(storm.direction)},
        {"active", storm.active},
        {"action_in_effect", storm.remediated},
        {"last_action", storm.last_action
                            ? nlohmann::ordered_json{{"action", storm.last_action->first},
                                                     {"result", storm.last_action->second}}
                            : nlohmann::ordered_json(nullptr)},
        {"held", storm.held},
        {"detections", storm.detections},
        {"restorations", storm.restorations},
        {"actions", actions},
        {"escalations", escalations},
        {"mean_detection_latency_ms",
         storm.detection_latency.count == 0
             ? nlohmann::ordered_json(nullptr)
             : nlohmann::ordered_json(storm.detection_latency.sum * 1000 /
                                      static_cast<double>(storm.detection_latency.count))},
    });
  }
  return doc;
}

}  // namespace roced::watchdog
