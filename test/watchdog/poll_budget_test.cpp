// SPDX-License-Identifier: Apache-2.0
// PollBudget: the interval the reads' cost allows, on hand-made round costs.
#include "watchdog/poll_budget.hpp"

#include <gtest/gtest.h>

namespace roced::watchdog {
namespace {

using namespace std::chrono_literals;

RoundCost cost(Clock::duration cpu, Clock::duration read = 0ms, std::string port = "lan2") {
  return {cpu, read, std::move(port)};
}

TEST(PollBudget, WithinTheBudgetTheConfiguredIntervalStays) {
  PollBudget budget(10ms, 0.05, 0.10);
  for (int i = 0; i < 50; ++i) EXPECT_FALSE(budget.after_round(cost(400us, 900us)));
  EXPECT_EQ(budget.interval(), 10ms);
  EXPECT_EQ(budget.limit(), BudgetLimit::none);
}

TEST(PollBudget, CostlyRoundsLengthenTheIntervalToWhatTheBudgetAllows) {
  PollBudget budget(10ms, 0.05, 0.10);
  // The first costly round moves the smoothed cost a fifth of the way (from zero: the first
  // rounds also read the names); it rises with each one.
  EXPECT_TRUE(budget.after_round(cost(5ms)));  // 1 ms smoothed: 20 ms
  EXPECT_EQ(budget.interval(), 20ms);
  // 1.2 ms of CPU a round is 5 % of 24 ms; the interval follows once the cost needs a tenth
  // more than it, so it ends within a tenth under that.
  for (int i = 0; i < 60; ++i) budget.after_round(cost(1200us));
  EXPECT_GE(budget.interval(), 22ms);
  EXPECT_LE(budget.interval(), 24ms);
  EXPECT_EQ(budget.limit(), BudgetLimit::cpu);
  const double smoothed_us =
      std::chrono::duration<double, std::micro>(budget.cpu_per_round()).count();
  EXPECT_NEAR(smoothed_us, 1200, 1);
  // A port whose read takes 3.5 ms is 10 % of its firmware time at 35 ms: that limit wins.
  for (int i = 0; i < 40; ++i) budget.after_round(cost(1200us, 3500us, "lan5"));
  EXPECT_GE(budget.interval(), 32ms);
  EXPECT_LE(budget.interval(), 35ms);
  EXPECT_EQ(budget.limit(), BudgetLimit::firmware);
  EXPECT_EQ(budget.slowest_port(), "lan5");
}

TEST(PollBudget, OneSlowRoundIsSmoothedAndTheIntervalComesBackWithoutFlapping) {
  PollBudget budget(10ms, 0.05, 0.10);
  for (int i = 0; i < 60; ++i) budget.after_round(cost(300us));
  // A 5 ms hiccup moves the smoothed cost a fifth of the way: 1.24 ms, 25 ms.
  EXPECT_TRUE(budget.after_round(cost(5ms)));
  EXPECT_EQ(budget.interval(), 25ms);
  // Back to 0.3 ms rounds: the interval comes down in a few steps, never up.
  int changes = 0;
  Clock::duration last = budget.interval();
  for (int i = 0; i < 40; ++i) {
    if (budget.after_round(cost(300us))) {
      ++changes;
      // A fifth less (rounded up to a millisecond), or back at the configured interval.
      if (budget.interval() != 10ms) {
        EXPECT_LE(budget.interval() * 5, last * 4 + 5ms) << i;
      }
      EXPECT_LT(budget.interval(), last) << i;
      last = budget.interval();
    }
  }
  EXPECT_EQ(budget.interval(), 10ms);
  EXPECT_EQ(budget.limit(), BudgetLimit::none);
  EXPECT_LE(changes, 5);
}

TEST(PollBudget, NeverLongerThanASecondNorShorterThanConfigured) {
  PollBudget budget(10ms, 0.001, 0.10);
  budget.after_round(cost(50ms));  // 10 ms smoothed would need 10 s
  EXPECT_EQ(budget.interval(), PollBudget::kCeiling);
  PollBudget slow(1000ms, 0.05, 0.10);
  slow.after_round(cost(0ms));
  EXPECT_EQ(slow.interval(), 1000ms);
}

TEST(PollBudget, LimitNamesRoundTrip) {
  EXPECT_EQ(budget_limit_name(BudgetLimit::cpu), "cpu");
  EXPECT_EQ(budget_limit_name(BudgetLimit::firmware), "firmware");
  EXPECT_EQ(budget_limit_name(BudgetLimit::none), "none");
}

}  // namespace
}  // namespace roced::watchdog
