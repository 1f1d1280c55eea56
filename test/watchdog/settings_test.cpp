// SPDX-License-Identifier: Apache-2.0
// WatchdogSettings::validate: ranges, the two-poll rule, and the action names.
#include "watchdog/settings.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <vector>

namespace roced::watchdog {
namespace {

using std::chrono::milliseconds;

TEST(WatchdogSettings, DefaultsAreValid) {
  EXPECT_EQ(WatchdogSettings{}.validate(), std::vector<WatchdogProblem>{});
}

struct SettingsCase {
  std::string name;
  std::function<void(WatchdogSettings&)> change;
  std::vector<WatchdogProblem> problems;
};

std::vector<SettingsCase> settings_cases() {
  using P = std::vector<WatchdogProblem>;
  return {
      {"fastest_poll_and_detection",
       [](auto& s) {
         s.poll_interval = milliseconds(10);
         s.detection_time = milliseconds(20);
       },
       P{}},
      {"slowest_everything",
       [](auto& s) {
         s.poll_interval = milliseconds(1000);
         s.detection_time = milliseconds(5000);
         s.restoration_time = milliseconds(60000);
         s.verify_polls = 100;
         s.max_actions_per_hour = 100;
       },
       P{}},
      {"poll_too_fast", [](auto& s) { s.poll_interval = milliseconds(9); },
       P{{"poll_interval", "9 ms is out of range (10-1000 ms)"}}},
      {"poll_too_slow",
       [](auto& s) {
         s.poll_interval = milliseconds(1001);
         s.detection_time = milliseconds(5000);
       },
       P{{"poll_interval", "1001 ms is out of range (10-1000 ms)"}}},
      {"detection_too_short",
       [](auto& s) {
         s.poll_interval = milliseconds(10);
         s.detection_time = milliseconds(19);
       },
       P{{"detection_time", "19 ms is out of range (20-5000 ms)"},
         {"detection_time", "19 ms is less than two polls (2 x poll_interval = 20 ms)"}}},
      {"detection_too_long", [](auto& s) { s.detection_time = milliseconds(5001); },
       P{{"detection_time", "5001 ms is out of range (20-5000 ms)"}}},
      {"detection_of_one_poll",
       [](auto& s) {
         s.poll_interval = milliseconds(100);
         s.detection_time = milliseconds(199);
       },
       P{{"detection_time", "199 ms is less than two polls (2 x poll_interval = 200 ms)"}}},
      {"restoration_too_short", [](auto& s) { s.restoration_time = milliseconds(99); },
       P{{"restoration_time", "99 ms is out of range (100-60000 ms)"}}},
      {"restoration_too_long", [](auto& s) { s.restoration_time = milliseconds(60001); },
       P{{"restoration_time", "60001 ms is out of range (100-60000 ms)"}}},
      {"no_verify_polls", [](auto& s) { s.verify_polls = 0; },
       P{{"verify_polls", "0 is out of range (1-100)"}}},
      {"no_actions", [](auto& s) { s.max_actions_per_hour = 0; },
       P{{"max_actions_per_hour", "0 is out of range (1-100)"}}},
      {"undefined_action", [](auto& s) { s.tx_action = static_cast<WatchdogAction>(7); },
       P{{"action.tx", "not one of alert, disable-pfc, stall-prevention"}}},
      {"stall_prevention_cannot_end_an_rx_storm",
       [](auto& s) { s.rx_action = WatchdogAction::stall_prevention; },
       P{{"action.rx",
          "stall-prevention stops the pauses this NIC sends; it cannot end an RX storm (the "
          "switch pausing us): use disable-pfc or alert"}}},
      {"every_action_that_works",
       [](auto& s) {
         s.rx_action = WatchdogAction::disable_pfc;
         s.tx_action = WatchdogAction::stall_prevention;
         s.stall_prevention_timeout = milliseconds(8000);
       },
       P{}},
      {"stall_prevention_below_mlx5s_minimum",
       [](auto& s) { s.stall_prevention_timeout = milliseconds(79); },
       P{{"stall_prevention_timeout", "79 ms is out of range (80-8000 ms)"}}},
      {"several_in_field_order",
       [](auto& s) {
         s.restoration_time = milliseconds(0);
         s.poll_interval = milliseconds(0);
         s.max_actions_per_hour = 101;
       },
       P{{"poll_interval", "0 ms is out of range (10-1000 ms)"},
         {"restoration_time", "0 ms is out of range (100-60000 ms)"},
         {"max_actions_per_hour", "101 is out of range (1-100)"}}},
  };
}

// gtest prints a failing case by its name, not its bytes.
void PrintTo(const SettingsCase& c, std::ostream* os) { *os << c.name; }

class SettingsTable : public ::testing::TestWithParam<SettingsCase> {};

TEST_P(SettingsTable, Problems) {
  WatchdogSettings settings;
  GetParam().change(settings);
  EXPECT_EQ(settings.validate(), GetParam().problems);
}

INSTANTIATE_TEST_SUITE_P(Watchdog, SettingsTable, ::testing::ValuesIn(settings_cases()),
                         [](const auto& test_case) { return test_case.param.name; });

TEST(WatchdogSettings, ActionNamesRoundTrip) {
  for (const auto action :
       {WatchdogAction::alert, WatchdogAction::disable_pfc, WatchdogAction::stall_prevention}) {
    EXPECT_EQ(parse_action(action_name(action)), action);
  }
  EXPECT_EQ(action_name(WatchdogAction::disable_pfc), "disable-pfc");
  EXPECT_EQ(parse_action("stall-prevention"), WatchdogAction::stall_prevention);
  EXPECT_EQ(parse_action("disable_pfc"), std::nullopt);
  EXPECT_EQ(parse_action("drop"), std::nullopt);
  EXPECT_EQ(parse_action(""), std::nullopt);
}

}  // namespace
}  // namespace roced::watchdog
