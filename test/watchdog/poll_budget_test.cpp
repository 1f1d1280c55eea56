// SPDX-License-Identifier: Apache-2.0
// PollBudget: the interval the reads' cost allows, on hand-made round costs.
#include "watchdog/poll_budget.hpp"

#include <gtest/gtest.h>

namespace roced::watchdog {
namespace {

using namespace std::chrono_literals;

RoundCost cost(Clock::duration cpu, Clock::duration read = 0ms, std::string port = "lan2") {
  return {cpu, read, std::move(port), read};
}

// `rounds` rounds of `each`; how many changed the interval.
int feed(PollBudget& budget, int rounds, const RoundCost& each) {
  int changes = 0;
  for (int i = 0; i < rounds; ++i) changes += budget.after_round(each) ? 1 : 0;
  return changes;
}

TEST(PollBudget, WithinTheBudgetTheConfiguredIntervalStays) {
  PollBudget budget(10ms, 0.05, 0.10);
  EXPECT_EQ(feed(budget, 1000, cost(400us, 900us)), 0);
  EXPECT_EQ(budget.interval(), 10ms);
  EXPECT_EQ(budget.limit(), BudgetLimit::none);
}

TEST(PollBudget, CostlyRoundsLengthenTheIntervalToWhatTheBudgetAllows) {
  PollBudget budget(10ms, 0.05, 0.10);
  // Judged once a second of polling (100 rounds at 10 ms), not before.
  EXPECT_EQ(feed(budget, 99, cost(1200us)), 0);
  EXPECT_TRUE(budget.after_round(cost(1200us)));  // half of 1.2 ms, smoothed from zero: 12 ms
  EXPECT_EQ(budget.interval(), 12ms);
  EXPECT_EQ(budget.limit(), BudgetLimit::cpu);
  // 1.2 ms of CPU a round is 5 % of 24 ms; the interval follows once the cost needs a tenth
  // more than it, so it ends within a tenth under that.
  feed(budget, 2000, cost(1200us));
  EXPECT_GE(budget.interval(), 22ms);
  EXPECT_LE(budget.interval(), 24ms);
  const double smoothed_us =
      std::chrono::duration<double, std::micro>(budget.cpu_per_round()).count();
  EXPECT_NEAR(smoothed_us, 1200, 1);
  // A port whose read takes 3.5 ms is 10 % of its firmware time at 35 ms: that limit wins.
  feed(budget, 2000, cost(1200us, 3500us, "lan5"));
  EXPECT_GE(budget.interval(), 32ms);
  EXPECT_LE(budget.interval(), 35ms);
  EXPECT_EQ(budget.limit(), BudgetLimit::firmware);
  EXPECT_EQ(budget.slowest_port(), "lan5");
}

// The scheduler's hiccups are a round here and there: the second's mean hardly moves.
TEST(PollBudget, ASlowRoundHereAndThereChangesNothing) {
  PollBudget budget(10ms, 0.05, 0.10);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(feed(budget, 99, cost(300us, 700us)), 0) << i;
    EXPECT_FALSE(budget.after_round(cost(20ms, 20ms))) << i;
  }
  EXPECT_EQ(budget.interval(), 10ms);
}

TEST(PollBudget, TheIntervalComesBackInAFewStepsWithoutFlapping) {
  PollBudget budget(10ms, 0.05, 0.10);
  feed(budget, 500, cost(3ms));  // 60 ms wanted
  ASSERT_GE(budget.interval(), 40ms);
  int changes = 0;
  Clock::duration last = budget.interval();
  for (int i = 0; i < 3000; ++i) {
    if (!budget.after_round(cost(300us))) continue;
    ++changes;
    EXPECT_LT(budget.interval(), last) << i;  // never up again
    // A fifth less (rounded up to a millisecond), or back at the configured interval.
    if (budget.interval() != 10ms) {
      EXPECT_LE(budget.interval() * 5, last * 4 + 5ms) << i;
    }
    last = budget.interval();
  }
  EXPECT_EQ(budget.interval(), 10ms);
  EXPECT_EQ(budget.limit(), BudgetLimit::none);
  EXPECT_LE(changes, 6);
}

TEST(PollBudget, NeverLongerThanASecondNorShorterThanConfigured) {
  PollBudget budget(10ms, 0.001, 0.10);
  feed(budget, 100, cost(50ms));  // 25 ms smoothed would need 25 s
  EXPECT_EQ(budget.interval(), PollBudget::kCeiling);
  PollBudget slow(1000ms, 0.05, 0.10);
  feed(slow, 10, cost(0ms));
  EXPECT_EQ(slow.interval(), 1000ms);
}

TEST(PollBudget, LimitNamesRoundTrip) {
  EXPECT_EQ(budget_limit_name(BudgetLimit::cpu), "cpu");
  EXPECT_EQ(budget_limit_name(BudgetLimit::firmware), "firmware");
  EXPECT_EQ(budget_limit_name(BudgetLimit::none), "none");
}

}  // namespace
}  // namespace roced::watchdog
