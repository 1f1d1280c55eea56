// StormLoop over roce-sim: an RX storm on lan3 priority 3 is detected there, and its end seen,
// while lan2's heavy congestion that still moves and the idle ports raise nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <thread>

#include "daemon/storms/storm_log.hpp"
#include "daemon/storms/storm_loop.hpp"
#include "dcb/client.hpp"
#include "sim_node.hpp"

namespace roced::storms {
namespace {

using namespace std::chrono_literals;

class StormLoopSim : public roced::test::SimNode {
 protected:
  std::string scenario_file() const override {
    const std::string path =
        "/tmp/roced-storm-loop-" + std::to_string(::getpid()) + ".yaml";  // one per test run
    std::ofstream(path) << "name: storm-loop\n"
                           "clock: {speed: 1}\n"
                           "traffic:\n"
                           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
                           "  - {port: lan2, priority: 3, direction: tx, rate: 100G}\n"
                           "events:\n"
                           "  - {at: 1s, kind: congestion, port: lan2, priority: 3, duration: 4s,\n"
                           "     pause_ratio: 0.95}\n"
                           "  - {at: 3s, kind: pfc_storm, port: lan3, priority: 3, direction: rx,\n"
                           "     duration: 2s}\n";
    return path;
  }
  void SetUp() override {
    SimNode::SetUp();
    system_ = std::make_unique<System>(System::simulated(dir_));
    // PFC on priority 3 everywhere, as roced's profile would have it: the pauses take effect.
    dcb::DcbClient dcb(*system_);
    for (const char* netdev : {"lan2", "lan3", "lan4", "lan5"}) {
      auto state = dcb.get(netdev);
      ASSERT_TRUE(state.ok() && state->pfc) << netdev;
      dcb::Pfc pfc = *state->pfc;
      pfc.enabled_mask = 1u << 3;
      ASSERT_TRUE(dcb.set_pfc(netdev, pfc).ok()) << netdev;
    }
  }
  std::unique_ptr<System> system_;
};

TEST_F(StormLoopSim, DetectsTheRxStormWhereItIsAndItsEndAndNothingElse) {
  watchdog::WatchdogSettings settings;
  settings.enabled = true;
  settings.poll_interval = 10ms;
  settings.detection_time = 50ms;
  settings.restoration_time = 300ms;
  std::mutex mutex;
  std::vector<watchdog::PortStormEvent> events;
  StormLoop loop(
      *system_, settings,
      [this] {
        std::vector<WatchedPort> ports;
        for (const char* netdev : {"lan2", "lan3", "lan4", "lan5"}) {
          auto port = describe_netdev(*system_->files, netdev);
          if (port) ports.push_back({*port, 1u << 3});
        }
        return ports;
      },
      [&](const watchdog::PortStormEvent& event) {
        std::lock_guard lock(mutex);
        events.push_back(event);
      });
  loop.start();
  const auto restored = [&] {
    std::lock_guard lock(mutex);
    return std::any_of(events.begin(), events.end(), [](const auto& e) {
      return std::holds_alternative<watchdog::StormRestored>(e.event);
    });
  };
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!restored() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(50ms);
  }
  loop.stop();

  std::string all;
  for (const auto& event : events) all += event.netdev + ": " + describe(event) + "\n";
  ASSERT_EQ(events.size(), 2u) << all;
  for (const auto& event : events) {
    EXPECT_EQ(event.netdev, "lan3") << all;
    EXPECT_EQ(event.priority, 3) << all;
    EXPECT_EQ(event.direction, watchdog::Direction::rx) << all;
  }
  const auto* detected = std::get_if<watchdog::StormDetected>(&events[0].event);
  ASSERT_NE(detected, nullptr) << all;
  EXPECT_GE(detected->accumulated, 50ms);
  EXPECT_GE(detected->stormed_polls, 2);
  const auto* ended = std::get_if<watchdog::StormRestored>(&events[1].event);
  ASSERT_NE(ended, nullptr) << all;
  // The storm paused lan3 for 2 s of simulated (= real) time; the watchdog cannot have seen it
  // shorter than that, less one poll.
  EXPECT_GE(ended->storm_duration, 2s - 10ms) << all;
  EXPECT_GT(loop.polls(), 100u);
}

}  // namespace
}  // namespace roced::storms
