// SPDX-License-Identifier: Apache-2.0
#pragma once
// The watchdog's settings as the config file gives them, with their range checks. The YAML loader
// (daemon/config) reads the keys and reports validate()'s problems at the key's position.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roced::watchdog {

// What roced does once a storm is detected.
enum class WatchdogAction {
  alert,             // log, signal, metric; nothing changes on the NIC
  disable_pfc,       // clear the priority's PFC bit until restoration (mlx5: a link flap each way)
  stall_prevention,  // tighten the NIC's pfc-prevention-tout (helps TX storms only)
};

std::string_view action_name(WatchdogAction action);  // "alert", "disable-pfc", "stall-prevention"
std::optional<WatchdogAction> parse_action(std::string_view name);

// One bad setting: `field` is the key as written under `watchdog:` so the loader can point at it.
struct WatchdogProblem {
  std::string field;
  std::string message;

  bool operator==(const WatchdogProblem&) const = default;
};

struct WatchdogSettings {
  // On, alerting only: its reads are the ones a scrape serves (metrics.max_sample_age), so
  // watching costs one statistics read per port and poll, and acting (which flaps links) is
  // opt-in per direction.
  bool enabled = true;
  std::chrono::milliseconds poll_interval{100};     // 10-1000 ms
  std::chrono::milliseconds detection_time{200};    // 20-5000 ms, at least two polls
  std::chrono::milliseconds restoration_time{200};  // 100-60000 ms
  // Per direction, because stall prevention only stops the pauses this NIC sends: it cannot end
  // an RX storm. Acting flaps links (disable-pfc): opt in.
  WatchdogAction rx_action = WatchdogAction::alert;  // alert | disable-pfc
  WatchdogAction tx_action = WatchdogAction::alert;  // alert | disable-pfc | stall-prevention
  // What `stall-prevention` sets pfc-prevention-tout to (mlx5 takes 80-8000 ms).
  std::chrono::milliseconds stall_prevention_timeout{80};
  // The poll budget (watchdog/poll_budget.hpp): the share of one core the reads may take, and
  // of each port's firmware command time. Beyond either the poll slows, and says so.
  double poll_budget_cpu = 0.05;       // 0.1-100 %
  double poll_budget_firmware = 0.10;  // 0.1-100 %
  int verify_polls = 3;                // 1-100 polls after an action
  int max_actions_per_hour = 6;        // 1-100 per port

  // Every problem, in field order; empty when the settings are usable.
  std::vector<WatchdogProblem> validate() const;
  bool operator==(const WatchdogSettings&) const = default;
  WatchdogAction action_for(bool rx) const { return rx ? rx_action : tx_action; }
};

}  // namespace roced::watchdog
