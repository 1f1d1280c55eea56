// SPDX-License-Identifier: Apache-2.0
// The poll budget as the daemon runs it: on a node whose firmware takes 50 us a command (an
// ETHTOOL_GSTATS is 34 of them: 1.7 ms), reading every port fully every 10 ms would keep each
// port's command interface 17 % busy. At rest the statistics poller only probes a port (one
// command) and reads it fully every 2 s, which fits the default 10 % firmware budget: the poll
// stays at 10 ms, and a storm, whose port is then read fully every round, is detected within the
// bound the daemon states, which counts a round of full reads. Without the probe (every round
// reads every port) the budget lengthens the poll to 17-20 ms (the 1 ms steps of the simulated
// clock round each read up) and says so; with a 50 % budget it polls as configured.
#include "daemon/watchdog/storm_loop.hpp"
#include "storm_node.hpp"

namespace roced::watchdog::test {
namespace {

class PollBudgetOnSlowFirmware : public StormNode {
 protected:
  bool firmware_takes_time() const override { return true; }
  std::string node() const override { return default_node_with("firmware_command_us: 50"); }
  std::string scenario() const override {
    return "name: storm-on-slow-firmware\n"
           "traffic:\n"
           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
           "events:\n"
           "  - {at: 5s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 1s}\n";
  }
  // In 1 ms steps: a read's firmware time is waited out on the clock to the next step.
  bool run_to_precisely(double seconds) {
    const auto until = sim_time(seconds);
    return time_.advance_until([&] { return time_.now() >= until; }, std::chrono::milliseconds(1));
  }
};

TEST_F(PollBudgetOnSlowFirmware, AtRestTheProbeFitsTheBudgetAndDetectionKeepsItsBound) {
  ASSERT_NO_FATAL_FAILURE(start(storm_config(
      "{enabled: true, poll_interval: 10ms, detection_time: 50ms, restoration_time: 300ms}")));
  ASSERT_TRUE(run_to_precisely(4.9));  // the budget judges a second at a time
  const auto before = watchdog_->stats();
  EXPECT_EQ(before.poll_interval, std::chrono::milliseconds(10));
  EXPECT_EQ(before.effective_interval, std::chrono::milliseconds(10));
  EXPECT_EQ(before.budget_limit, "none");
  ASSERT_TRUE(before.read_time.count("lan3"));
  EXPECT_GT(before.read_time.at("lan3"), std::chrono::milliseconds(0));

  ASSERT_TRUE(
      time_.advance_until([&] { return count(Kind::Detected) > 0; }, std::chrono::milliseconds(1)))
      << all_notices();
  // The bound the daemon states: max(detection_time, two polls) + one poll + a round of full
  // reads after the probe (lan3 is read after three other ports at most), some 71 ms at a 10 ms
  // poll. The threads run freely within a step of the clock, so the detection itself moves by a
  // few milliseconds from run to run, always inside the bound.
  const auto stats = watchdog_->stats();
  const auto interval = stats.effective_interval;
  const auto polls_only =
      std::max<std::chrono::nanoseconds>(std::chrono::milliseconds(50), 2 * interval) + interval;
  EXPECT_GT(stats.detection_bound, polls_only);  // the reads count
  // and are four full reads at most: 1.7 ms each, in the clock's 1 ms steps.
  EXPECT_LT(stats.detection_bound, polls_only + 4 * std::chrono::milliseconds(3));
  const auto detected = notices(Kind::Detected).front().at - sim_time(5.0);
  EXPECT_GE(detected, std::chrono::milliseconds(50)) << all_notices();
  EXPECT_LE(detected, stats.detection_bound + std::chrono::milliseconds(1)) << all_notices();
}

TEST_F(PollBudgetOnSlowFirmware, ALargerBudgetKeepsTheConfiguredPoll) {
  ASSERT_NO_FATAL_FAILURE(
      start(storm_config("{enabled: true, poll_interval: 10ms, detection_time: 50ms, "
                         "restoration_time: 300ms, poll_budget: {cpu: 5%, firmware: 50%}}")));
  ASSERT_TRUE(run_to_precisely(2.9));
  const auto stats = watchdog_->stats();
  EXPECT_EQ(stats.effective_interval, std::chrono::milliseconds(10));
  EXPECT_EQ(stats.budget_limit, "none");
}

}  // namespace
}  // namespace roced::watchdog::test
