// SPDX-License-Identifier: Apache-2.0
// ActionBudget: at most N actions per port in any sliding hour, then held until a slot frees.
#include "watchdog/action_budget.hpp"

#include <gtest/gtest.h>

namespace roced::watchdog {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using Clock = ActionBudget::Clock;

const Clock::time_point kOrigin = Clock::time_point{} + hours(10);

TEST(ActionBudget, AllowsUpToTheLimitThenHoldsUntilTheOldestIsAnHourOld) {
  ActionBudget budget(3);
  for (const int minute : {0, 10, 20}) {
    const auto now = kOrigin + minutes(minute);
    ASSERT_TRUE(budget.allow("lan3", now)) << minute;
    EXPECT_EQ(budget.held_until("lan3", now), std::nullopt);
    budget.record("lan3", now);
  }
  EXPECT_EQ(budget.actions_in_window("lan3", kOrigin + minutes(30)), 3u);
  EXPECT_FALSE(budget.allow("lan3", kOrigin + minutes(30)));
  EXPECT_EQ(budget.held_until("lan3", kOrigin + minutes(30)), kOrigin + hours(1));
  EXPECT_FALSE(budget.allow("lan3", kOrigin + hours(1) - seconds(1)));
  // Exactly one hour later the first action has left the window.
  EXPECT_TRUE(budget.allow("lan3", kOrigin + hours(1)));
  EXPECT_EQ(budget.actions_in_window("lan3", kOrigin + hours(1)), 2u);
  budget.record("lan3", kOrigin + hours(1));
  // Full again: the next slot frees when the 10-minute action turns an hour old.
  EXPECT_FALSE(budget.allow("lan3", kOrigin + hours(1) + minutes(1)));
  EXPECT_EQ(budget.held_until("lan3", kOrigin + hours(1) + minutes(1)),
            kOrigin + hours(1) + minutes(10));
}

TEST(ActionBudget, PortsHaveTheirOwnBudgets) {
  ActionBudget budget(1);
  budget.record("lan3", kOrigin);
  EXPECT_FALSE(budget.allow("lan3", kOrigin + minutes(1)));
  EXPECT_TRUE(budget.allow("lan4", kOrigin + minutes(1)));
  EXPECT_EQ(budget.actions_in_window("lan4", kOrigin + minutes(1)), 0u);
}

TEST(ActionBudget, HeldUntilCountsOnlyTheActionsThatMustLeave) {
  ActionBudget budget(2);
  // Recorded out of order: the budget sorts them.
  for (const int minute : {40, 5, 30, 50}) budget.record("lan2", kOrigin + minutes(minute));
  const auto now = kOrigin + minutes(55);
  EXPECT_EQ(budget.actions_in_window("lan2", now), 4u);
  // Four in the window, two allowed: one more action needs three of them gone, the 40-minute one
  // last.
  EXPECT_EQ(budget.held_until("lan2", now), kOrigin + minutes(40) + hours(1));
}

TEST(ActionBudget, OldActionsAreForgotten) {
  ActionBudget budget(2);
  budget.record("lan5", kOrigin);
  budget.record("lan5", kOrigin + minutes(1));
  budget.record("lan5", kOrigin + hours(2));
  EXPECT_EQ(budget.actions_in_window("lan5", kOrigin + hours(2)), 1u);
  EXPECT_TRUE(budget.allow("lan5", kOrigin + hours(2)));
}

TEST(ActionBudget, ZeroActionsIsHeldForever) {
  ActionBudget budget(0);
  EXPECT_FALSE(budget.allow("lan3", kOrigin));
  EXPECT_EQ(budget.held_until("lan3", kOrigin), Clock::time_point::max());
}

TEST(ActionBudget, CustomWindow) {
  ActionBudget budget(1, minutes(5));
  budget.record("lan3", kOrigin);
  EXPECT_FALSE(budget.allow("lan3", kOrigin + minutes(4)));
  EXPECT_TRUE(budget.allow("lan3", kOrigin + minutes(5)));
}

}  // namespace
}  // namespace roced::watchdog
