// SPDX-License-Identifier: Apache-2.0
// The health module beside the real reconciler on the in-process node: mlx5 retrains a port's
// link for every PFC change, roced's own included, so the link-down events of roced's applies
// must never read as a flapping link, while the link's own losses do.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "daemon/health/health_module.hpp"
#include "test/reconcile/reconcile_node.hpp"

namespace roced::health {
namespace {

using test::DriftPolicy;

class HealthBesideReconciler : public test::ReconcileNode {
 protected:
  // The reconciler, the watchdog's statistics and the health task over the node, started and
  // checked once.
  struct Running {
    explicit Running(HealthBesideReconciler& test)
        : reconciler(test.system_, test.make_config(DriftPolicy::Enforce, std::chrono::hours(1)),
                     test.test_options()),
          stats(test.system_, test.time_),
          health(test.system_, reconciler, stats, HealthSettings{}, test.time_) {
      reconciler.start();
      health.check();
    }
    ~Running() { reconciler.stop(); }
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;
    reconcile::Reconciler reconciler;
    sampling::StatsPoller stats;
    HealthModule health;
  };

  std::vector<std::string> flapping(const HealthModule& health) {
    std::vector<std::string> ports;
    for (const auto& found : health.findings()) {
      if (found.id == kLinkFlapping.id) ports.push_back(found.subject);
    }
    return ports;
  }

  // The n-th of a run of reloads, each a PFC change on every port (a retrain roced made): the
  // lossless priorities widened on even ones, back on odd ones; true once lan3 has the mask and
  // the node is in sync.
  bool reload_changing_pfc(Running& running, int n) {
    const std::string lossless = test::kConfigText;
    std::string widened = lossless;
    widened.replace(widened.find("priorities: [3]"), 15, "priorities: [3, 4]");
    const bool wide = n % 2 == 0;
    const auto path = dir_ / "roced.yaml";
    test::write_file(path, wide ? widened : lossless);
    if (!running.reconciler.reload(path.string()).ok) return false;
    const uint8_t mask = wide ? 0x18 : 0x08;
    return run_until(
        [&] { return pfc_mask("lan3") == mask && node_in_sync(running.reconciler.config()); });
  }

  // Three such reloads, a check right before each and one right after it (`after_apply` runs in
  // between), then one more: no port is flapping.
  void expect_no_flapping_over_three_reloads(const std::function<void()>& after_apply) {
    Running running(*this);
    for (int i = 0; i < 3; ++i) {
      time_.advance(HealthSettings{}.interval);
      running.health.check();  // a fresh reading, before the reload's retrain
      EXPECT_TRUE(reload_changing_pfc(running, i));
      after_apply();
      running.health.check();  // the same reading (young enough), the apply's count already moved
    }
    time_.advance(HealthSettings{}.interval);
    running.health.check();
    EXPECT_TRUE(flapping(running.health).empty())
        << testing::PrintToString(running.health.findings());
  }
};

TEST_F(HealthBesideReconciler, RocedsOwnPfcChangesAreNoFlapsButTheLinksOwnLossesAre) {
  Running running(*this);
  HealthModule& health = running.health;
  // Three reloads: three retrains roced made.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(reload_changing_pfc(running, i));
    time_.advance(HealthSettings{}.interval);  // one step: the readings need only a new time
    health.check();
  }
  EXPECT_TRUE(flapping(health).empty()) << testing::PrintToString(health.findings());
  telemetry::ExpositionWriter out;
  health.collect(out);
  const std::string text = out.take();
  EXPECT_NE(text.find("roce_link_down_events_total{netdev=\"lan3\"} 4"), std::string::npos)
      << text;  // the first configuration's retrain, then the three reloads'

  // The cable: three losses of the link within ten minutes, none of them roced's.
  for (int i = 0; i < 3; ++i) {
    node_->play(roce_sim::parse_scenario_yaml(
        "name: t\nevents:\n  - {at: 1s, kind: link_flap, port: lan3, down_for: 2s}\n", "t.yaml"));
    time_.advance(HealthSettings{}.interval);  // one step: the readings need only a new time
    health.check();
  }
  EXPECT_EQ(flapping(health), std::vector<std::string>{"lan3"})
      << testing::PrintToString(health.findings());
}

// The health task's counters may be a reading older than the port's state: an apply that ends
// between that reading and the state's read moves the counters only by the next reading, when
// the apply count no longer changes. Still roced's own.
TEST_F(HealthBesideReconciler, AnApplyTheCountersSawOnlyAReadingLaterIsStillOwn) {
  expect_no_flapping_over_three_reloads([] {});
}

// The same, with the wall clock stepped forward after each apply (an NTP correction): when an
// apply ended and when the device read the counters are both monotonic times, so no step of the
// wall clock makes roced's own retrains the link's.
TEST_F(HealthBesideReconciler, AWallClockStepAfterAnApplyLeavesItsRetrainOwn) {
  expect_no_flapping_over_three_reloads([this] { time_.step_wall(std::chrono::hours(1)); });
}

}  // namespace
}  // namespace roced::health
