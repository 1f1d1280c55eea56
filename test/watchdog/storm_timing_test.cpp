// SPDX-License-Identifier: Apache-2.0
// Timer accuracy in the manner of sonic-mgmt's PFC watchdog test, on a virtual clock: 20 RX storms
// on lan3 and 20 TX storms on lan4 (priority 3, PFC on, stall prevention off), each 300 ms, their
// onsets walking through the 10 ms poll; detection 50 ms, restoration 200 ms, action alert. The
// node is roce-sim's model in this process (its own EthtoolService answers the ioctl), the storm
// loop is the daemon's, and time moves only when the test moves it, so the bounds are exact:
//
//   detection time   <= detection   < detection time   + one poll
//   restoration time <= restoration < restoration time + one poll
//
// Meanwhile lan2 is 95 % paused by congestion that still moves, lan5 is stormed on priority 4 (no
// PFC there), and the other direction of each stormed port sees nothing: none of them may raise
// anything, and alert-only asks for no remediation. Real-time figures on a real roce-sim process
// are bench/storm_bench's.
#include <gtest/gtest.h>
#include <linux/dcbnl.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "daemon/watchdog/remediator.hpp"
#include "daemon/watchdog/storm_loop.hpp"
#include "sim/inprocess/simulated_time.hpp"
#include "sim/model/node_file.hpp"
#include "sim/model/traffic.hpp"
#include "sim/transport/simulated_system.hpp"
#include "test/load/model_ethtool.hpp"

namespace roced::watchdog::test {
namespace {

using namespace std::chrono_literals;
using Us = std::chrono::microseconds;
using SteadyClock = std::chrono::steady_clock;
using Kind = StormNotice::Kind;

constexpr int kStorms = 20;
constexpr Us kFirst = 1s;          // the first RX storm
constexpr Us kPeriod = 1s;         // storm 300 ms + restoration 200 ms + more than 2 x 200 ms apart
constexpr Us kPhaseStep = 3700us;  // walks the onset through the 10 ms poll
constexpr Us kTxLag = 500ms;       // lan4's storm i begins this long after lan3's
constexpr Us kLength = 300ms;
constexpr auto kDetection = 50ms;
constexpr auto kRestoration = 200ms;
constexpr auto kPoll = 10ms;
constexpr uint8_t kLossless = 0x08;  // priority 3

Us onset(int i, watchdog::Direction direction) {
  return kFirst + i * kPeriod + i * kPhaseStep +
         (direction == watchdog::Direction::tx ? kTxLag : Us{0});
}

class StormTiming : public ::testing::Test {
 protected:
  void SetUp() override {
    for (roce_sim::Port* port : node_.ports()) {
      ieee_pfc pfc{};
      port->ieee_getpfc(pfc);
      pfc.pfc_en = kLossless;  // as roced's recipe leaves it
      port->ieee_setpfc(pfc);
      port->advance(std::chrono::milliseconds(port->link_training_ms()));        // and trained
      if (port->spec().caps.stall_prevention) port->set_pfc_prevention_tout(0);  // off
    }
    using roce_sim::Direction;
    traffic_.add_flow({"lan3", 3, Direction::Tx, 100'000'000'000ULL, 4096});
    traffic_.add_flow({"lan3", 3, Direction::Rx, 100'000'000'000ULL, 4096});
    traffic_.add_flow({"lan4", 3, Direction::Rx, 100'000'000'000ULL, 4096});
    traffic_.add_flow({"lan4", 3, Direction::Tx, 50'000'000'000ULL, 4096});
    traffic_.add_flow({"lan2", 3, Direction::Tx, 100'000'000'000ULL, 4096});
    traffic_.add_flow({"lan2", 3, Direction::Rx, 100'000'000'000ULL, 4096});
    traffic_.add_flow({"lan5", 4, Direction::Tx, 50'000'000'000ULL, 4096});

    at(500ms, [this] { traffic_.start_congestion("lan2", 3, {0.1, 20000, 0.95}); });
    at(500ms, [this] { traffic_.start_storm("lan5", 4, Direction::Rx); });
    for (int i = 0; i < kStorms; ++i) {
      for (const auto direction : {watchdog::Direction::rx, watchdog::Direction::tx}) {
        const bool rx = direction == watchdog::Direction::rx;
        const std::string netdev = rx ? "lan3" : "lan4";
        const Direction model = rx ? Direction::Rx : Direction::Tx;
        at(onset(i, direction), [this, netdev, model] { traffic_.start_storm(netdev, 3, model); });
        at(onset(i, direction) + kLength,
           [this, netdev, model] { traffic_.stop_storm(netdev, 3, model); });
      }
    }
    std::stable_sort(events_.begin(), events_.end(),
                     [](const Event& a, const Event& b) { return a.at < b.at; });

    settings_.enabled = true;
    settings_.poll_interval = kPoll;
    settings_.detection_time = kDetection;
    settings_.restoration_time = kRestoration;
    settings_.rx_action = watchdog::WatchdogAction::alert;
    settings_.tx_action = watchdog::WatchdogAction::alert;

    char pattern[] = "/tmp/roced-storm-timing-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    empty_dir_ = pattern;
    // Only the ethtool ioctl is used; it is the model's, stamped by the virtual clock.
    system_ = std::make_unique<System>(roce_sim::simulated_system(empty_dir_));
    const auto now = [this] { return time_.now(); };
    system_->ethtool = std::make_unique<load::ModelEthtool>(node_, now);
    remediator_ = std::make_unique<Remediator>(
        settings_, [this](const std::string& netdev, reconcile::Remediation) {
          ++remediations_;
          apply::PortResult result;
          result.netdev = netdev;
          result.outcome = apply::PortResult::Outcome::Applied;
          std::promise<apply::PortResult> done;
          done.set_value(std::move(result));
          return done.get_future();
        });
    remediator_->on_notice([this](const StormNotice& notice) { notices_.push_back(notice); });
    loop_ = std::make_unique<StormLoop>(
        *system_, settings_,
        [this] {
          std::vector<WatchedPort> ports;
          for (roce_sim::Port* port : node_.ports()) {
            ports.push_back(
                {DiscoveredPort{port->netdev(), "mlx5_core", "", "", 0, "", false}, kLossless});
          }
          return ports;
        },
        *remediator_, time_);
  }

  void TearDown() override {
    loop_.reset();
    remediator_.reset();
    system_.reset();
    if (!empty_dir_.empty()) std::filesystem::remove_all(empty_dir_);
  }

  void at(Us when, std::function<void()> action) { events_.push_back({when, std::move(action)}); }

  // The model up to `t`, each event at its own instant, then one round of the storm loop.
  void poll_at(Us t) {
    while (next_event_ < events_.size() && events_[next_event_].at <= t) {
      move_to(events_[next_event_].at);
      events_[next_event_++].action();
    }
    move_to(t);
    traffic_.take_notes();
    loop_->round();
  }

  SteadyClock::time_point sim_time(Us t) const { return base_ + t; }
  // The model and the loop's clock to `t`.
  void move_to(Us t) {
    traffic_.advance(t - model_now_);
    time_.advance(t - model_now_);
    model_now_ = t;
  }

  struct Event {
    Us at;
    std::function<void()> action;
  };
  roce_sim::Node node_{roce_sim::default_node()};
  roce_sim::TrafficEngine traffic_{node_};
  std::vector<Event> events_;
  size_t next_event_ = 0;
  roce_sim::SimulatedTime time_;
  const SteadyClock::time_point base_ = time_.now();
  Us model_now_{0};
  watchdog::WatchdogSettings settings_;
  std::filesystem::path empty_dir_;
  std::unique_ptr<System> system_;
  std::unique_ptr<Remediator> remediator_;
  std::unique_ptr<StormLoop> loop_;
  std::vector<StormNotice> notices_;
  int remediations_ = 0;
};

TEST_F(StormTiming, TwentyStormsEachWayDetectedAndRestoredWithinOnePoll) {
  const Us end = onset(kStorms - 1, watchdog::Direction::tx) + kLength + 600ms;
  int64_t rounds = 0;
  for (Us t = kPoll; t <= end; t += kPoll) {
    poll_at(t);
    ++rounds;
  }
  EXPECT_EQ(remediations_, 0) << "alert-only asked for a remediation";
  EXPECT_EQ(loop_->polls(), static_cast<uint64_t>(rounds));
  EXPECT_EQ(loop_->late_polls(), 0u);

  for (const auto& n : notices_) {
    const bool expected = (n.netdev == "lan3" && n.direction == watchdog::Direction::rx) ||
                          (n.netdev == "lan4" && n.direction == watchdog::Direction::tx);
    EXPECT_TRUE(expected && n.priority == 3) << "unexpected: " << n.netdev << " " << n.message;
    EXPECT_TRUE(n.kind == Kind::Detected || n.kind == Kind::Restored) << n.message;
  }
  for (const auto direction : {watchdog::Direction::rx, watchdog::Direction::tx}) {
    const std::string netdev = direction == watchdog::Direction::rx ? "lan3" : "lan4";
    std::vector<StormNotice> detected, restored;
    for (const auto& n : notices_) {
      if (n.netdev == netdev) (n.kind == Kind::Detected ? detected : restored).push_back(n);
    }
    ASSERT_EQ(detected.size(), size_t{kStorms}) << netdev;
    ASSERT_EQ(restored.size(), size_t{kStorms}) << netdev;
    for (int i = 0; i < kStorms; ++i) {
      const auto measured = detected[i].at - sim_time(onset(i, direction));
      EXPECT_GE(measured, kDetection) << netdev << " storm " << i;
      EXPECT_LT(measured, kDetection + kPoll) << netdev << " storm " << i;
      EXPECT_EQ(detected[i].interval, kPoll) << netdev << " storm " << i;
      const auto quiet = restored[i].at - sim_time(onset(i, direction) + kLength);
      EXPECT_GE(quiet, kRestoration) << netdev << " storm " << i;
      EXPECT_LT(quiet, kRestoration + kPoll) << netdev << " storm " << i;
      // The latency roced exports comes from the pause counters alone; the true onset lies
      // somewhere in the poll before the first stormed one, so it is off by less than a poll.
      const auto error = detected[i].latency - measured;
      EXPECT_LT(error < SteadyClock::duration::zero() ? -error : error, kPoll)
          << netdev << " storm " << i;
    }
  }
}

}  // namespace
}  // namespace roced::watchdog::test
