// SPDX-License-Identifier: Apache-2.0
// Disruptive changes go port by port: on a node whose links train for seconds after a PFC
// change (mlx5_toggle_port_link), roced never has more ports without carrier than
// daemon.disruptive_ports_at_once, at start and on a reload, and each port is back before the
// next one is flapped. Watched at every 10 ms step of the clock.
#include <future>
#include <map>
#include <regex>

#include "reconcile_node.hpp"

namespace roced::test {
namespace {

using reconcile::Reconciler;

class ReconcileRollout : public ReconcileNode {
 protected:
  // The node's own link training: 3 s at 400G.
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.link_training_ms.reset();
  }

  // Counts, at every step of the clock, the managed ports without carrier.
  void watch_carriers() {
    listener_ = time_.listen([this](std::chrono::nanoseconds) {
      int down = 0;
      node_->inspect([&](roce_sim::Node& node) {
        for (const auto& netdev : kDefaultPorts) down += node.find(netdev)->carrier() ? 0 : 1;
      });
      std::lock_guard lock(mutex_);
      most_down_ = std::max(most_down_, down);
      if (down > 0) ++steps_with_one_down_;
    });
  }
  void TearDown() override {
    if (listener_ != 0) time_.unlisten(listener_);
    ReconcileNode::TearDown();
  }
  // Starts `reconciler` (which waits for every port's first check) while moving the clock.
  bool start_on_the_clock(Reconciler& reconciler) {
    auto started = std::async(std::launch::async, [&] { reconciler.start(); });
    const bool done = time_.advance_until(
        [&] { return started.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
        10ms);
    if (!done) reconciler.stop();  // releases start(), so a failure is reported, not a hang
    return done;
  }
  // A reload that changes PFC on every port: priority 3 -> 3 and 4.
  static void reload_with_pfc_on_3_and_4(Reconciler& reconciler) {
    auto loaded = config::load_string(
        std::regex_replace(std::string(kConfigText), std::regex("priorities: \\[3\\]"),
                           "priorities: [3, 4]"),
        "roced.yaml");
    ASSERT_TRUE(loaded.ok()) << loaded.diagnostics.at(0).to_string();
    loaded.config->daemon.drift_check_interval = 1h;
    ASSERT_TRUE(reconciler.reload(*loaded.config).ok);
  }
  int most_down() {
    std::lock_guard lock(mutex_);
    return most_down_;
  }

  int listener_ = 0;
  std::mutex mutex_;
  int most_down_ = 0;
  int steps_with_one_down_ = 0;
};

TEST_F(ReconcileRollout, AtStartOnePortIsFlappedAtATime) {
  watch_carriers();
  const auto began = time_.now();
  Reconciler reconciler(system_, make_config(DriftPolicy::Enforce, 1h), test_options());
  ASSERT_TRUE(start_on_the_clock(reconciler));
  EXPECT_EQ(most_down(), 1);
  // Four links trained one after another: 4 x 3 s, not 3 s.
  EXPECT_GE(time_.now() - began, 12s);
  for (const auto& port : reconciler.snapshot()) {
    EXPECT_EQ(port.condition, reconcile::PortCondition::InSync) << port.port.netdev;
    ASSERT_TRUE(port.last_apply != nullptr) << port.port.netdev;
    // The applier looks every 100 ms: back within that of the 3 s of training.
    const std::string& carrier = port.last_apply->carrier;
    ASSERT_EQ(carrier.rfind("back after ", 0), 0u) << carrier;
    const int waited = std::stoi(carrier.substr(11));
    EXPECT_GE(waited, 3000) << carrier;
    EXPECT_LE(waited, 3100) << carrier;
  }
  reconciler.stop();
}

TEST_F(ReconcileRollout, TwoAtOnceWhenConfigured) {
  watch_carriers();
  const auto began = time_.now();
  auto config = make_config(DriftPolicy::Enforce, 1h);
  config.daemon.disruptive_ports_at_once = 2;
  Reconciler reconciler(system_, config, test_options());
  ASSERT_TRUE(start_on_the_clock(reconciler));
  EXPECT_EQ(most_down(), 2);
  EXPECT_GE(time_.now() - began, 6s);
  EXPECT_LT(time_.now() - began, 9s);
  reconciler.stop();
}

// A reload that changes PFC on every port (priority 3 -> 3 and 4) flaps them one by one too.
TEST_F(ReconcileRollout, AReloadFlapsOnePortAtATime) {
  Reconciler reconciler(system_, make_config(DriftPolicy::Enforce, 1h), test_options());
  ASSERT_TRUE(start_on_the_clock(reconciler));
  watch_carriers();
  ASSERT_NO_FATAL_FAILURE(reload_with_pfc_on_3_and_4(reconciler));
  ASSERT_TRUE(run_until([&] {
    const auto ports = reconciler.snapshot();
    return std::all_of(ports.begin(), ports.end(), [](const reconcile::PortSnapshot& port) {
      return port.condition == reconcile::PortCondition::InSync && port.last_apply &&
             port.last_apply->steps.size() > 0 && port.last_plan.desired.pfc_priorities == 0x18;
    });
  }));
  EXPECT_EQ(most_down(), 1);
  reconciler.stop();
}

// Stopping roced while a link trains after its PFC change returns at once: the port is left as
// written, and the clock need not move for the stop to end.
TEST_F(ReconcileRollout, AStopDoesNotWaitForALinkToTrain) {
  Reconciler reconciler(system_, make_config(DriftPolicy::Enforce, 1h), test_options());
  ASSERT_TRUE(start_on_the_clock(reconciler));
  ASSERT_NO_FATAL_FAILURE(reload_with_pfc_on_3_and_4(reconciler));
  // Until the first port has been flapped and trains.
  ASSERT_TRUE(run_until([&] {
    bool training = false;
    node_->inspect([&](roce_sim::Node& node) {
      for (const auto& netdev : kDefaultPorts) training = training || !node.find(netdev)->carrier();
    });
    return training;
  }));
  const auto stopped_at = time_.now();
  auto stopped = std::async(std::launch::async, [&] { reconciler.stop(); });
  const bool returned = stopped.wait_for(60s) == std::future_status::ready;
  if (!returned) run_until([&] { return stopped.wait_for(0s) == std::future_status::ready; });
  EXPECT_TRUE(returned) << "stop() waited for the clock";
  EXPECT_EQ(time_.now(), stopped_at);
}

// Links that stay down past carrier_timeout (15 s) after their change: each port keeps its slot
// until a check reads its carrier again, so the next one is not flapped meanwhile. Otherwise a
// fault that keeps links down after a flap would take the rails down one timeout after another.
class ReconcileRolloutSlowLinks : public ReconcileRollout {
 protected:
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.link_training_ms = 20000;
  }
};

TEST_F(ReconcileRolloutSlowLinks, APortStillDownAfterTheTimeoutHoldsTheOthers) {
  watch_carriers();
  const auto began = time_.now();
  Reconciler reconciler(system_, make_config(DriftPolicy::Enforce, 1h), test_options());
  // Ready once the first port is found without carrier 15 s after its change, the others queued
  // behind it: start-up does not wait for a link that may never come back.
  ASSERT_TRUE(start_on_the_clock(reconciler));
  EXPECT_LT(time_.now() - began, 20s);
  ASSERT_TRUE(run_until([&] {
    const auto ports = reconciler.snapshot();
    return ports.size() == kDefaultPorts.size() &&
           std::all_of(ports.begin(), ports.end(), [](const reconcile::PortSnapshot& port) {
             return port.condition == reconcile::PortCondition::InSync && port.last_apply;
           });
  }));
  EXPECT_EQ(most_down(), 1);
  // Each of the first three waited for the one before to train (20 s), the last for its own
  // timeout: 3 x 20 s + 15 s. Released at the timeouts it would be 4 x 15 s.
  EXPECT_GE(time_.now() - began, 75s);
  for (const auto& port : reconciler.snapshot()) {
    ASSERT_TRUE(port.last_apply != nullptr) << port.port.netdev;
    EXPECT_TRUE(port.last_apply->carrier_lost) << port.last_apply->carrier;
    EXPECT_EQ(port.last_apply->carrier, "no carrier 15000 ms after the change");
  }
  reconciler.stop();
}

}  // namespace
}  // namespace roced::test
