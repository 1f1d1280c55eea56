// SPDX-License-Identifier: Apache-2.0
// BackoffRetry on a simulated clock: tries at 1, 2, 4, 8 s after the caller's own failure, the
// delay capped, stops at the first success, and a retry that never succeeds ends when destroyed
// without the clock moving.
#include "util/backoff_retry.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "sim/inprocess/simulated_time.hpp"

namespace roced {
namespace {

using namespace std::chrono_literals;

TEST(BackoffRetry, WaitsLongerAfterEachFailureAndStopsOnSuccess) {
  roce_sim::SimulatedTime time;
  const auto start = time.now();
  std::mutex mutex;
  std::vector<std::chrono::milliseconds> tried_at;
  std::vector<std::chrono::milliseconds> next_delays;
  std::atomic<bool> done{false};
  BackoffRetry retry(
      time, {1s, 4s},
      [&](std::string& error) {
        const std::lock_guard lock(mutex);
        tried_at.push_back(
            std::chrono::duration_cast<std::chrono::milliseconds>(time.now() - start));
        if (tried_at.size() < 5) {
          error = "bind: Address already in use";
          return false;
        }
        done = true;
        return true;
      },
      [&](int failures, const std::string& error, std::chrono::milliseconds next) {
        const std::lock_guard lock(mutex);
        EXPECT_EQ(failures, static_cast<int>(tried_at.size()));
        EXPECT_EQ(error, "bind: Address already in use");
        next_delays.push_back(next);
      });
  ASSERT_TRUE(time.advance_until([&] { return done.load(); }, 100ms));
  time.advance(1min);  // nothing more is tried after the success
  const std::lock_guard lock(mutex);
  EXPECT_EQ(tried_at, (std::vector<std::chrono::milliseconds>{1s, 3s, 7s, 11s, 15s}));
  EXPECT_EQ(next_delays, (std::vector<std::chrono::milliseconds>{2s, 4s, 4s, 4s}));
}

TEST(BackoffRetry, DestroyedWhileWaitingEndsWithoutTheClockMoving) {
  roce_sim::SimulatedTime time;
  std::atomic<int> tries{0};
  {
    BackoffRetry retry(
        time, {},
        [&](std::string&) {
          ++tries;
          return false;
        },
        nullptr);
  }
  EXPECT_EQ(tries.load(), 0);
}

}  // namespace
}  // namespace roced
