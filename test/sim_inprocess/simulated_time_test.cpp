// SPDX-License-Identifier: Apache-2.0
// The simulated clock: waits end when it is advanced past their deadline or when what they wait
// for is ready, never by themselves; a scenario on the in-process node plays as it moves.
#include "sim/inprocess/simulated_time.hpp"

#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "in_process_node.hpp"
#include "link/link.hpp"
#include "sim/model/scenario.hpp"

namespace roced {
namespace {

using namespace std::chrono_literals;
using roce_sim::SimulatedTime;

// Real time that a waiter gets to show it did not wake up too early. A slow machine only makes
// that check weaker, never wrong: before the clock moves, a test waits until its threads wait.
constexpr auto kRealPause = 50ms;

TEST(SimulatedTime, AWaitEndsOnlyWhenTheClockPassesItsDeadline) {
  SimulatedTime time;
  std::mutex mutex;
  std::condition_variable wake;
  const auto deadline = time.now() + 1s;
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    std::unique_lock lock(mutex);
    EXPECT_FALSE(time.wait_until(lock, wake, deadline, [] { return false; }));
    done = true;
  });
  ASSERT_TRUE(time.until_waiting(1));
  std::this_thread::sleep_for(kRealPause);
  EXPECT_FALSE(done);
  time.advance(999ms);
  std::this_thread::sleep_for(kRealPause);
  EXPECT_FALSE(done);
  time.advance(1ms);
  waiter.join();
  EXPECT_TRUE(done);
}

TEST(SimulatedTime, AWaitEndsWhenReadyWithoutTheClockMoving) {
  SimulatedTime time;
  std::mutex mutex;
  std::condition_variable wake;
  bool ready = false;
  const auto start = time.now();
  std::thread waiter([&] {
    std::unique_lock lock(mutex);
    EXPECT_TRUE(time.wait_for(lock, wake, 1h, [&] { return ready; }));
  });
  {
    const std::lock_guard lock(mutex);
    ready = true;
  }
  wake.notify_all();
  waiter.join();
  EXPECT_EQ(time.now(), start);
}

TEST(SimulatedTime, SleepAndPollFollowTheClock) {
  SimulatedTime time;
  std::atomic<int> polled{-2};
  std::atomic<bool> slept{false};
  const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  // Deadlines from here, whenever the threads get to run.
  const auto start = time.now();
  std::thread sleeper([&] {
    time.sleep_until(start + 2s);
    slept = true;
  });
  std::thread poller([&] {
    pollfd one{fd, POLLIN, 0};
    polled = time.poll_until(std::span(&one, 1), start + 5s);
  });
  ASSERT_TRUE(time.until_waiting(2));
  std::this_thread::sleep_for(kRealPause);
  EXPECT_FALSE(slept);
  EXPECT_EQ(polled, -2);
  time.advance(2s);
  sleeper.join();
  EXPECT_TRUE(slept);
  EXPECT_EQ(polled, -2);
  time.advance(3s);
  poller.join();
  EXPECT_EQ(polled, 0);  // the deadline, not the fd
  ::close(fd);
}

TEST(SimulatedTime, WallTimeAndListenersFollowEveryStep) {
  SimulatedTime time;
  const auto wall = time.wall_now();
  std::chrono::nanoseconds heard{0};
  const int id = time.listen([&](std::chrono::nanoseconds step) { heard += step; });
  time.advance(1500ms);
  time.advance(500ms);
  EXPECT_EQ(heard, 2s);
  EXPECT_EQ(time.wall_now() - wall, 2s);
  time.unlisten(id);
  time.advance(1s);
  EXPECT_EQ(heard, 2s);
  EXPECT_FALSE(time.advance_until([] { return false; }, 10ms, 20ms));
}

class ScenarioOnTheClock : public test::InProcessNode {};

TEST_F(ScenarioOnTheClock, EventsFireWhenTheClockReachesThem) {
  node_->play(roce_sim::parse_scenario_yaml(
      "name: tool\nevents:\n  - {at: 3s, kind: foreign_tool, port: lan4, set: {mtu: 4000}}\n",
      "scenario.yaml"));
  const auto mtu = [&] {
    uint32_t value = 0;
    node_->inspect([&](roce_sim::Node& node) { value = node.find("lan4")->mtu(); });
    return value;
  };
  time_.advance(2999ms);
  EXPECT_EQ(mtu(), 1500u);
  time_.advance(1ms);
  EXPECT_EQ(mtu(), 4000u);
  EXPECT_FALSE(node_->scenario_log().empty());
}

TEST_F(ScenarioOnTheClock, AHeldReplyComesWhenTheClockPassesTheHold) {
  node_->play(roce_sim::parse_scenario_yaml(
      "name: hold\nevents:\n  - {at: 0s, kind: hold_reply, port: lan3, op: mtu, duration: 2s}\n",
      "scenario.yaml"));
  std::atomic<bool> answered{false};
  std::thread caller([&] {
    EXPECT_TRUE(LinkClient(system_).set_mtu("lan3", 4000).ok());
    answered = true;
  });
  // The held reply's deadline counts from when the node took the request: the clock stays put
  // until the caller waits for it.
  ASSERT_TRUE(time_.until_waiting(1));
  std::this_thread::sleep_for(kRealPause);
  EXPECT_FALSE(answered);
  uint32_t mtu = 0;
  node_->inspect([&](roce_sim::Node& node) { mtu = node.find("lan3")->mtu(); });
  EXPECT_EQ(mtu, 4000u);  // carried out at once; only the reply waits
  time_.advance(1999ms);
  std::this_thread::sleep_for(kRealPause);
  EXPECT_FALSE(answered);
  time_.advance(1ms);
  caller.join();
  EXPECT_TRUE(answered);
}

}  // namespace
}  // namespace roced
