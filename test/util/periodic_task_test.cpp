// SPDX-License-Identifier: Apache-2.0
// PeriodicTask on a simulated clock: a run at once, then one per interval counted from each
// run's start; a run longer than the interval is followed at once, without the missed runs made
// up; a trigger runs it at once and leaves the interval's times; destroyed while waiting, it
// ends without the clock moving.
#include "util/periodic_task.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/inprocess/simulated_time.hpp"

namespace roced {
namespace {

using namespace std::chrono_literals;

class Runs {
 public:
  explicit Runs(roce_sim::SimulatedTime& time) : time_(time), start_(time.now()) {}
  void record() {
    const std::lock_guard lock(mutex_);
    at_.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(time_.now() - start_));
    count_ = at_.size();
  }
  size_t count() const { return count_.load(); }
  std::vector<std::chrono::milliseconds> at() const {
    const std::lock_guard lock(mutex_);
    return at_;
  }

 private:
  roce_sim::SimulatedTime& time_;
  const TimeSource::TimePoint start_;
  mutable std::mutex mutex_;
  std::vector<std::chrono::milliseconds> at_;
  std::atomic<size_t> count_{0};
};

TEST(PeriodicTask, RunsAtOnceThenEveryInterval) {
  roce_sim::SimulatedTime time;
  Runs runs(time);
  PeriodicTask task(time, 1s, [&] { runs.record(); });
  ASSERT_TRUE(time.until_waiting(1));  // the first run is made, without the clock
  ASSERT_TRUE(time.advance_until([&] { return runs.count() >= 4; }, 250ms));
  EXPECT_EQ(runs.at(), (std::vector<std::chrono::milliseconds>{0s, 1s, 2s, 3s}));
}

TEST(PeriodicTask, ALongRunIsFollowedAtOnceWithoutMakingUpTheMissedOnes) {
  roce_sim::SimulatedTime time;
  Runs runs(time);
  PeriodicTask task(time, 1s, [&] {
    runs.record();
    if (runs.count() == 2) time.sleep_for(2500ms);  // the second run takes 2.5 intervals
  });
  ASSERT_TRUE(time.until_waiting(1));
  ASSERT_TRUE(time.advance_until([&] { return runs.count() >= 4; }, 250ms));
  EXPECT_EQ(runs.at(), (std::vector<std::chrono::milliseconds>{0s, 1s, 3500ms, 4500ms}));
}

TEST(PeriodicTask, ATriggerRunsAtOnceAndTheIntervalsRunsKeepTheirTimes) {
  roce_sim::SimulatedTime time;
  Runs runs(time);
  PeriodicTask task(time, 1s, [&] { runs.record(); });
  ASSERT_TRUE(time.until_waiting(1));
  time.advance(300ms);
  task.trigger();
  // The run comes without the clock moving: waited for in real time, with a hang's patience.
  const auto patience = std::chrono::steady_clock::now() + roce_sim::SimulatedTime::kHangPatience;
  while (runs.count() < 2 && std::chrono::steady_clock::now() < patience) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(runs.count(), 2u);
  ASSERT_TRUE(time.advance_until([&] { return runs.count() >= 3; }, 100ms));
  EXPECT_EQ(runs.at(), (std::vector<std::chrono::milliseconds>{0s, 300ms, 1s}));
}

TEST(PeriodicTask, DestroyedWhileWaitingEndsWithoutTheClockMoving) {
  roce_sim::SimulatedTime time;
  Runs runs(time);
  {
    PeriodicTask task(time, 1h, [&] { runs.record(); });
    ASSERT_TRUE(time.until_waiting(1));
  }
  EXPECT_EQ(runs.at(), (std::vector<std::chrono::milliseconds>{0s}));
}

}  // namespace
}  // namespace roced
