// SPDX-License-Identifier: Apache-2.0
// The symbol-error history across a restart: written on one run's clocks, read on another's, the
// hour kept and nothing older, roced's own steps never written, and any odd document read as none.
#include "health/history.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "health/phy_errors.hpp"

namespace roced::health {
namespace {

using namespace std::chrono_literals;

TEST(History, StepsSurviveARestartOnAnotherMonotonicClock) {
  CounterWindow window = symbol_error_window();
  const SteadyTime before{std::chrono::hours(100)};
  const WallTime wall{std::chrono::seconds(1'800'000'000)};
  window.add(before, 0);
  window.add(before + 10s, 50);
  window.add(before + 20s, 80);
  const std::string text = history_document({{"lan2", &window}}, before + 20s, wall);

  // The machine rebooted: the monotonic clock restarted; 5 minutes of wall time passed.
  const SteadyTime after{std::chrono::seconds(30)};
  const auto read = read_history(text, after, wall + 5min);
  ASSERT_EQ(read.count("lan2"), 1u) << text;
  const auto& steps = read.at("lan2");
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].counted, 50u);
  EXPECT_EQ(steps[1].counted, 30u);
  EXPECT_EQ(steps[1].at, after - 5min);
  EXPECT_EQ(steps[0].at, after - 5min - 10s);

  CounterWindow restored = symbol_error_window();
  restored.restore(steps);
  restored.add(after, 7);  // the first reading after the restart: no step of its own
  EXPECT_EQ(restored.total(), 80u);
  // An hour after those steps, nothing of them is read.
  EXPECT_TRUE(read_history(text, after, wall + 61min).empty());
}

TEST(History, RocedsOwnStepsAreNotWrittenAndAnEmptyWindowWritesNoPort) {
  CounterWindow window = link_down_window();
  const SteadyTime t0{std::chrono::hours(1)};
  window.add(t0, 0);
  window.add(t0 + 10s, 3, /*own=*/true);
  CounterWindow quiet = symbol_error_window();
  const std::string text =
      history_document({{"lan2", &window}, {"lan3", &quiet}}, t0 + 10s, WallTime{});
  EXPECT_EQ(text, "{\"symbol_errors\":{},\"version\":1}\n");
}

TEST(History, AnOddDocumentIsReadAsNoneAndOddStepsAreSkipped) {
  const SteadyTime now{std::chrono::hours(2)};
  const WallTime wall{std::chrono::seconds(1'800'000'000)};
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>((wall - 1min).time_since_epoch())
          .count();
  const std::string step = "[" + std::to_string(ms) + ", 5, 10]";
  const std::vector<std::string> odd = {
      "",
      "{",
      "[]",
      "{\"version\": 2}",
      "{\"version\": 1, \"symbol_errors\": []}",
      "{\"version\": 1, \"symbol_errors\": {\"lan2\": 3}}",
      "{\"version\": 1, \"symbol_errors\": {\"lan2\": [[1, -5, 10], [\"x\"], 7]}}"};
  for (const std::string& text : odd) {
    EXPECT_TRUE(read_history(text, now, wall).empty()) << text;
  }
  // One good step among odd ones is kept; one from the future (a clock set back) is not.
  const std::string future = "[" + std::to_string(ms + 3'600'000) + ", 9, 10]";
  const auto read = read_history("{\"version\": 1, \"symbol_errors\": {\"lan2\": [[1, -5, 10], " +
                                     step + ", " + future + "]}}",
                                 now, wall);
  ASSERT_EQ(read.count("lan2"), 1u);
  ASSERT_EQ(read.at("lan2").size(), 1u);
  EXPECT_EQ(read.at("lan2")[0].counted, 5u);
}

}  // namespace
}  // namespace roced::health
