// SPDX-License-Identifier: Apache-2.0
#include "watchdog/settings.hpp"

#include <array>
#include <utility>

namespace roced::watchdog {

namespace {

constexpr std::array<std::pair<WatchdogAction, std::string_view>, 3> kActionNames = {{
    {WatchdogAction::alert, "alert"},
    {WatchdogAction::disable_pfc, "disable-pfc"},
    {WatchdogAction::stall_prevention, "stall-prevention"},
}};

void check_range(std::vector<WatchdogProblem>& problems, std::string field,
                 std::chrono::milliseconds value, int64_t low, int64_t high) {
  if (value.count() >= low && value.count() <= high) return;
  problems.push_back({std::move(field), std::to_string(value.count()) + " ms is out of range (" +
                                            std::to_string(low) + "-" + std::to_string(high) +
                                            " ms)"});
}

void check_range(std::vector<WatchdogProblem>& problems, std::string field, int value, int low,
                 int high) {
  if (value >= low && value <= high) return;
  problems.push_back({std::move(field), std::to_string(value) + " is out of range (" +
                                            std::to_string(low) + "-" + std::to_string(high) +
                                            ")"});
}

}  // namespace

std::string_view action_name(WatchdogAction action) {
  for (const auto& [known, name] : kActionNames) {
    if (known == action) return name;
  }
  return "unknown";
}

std::optional<WatchdogAction> parse_action(std::string_view name) {
  for (const auto& [action, known] : kActionNames) {
    if (known == name) return action;
  }
  return std::nullopt;
}

std::vector<WatchdogProblem> WatchdogSettings::validate() const {
  std::vector<WatchdogProblem> problems;
  check_range(problems, "poll_interval", poll_interval, 10, 1000);
  check_range(problems, "detection_time", detection_time, 20, 5000);
  // One poll is one sample of a burst: detection needs the signal to persist across two.
  if (detection_time < 2 * poll_interval) {
    problems.push_back({"detection_time", std::to_string(detection_time.count()) +
                                              " ms is less than two polls (2 x poll_interval = " +
                                              std::to_string(2 * poll_interval.count()) + " ms)"});
  }
  check_range(problems, "restoration_time", restoration_time, 100, 60000);
  if (!parse_action(action_name(rx_action))) {
    problems.push_back({"action.rx", "not one of alert, disable-pfc"});
  } else if (rx_action == WatchdogAction::stall_prevention) {
    problems.push_back({"action.rx",
                        "stall-prevention stops the pauses this NIC sends; it cannot end an RX "
                        "storm (the switch pausing us): use disable-pfc or alert"});
  }
  if (!parse_action(action_name(tx_action))) {
    problems.push_back({"action.tx", "not one of alert, disable-pfc, stall-prevention"});
  }
  check_range(problems, "stall_prevention_timeout", stall_prevention_timeout, 80, 8000);
  for (const auto& [field, share] : {std::pair{"poll_budget.cpu", poll_budget_cpu},
                                     std::pair{"poll_budget.firmware", poll_budget_firmware}}) {
    if (!(share >= 0.001 && share <= 1.0)) {
      problems.push_back({field, "must be 0.1% to 100%"});
    }
  }
  check_range(problems, "verify_polls", verify_polls, 1, 100);
  check_range(problems, "max_actions_per_hour", max_actions_per_hour, 1, 100);
  return problems;
}

}  // namespace roced::watchdog
