// SPDX-License-Identifier: Apache-2.0
// StormWatch: whole port samples in, events tagged with port, priority and direction out; a storm
// on one port and priority leaves the others alone; only lossless priorities are watched.
#include "watchdog/storm_watch.hpp"

#include <gtest/gtest.h>

#include "sample_series.hpp"

namespace roced::watchdog {
namespace {

bool storming(const StormWatch& watch, const std::string& netdev, int priority,
              Direction direction) {
  const StormDetector* detector = watch.detector(netdev, priority, direction);
  return detector != nullptr && detector->state() == StormState::storming;
}

using namespace std::chrono_literals;
using test::SampleSeries;

constexpr uint8_t kPriority3 = 1u << 3;

// Priority 3 counters of a port, well above zero.
SampleSeries port(const std::string& netdev) {
  SampleSeries series(netdev);
  for (const char* name :
       {"rx_prio3_pause", "rx_prio3_pause_duration", "rx_prio3_packets", "tx_prio3_pause",
        "tx_prio3_pause_duration", "tx_prio3_packets", "rx_pause_ctrl_phy", "tx_pause_ctrl_phy"}) {
    series.set(name, 1'000'000);
  }
  return series;
}

// 10 ms of an RX storm on priority 3: paused all along, nothing transmitted.
void rx_storm(SampleSeries& series) {
  series.add("rx_prio3_pause_duration", 10'000);
  series.add("rx_prio3_pause", 60);
  series.add("rx_pause_ctrl_phy", 60);
  series.add("rx_prio3_packets", 1000);
}

// 10 ms of traffic both ways, no pause.
void traffic(SampleSeries& series) {
  series.add("rx_prio3_packets", 1000);
  series.add("tx_prio3_packets", 1000);
}

// A baseline, then RX storm polls until the detection (5 with fast()).
void storm_until_detected(StormWatch& watch, SampleSeries& series) {
  watch.feed(series.take(0ms), kPriority3);
  for (int poll = 0; poll < 5; ++poll) {
    rx_storm(series);
    watch.feed(series.take(10ms), kPriority3);
  }
}

DetectorSettings fast() {
  DetectorSettings settings;
  settings.detection_time = 50ms;
  settings.restoration_time = 100ms;
  return settings;
}

TEST(StormWatch, AStormOnOnePortAndPriorityIsReportedThereOnly) {
  StormWatch watch(fast());
  SampleSeries lan3 = port("lan3");
  SampleSeries lan2 = port("lan2");
  EXPECT_TRUE(watch.feed(lan3.take(0ms), kPriority3).empty());  // baselines
  EXPECT_TRUE(watch.feed(lan2.take(0ms), kPriority3).empty());

  std::vector<PortStormEvent> events;
  int polls = 0;
  while (events.empty() && polls < 20) {
    ++polls;
    rx_storm(lan3);
    traffic(lan2);
    for (auto& event : watch.feed(lan3.take(10ms), kPriority3)) events.push_back(event);
    EXPECT_TRUE(watch.feed(lan2.take(10ms), kPriority3).empty()) << "poll " << polls;
  }
  EXPECT_EQ(polls, 5);  // 5 x 10 ms of stormed polls reach 50 ms
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].netdev, "lan3");
  EXPECT_EQ(events[0].priority, 3);
  EXPECT_EQ(events[0].direction, Direction::rx);
  const auto* detected = std::get_if<StormDetected>(&events[0].event);
  ASSERT_NE(detected, nullptr);
  EXPECT_EQ(detected->accumulated, 50ms);
  EXPECT_EQ(detected->stormed_polls, 5);
  EXPECT_TRUE(storming(watch, "lan3", 3, Direction::rx));
  EXPECT_FALSE(storming(watch, "lan3", 3, Direction::tx));
  EXPECT_FALSE(storming(watch, "lan2", 3, Direction::rx));

  EXPECT_TRUE(watch.on_action("lan3", 3, Direction::rx, lan3.now()));
  EXPECT_FALSE(watch.on_action("lan2", 3, Direction::rx, lan2.now()));  // nothing to handle
}

TEST(StormWatch, APriorityThatIsNotLosslessIsNotWatched) {
  StormWatch watch(fast());
  SampleSeries lan3 = port("lan3");
  watch.feed(lan3.take(0ms), 1u << 4);
  for (int poll = 0; poll < 10; ++poll) {
    rx_storm(lan3);
    EXPECT_TRUE(watch.feed(lan3.take(10ms), 1u << 4).empty()) << "poll " << poll;
  }
  EXPECT_FALSE(storming(watch, "lan3", 3, Direction::rx));
}

TEST(StormWatch, APriorityDroppedFromTheLosslessSetLosesItsStorm) {
  StormWatch watch(fast());
  SampleSeries lan3 = port("lan3");
  storm_until_detected(watch, lan3);
  ASSERT_TRUE(storming(watch, "lan3", 3, Direction::rx));
  traffic(lan3);
  EXPECT_TRUE(watch.feed(lan3.take(10ms), 0).empty());
  EXPECT_FALSE(storming(watch, "lan3", 3, Direction::rx));
}

TEST(StormWatch, AForgottenPortDropsItsStormAndStartsFromANewBaseline) {
  StormWatch watch(fast());
  SampleSeries lan3 = port("lan3");
  storm_until_detected(watch, lan3);
  ASSERT_TRUE(storming(watch, "lan3", 3, Direction::rx));
  watch.forget("lan3");  // a driver reload: the netdev vanished; it returns with counters at 0
  EXPECT_FALSE(storming(watch, "lan3", 3, Direction::rx));
  EXPECT_FALSE(watch.on_action("lan3", 3, Direction::rx, lan3.now()));
  lan3.reset_all();
  EXPECT_TRUE(watch.feed(lan3.take(10ms), kPriority3).empty());  // the new baseline
  // The storm goes on: detected again only after a full detection time from the new baseline.
  int polls = 0;
  bool detected = false;
  while (!detected && polls < 20) {
    ++polls;
    rx_storm(lan3);
    detected = !watch.feed(lan3.take(10ms), kPriority3).empty();
  }
  EXPECT_EQ(polls, 5);
}

}  // namespace
}  // namespace roced::watchdog
