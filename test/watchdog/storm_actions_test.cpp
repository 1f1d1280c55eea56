// SPDX-License-Identifier: Apache-2.0
// What the storm watchdog does about storms, as the daemon runs it, on the simulated node and its
// clock: each action held through the reconciler and undone on restoration, without the
// reconciler ever calling it drift; verification that escalates when the NIC ignores the action;
// the per-port action budget that holds a port in its safe state; and no detection across a
// driver reload or a counter wrap.
#include <algorithm>

#include "dcb/client.hpp"
#include "ethtool/ethtool.hpp"
#include "storm_node.hpp"

namespace roced::watchdog::test {
namespace {

constexpr const char* kFastWatchdog = "{enabled: true, poll_interval: 10ms, detection_time: 50ms, ";

class StormActions : public StormNode {
 protected:
  uint8_t pfc_mask(const std::string& netdev) {
    auto state = dcb::DcbClient(system_).get(netdev);
    EXPECT_TRUE(state.ok() && state->pfc) << netdev;
    return state.ok() && state->pfc ? state->pfc->enabled_mask : uint8_t{0xff};
  }
  uint16_t stall_timeout(const std::string& netdev) {
    auto value = EthtoolClient(system_).pfc_prevention_timeout(netdev);
    EXPECT_TRUE(value.ok()) << netdev;
    return value.ok() ? *value : uint16_t{0xfffe};
  }
  uint64_t counter(const std::string& netdev, const std::string& name) {
    auto stats = EthtoolClient(system_).stats(netdev);
    EXPECT_TRUE(stats.ok()) << netdev;
    if (!stats.ok()) return 0;
    for (const auto& c : *stats) {
      if (c.name == name) return c.value;
    }
    ADD_FAILURE() << netdev << " has no " << name;
    return 0;
  }
  // The kinds of the notices about (netdev, direction), in order.
  std::vector<Kind> kinds(const std::string& netdev, Direction direction) const {
    std::vector<Kind> out;
    for (const auto& n : notices()) {
      if (n.netdev == netdev && n.direction == direction) out.push_back(n.kind);
    }
    return out;
  }
  bool seen(const std::string& netdev, Kind kind) const {
    const auto all = notices();
    return std::any_of(all.begin(), all.end(),
                       [&](const StormNotice& n) { return n.netdev == netdev && n.kind == kind; });
  }
  const watchdog::StormStats* stats_of(const std::vector<watchdog::StormStats>& all,
                                       const std::string& netdev, Direction direction) {
    for (const auto& s : all) {
      if (s.netdev == netdev && s.priority == 3 && s.direction == direction) return &s;
    }
    return nullptr;
  }
};

// ---- disable-pfc, both directions ----

class DisablePfc : public StormActions {
  std::string scenario() const override {
    return "name: disable-pfc\n"
           "traffic:\n"
           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
           "  - {port: lan3, priority: 3, direction: rx, rate: 100G}\n"
           "  - {port: lan4, priority: 3, direction: rx, rate: 100G}\n"
           "  - {port: lan4, priority: 3, direction: tx, rate: 50G}\n"
           "events:\n"
           "  - {at: 1s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 2s}\n"
           "  - {at: 1s, kind: pfc_storm, port: lan4, priority: 3, direction: tx, duration: 2s}\n";
  }
};

TEST_F(DisablePfc, ClearsThePrioritysPfcUntilRestorationAndTheReconcilerLeavesIt) {
  ASSERT_NO_FATAL_FAILURE(start(
      storm_config(std::string(kFastWatchdog) + "restoration_time: 300ms, action: disable-pfc}")));
  const auto writes_before = roced::test::read_writes(dir_);
  ASSERT_TRUE(run_until([&] { return seen("lan3", Kind::Acted) && seen("lan4", Kind::Acted); }))
      << all_notices();

  // Held: PFC off on priority 3 of the stormed ports only, and the reconciler plans with it.
  EXPECT_EQ(pfc_mask("lan3"), 0);
  EXPECT_EQ(pfc_mask("lan4"), 0);
  EXPECT_EQ(pfc_mask("lan2"), 1u << 3);
  EXPECT_EQ(pfc_mask("lan5"), 1u << 3);
  const plan::Plan plan = reconciler_->current_plan();
  for (const auto& port : plan.ports) {
    EXPECT_TRUE(port.in_sync()) << port.port.netdev;
    const bool held = port.port.netdev == "lan3" || port.port.netdev == "lan4";
    const bool warned =
        std::any_of(port.findings.begin(), port.findings.end(), [](const finding::Finding& f) {
          return f.id == "pfc_held_by_watchdog" &&
                 f.text == "held by the storm watchdog until the storm ends: PFC off on priority 3";
        });
    EXPECT_EQ(warned, held) << port.port.netdev;
  }
  // lan3 ignores the switch's pauses now: it sends again.
  const uint64_t sent = counter("lan3", "tx_prio3_packets");
  run_for(50ms);
  EXPECT_GT(counter("lan3", "tx_prio3_packets"), sent);

  // Restoration puts PFC back.
  ASSERT_TRUE(run_until([&] {
    return seen("lan3", Kind::Restored) && seen("lan4", Kind::Restored) &&
           pfc_mask("lan3") == 1u << 3 && pfc_mask("lan4") == 1u << 3;
  })) << all_notices();
  const auto writes_after = roced::test::read_writes(dir_);

  for (const auto& [netdev, direction] :
       {std::pair{"lan3", Direction::rx}, std::pair{"lan4", Direction::tx}}) {
    EXPECT_EQ(kinds(netdev, direction),
              (std::vector{Kind::Detected, Kind::Acted, Kind::Remediated, Kind::Restored}))
        << all_notices();
    // One PFC write to hold, one to release: nothing else.
    EXPECT_EQ(writes_after.at(netdev) - writes_before.at(netdev), 2u) << netdev;
  }
  EXPECT_EQ(writes_after.at("lan2"), writes_before.at("lan2"));
  EXPECT_EQ(writes_after.at("lan5"), writes_before.at("lan5"));
  // The watchdog learns that the release was applied at its next poll.
  EXPECT_TRUE(run_until([&] {
    const auto now = watchdog_->stats().storms;
    const auto* held = stats_of(now, "lan3", Direction::rx);
    return held != nullptr && !held->remediated;
  }));
  for (const auto& event : port_events()) {
    EXPECT_NE(event.kind, reconcile::PortEvent::Kind::Drifted) << event.message;
    EXPECT_NE(event.kind, reconcile::PortEvent::Kind::ApplyFailed) << event.message;
  }
  const auto stats = watchdog_->stats().storms;
  const auto* lan3 = stats_of(stats, "lan3", Direction::rx);
  ASSERT_NE(lan3, nullptr);
  EXPECT_EQ(lan3->detections, 1u);
  EXPECT_EQ(lan3->restorations, 1u);
  EXPECT_EQ((lan3->actions.at({"disable-pfc", "ok"})), 1u);
  EXPECT_EQ((lan3->actions.at({"disable-pfc", "failed"})), 0u);
  EXPECT_FALSE(lan3->active);
  EXPECT_FALSE(lan3->remediated);
  for (const auto& [reason, count] : lan3->escalations) EXPECT_EQ(count, 0u) << reason;
}

// disable-pfc on links that train as mlx5's do: clearing the PFC bit flaps the link
// (mlx5_toggle_port_link) and a 400G link is down for seconds. No pause can arrive meanwhile, so
// that time is no quiet time: restoration waits for the carrier and then for restoration_time.
class DisablePfcOnLinksThatTrain : public StormActions {
  bool instant_links() const override { return false; }
  std::string scenario() const override {
    return "name: disable-pfc-training\n"
           "traffic:\n"
           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
           "  - {port: lan3, priority: 3, direction: rx, rate: 100G}\n"
           "events:\n"
           // After the start, which flaps the four ports one after another (4 x 3 s).
           "  - {at: 15s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 1s}\n";
  }
};

TEST_F(DisablePfcOnLinksThatTrain, RestorationWaitsForTheCarrier) {
  ASSERT_NO_FATAL_FAILURE(start(
      storm_config(std::string(kFastWatchdog) + "restoration_time: 300ms, action: disable-pfc}")));
  ASSERT_TRUE(run_until([&] { return seen("lan3", Kind::Acted); })) << all_notices();
  const auto acted = time_.now();
  ASSERT_TRUE(run_until([&] { return seen("lan3", Kind::Restored); })) << all_notices();
  const auto restored = time_.now();
  // 3 s of link training after the action's flap, then 300 ms without a pause frame (less the
  // 10 ms steps and polls that place the notice): not 300 ms after the action.
  EXPECT_GE(restored - acted, 3250ms) << all_notices();
  EXPECT_LT(restored - acted, 3600ms) << all_notices();
  EXPECT_EQ(kinds("lan3", Direction::rx),
            (std::vector{Kind::Detected, Kind::Acted, Kind::Remediated, Kind::Restored}))
      << all_notices();
  EXPECT_TRUE(run_until([&] { return pfc_mask("lan3") == 1u << 3; }));
}

// disable-pfc while the switch also pauses priority 4, which has no PFC here: the port's MAC
// counts both priorities' pause frames, so only priority 3's own count (dcbnl getpfc reports it
// with PFC off) can say when its storm ended.
class DisablePfcBesideAnotherPriority : public StormActions {
 protected:
  std::string scenario() const override {
    return "name: disable-pfc-beside-priority-4\n"
           "traffic:\n"
           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
           "  - {port: lan3, priority: 3, direction: rx, rate: 100G}\n"
           "  - {port: lan3, priority: 4, direction: tx, rate: 50G}\n"
           "events:\n"
           "  - {at: 1s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 1s}\n"
           "  - {at: 1s, kind: pfc_storm, port: lan3, priority: 4, direction: rx, duration: 3s}\n";
  }
  void start_watchdog() {
    ASSERT_NO_FATAL_FAILURE(start(storm_config(std::string(kFastWatchdog) +
                                               "restoration_time: 300ms, action: disable-pfc}")));
  }
};

TEST_F(DisablePfcBesideAnotherPriority, RestorationFollowsThePrioritysOwnPauseFrames) {
  ASSERT_NO_FATAL_FAILURE(start_watchdog());
  ASSERT_TRUE(run_until([&] { return seen("lan3", Kind::Restored); })) << all_notices();
  const auto restored = notices(Kind::Restored);
  ASSERT_EQ(restored.size(), 1u) << all_notices();
  // 300 ms after priority 3's storm ended (within a poll and the 5 ms steps), not after 4's.
  const auto quiet = restored[0].at - sim_time(2.0);
  EXPECT_GE(quiet, 300ms) << all_notices();
  EXPECT_LT(quiet, 320ms) << all_notices();
  // The storm's length as the log says it: onset to its last pause frame.
  EXPECT_GE(restored[0].duration, 990ms) << all_notices();
  EXPECT_LE(restored[0].duration, 1010ms) << all_notices();
  EXPECT_EQ(kinds("lan3", Direction::rx),
            (std::vector{Kind::Detected, Kind::Acted, Kind::Remediated, Kind::Restored}))
      << all_notices();
  EXPECT_TRUE(run_until([&] { return pfc_mask("lan3") == 1u << 3; }));
}

// A MAC that counts a priority's pause frames only while it acts on them leaves nothing to tell
// priority 3's storm from 4's once PFC is off: restoration then comes on time alone, and a storm
// still going is detected again with a doubled restoration time. Never held for another
// priority's storm.
class DisablePfcBesideAnotherPriorityUncounted : public DisablePfcBesideAnotherPriority {
 protected:
  std::string node() const override {
    return default_node_with("capabilities: {pause_counted_without_pfc: false}");
  }
};

TEST_F(DisablePfcBesideAnotherPriorityUncounted, TheHoldNeverWaitsForTheOtherPriority) {
  ASSERT_NE(node().find("pause_counted_without_pfc: false"), std::string::npos);
  ASSERT_NO_FATAL_FAILURE(start_watchdog());
  run_to(3.5);  // priority 4 is still stormed
  const auto restored = notices(Kind::Restored);
  ASSERT_FALSE(restored.empty()) << all_notices();
  // Detected again while priority 3's storm went on, restored once it ended.
  EXPECT_EQ(notices().back().kind, Kind::Restored) << all_notices();
  EXPECT_LT(restored.back().at, sim_time(2.0) + 4 * 300ms) << all_notices();
  EXPECT_EQ(count(Kind::Detected), restored.size()) << all_notices();
  EXPECT_EQ(pfc_mask("lan3"), 1u << 3);
}

// A reload's new watchdog settings mid-storm: the storm being handled keeps its action, its
// hold and its restoration time; the next storm gets the new ones (here alert only, a longer
// restoration time).
class ReconfiguredMidStorm : public StormActions {
  std::string scenario() const override {
    return "name: reconfigured-mid-storm\n"
           "traffic:\n"
           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
           "events:\n"
           "  - {at: 1s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 1s}\n"
           "  - {at: 4s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 1s}\n";
  }
};

TEST_F(ReconfiguredMidStorm, TheStormBeingHandledKeepsItsActionAndTheNextGetsTheNewOnes) {
  ASSERT_NO_FATAL_FAILURE(start(
      storm_config(std::string(kFastWatchdog) + "restoration_time: 300ms, action: disable-pfc}")));
  ASSERT_TRUE(run_until([&] { return seen("lan3", Kind::Acted); })) << all_notices();
  EXPECT_EQ(pfc_mask("lan3"), 0);

  auto loaded = config::load_string(
      storm_config(std::string(kFastWatchdog) + "restoration_time: 600ms, action: alert}"),
      "reloaded.yaml");
  ASSERT_TRUE(loaded.ok());
  watchdog_->reconfigure(loaded.config->watchdog);
  EXPECT_EQ(watchdog_->settings().restoration_time, 600ms);

  // The first storm: still held, released 300 ms after it ended.
  run_to(1.5);
  EXPECT_EQ(pfc_mask("lan3"), 0);
  ASSERT_TRUE(run_until([&] { return seen("lan3", Kind::Restored); })) << all_notices();
  const auto first = notices(Kind::Restored).front();
  EXPECT_GE(first.at - sim_time(2.0), 300ms) << all_notices();
  EXPECT_LT(first.at - sim_time(2.0), 320ms) << all_notices();
  EXPECT_TRUE(run_until([&] { return pfc_mask("lan3") == 1u << 3; }));

  // The second: alerted only (PFC stays on), restored 600 ms after it ended.
  run_to(5.8);
  EXPECT_EQ(count(Kind::Detected), 2u) << all_notices();
  EXPECT_EQ(count(Kind::Acted), 1u) << all_notices();
  EXPECT_EQ(pfc_mask("lan3"), 1u << 3);
  ASSERT_TRUE(run_until([&] { return count(Kind::Restored) == 2; })) << all_notices();
  const auto second = notices(Kind::Restored).back();
  EXPECT_GE(second.at - sim_time(5.0), 600ms) << all_notices();
  EXPECT_LT(second.at - sim_time(5.0), 620ms) << all_notices();
}

// A reload that switches the watchdog off mid-storm releases the hold at once (PFC back on,
// the storm not yet over) and stops the polls; switched on again, it starts from fresh
// baselines and detects the next storm with the new settings.
TEST_F(ReconfiguredMidStorm, SwitchedOffItReleasesItsHoldAndStopsPollingOnAgainItDetects) {
  const std::string settings = "restoration_time: 300ms, action: disable-pfc}";
  ASSERT_NO_FATAL_FAILURE(start(storm_config(std::string(kFastWatchdog) + settings)));
  ASSERT_TRUE(run_until([&] { return seen("lan3", Kind::Acted); })) << all_notices();
  EXPECT_EQ(pfc_mask("lan3"), 0);
  // Lossy meanwhile: held, not in sync, wherever the port's state is shown.
  const auto condition = [&](const std::string& netdev) {
    for (const auto& port : reconciler_->snapshot()) {
      if (port.port.netdev == netdev) return port.condition;
    }
    return reconcile::PortCondition::Vanished;
  };
  EXPECT_EQ(condition("lan3"), reconcile::PortCondition::Held);
  EXPECT_NE(reconciler_->status_line().find("1 held (lan3)"), std::string::npos)
      << reconciler_->status_line();

  auto off = config::load_string(storm_config("{enabled: false}"), "off.yaml");
  ASSERT_TRUE(off.ok());
  watchdog_->reconfigure(off.config->watchdog);
  const auto released = [&] {
    const auto storms = watchdog_->stats().storms;
    return pfc_mask("lan3") == 1u << 3 &&
           std::none_of(storms.begin(), storms.end(), [](const watchdog::StormStats& storm) {
             return storm.active || storm.remediated || storm.held;
           });
  };
  ASSERT_TRUE(run_until(released)) << all_notices();
  EXPECT_LT(time_.now(), sim_time(1.5)) << "released long after the reload";
  EXPECT_FALSE(watchdog_->enabled());
  const uint64_t polls = watchdog_->stats().polls;
  run_to(3.5);
  EXPECT_EQ(watchdog_->stats().polls, polls) << "polled while switched off";
  EXPECT_TRUE(watchdog_->healthy(time_.now())) << "switched off is not stuck";
  EXPECT_TRUE(run_until([&] { return condition("lan3") == reconcile::PortCondition::InSync; }));
  EXPECT_EQ(pfc_mask("lan3"), 1u << 3);
  EXPECT_EQ(count(Kind::Restored), 0u) << all_notices();

  auto on = config::load_string(
      storm_config(std::string(kFastWatchdog) + "restoration_time: 300ms, action: alert}"),
      "on.yaml");
  ASSERT_TRUE(on.ok());
  watchdog_->reconfigure(on.config->watchdog);
  ASSERT_TRUE(run_until([&] { return count(Kind::Detected) == 2; })) << all_notices();
  const auto second = notices(Kind::Detected).back();
  EXPECT_GE(second.at - sim_time(4.0), 50ms) << all_notices();
  EXPECT_LT(second.at - sim_time(4.0), 80ms) << all_notices();
  EXPECT_EQ(count(Kind::Acted), 1u) << all_notices();  // alert only, this time
  EXPECT_EQ(pfc_mask("lan3"), 1u << 3);
}

// ---- stall-prevention, TX ----

class StallPrevention : public StormActions {
  std::string scenario() const override {
    return "name: stall-prevention\n"
           "traffic:\n"
           "  - {port: lan4, priority: 3, direction: rx, rate: 100G}\n"
           "  - {port: lan4, priority: 3, direction: tx, rate: 50G}\n"
           "events:\n"
           "  - {at: 1s, kind: pfc_storm, port: lan4, priority: 3, direction: tx, duration: 2s}\n";
  }
};

TEST_F(StallPrevention, TightensTheTimeoutTheNicGivesUpAndTheConfiguredOneComesBack) {
  // Configured: stall prevention 1 s; the action sets 80 ms.
  ASSERT_NO_FATAL_FAILURE(start(
      storm_config(std::string(kFastWatchdog) +
                       "restoration_time: 300ms, action: {rx: disable-pfc, tx: stall-prevention}, "
                       "stall_prevention_timeout: 80ms}",
                   "1000")));
  ASSERT_EQ(stall_timeout("lan4"), 1000);
  const uint64_t errors_before = counter("lan4", "tx_pause_storm_error_events");
  ASSERT_TRUE(run_until([&] { return seen("lan4", Kind::Acted); })) << all_notices();
  EXPECT_EQ(stall_timeout("lan4"), 80);
  EXPECT_EQ(pfc_mask("lan4"), 1u << 3);  // PFC itself untouched
  ASSERT_TRUE(run_until([&] { return seen("lan4", Kind::Restored); })) << all_notices();
  ASSERT_TRUE(run_until([&] { return stall_timeout("lan4") == 1000; }));
  EXPECT_EQ(kinds("lan4", Direction::tx),
            (std::vector{Kind::Detected, Kind::Acted, Kind::Remediated, Kind::Restored}))
      << all_notices();
  // The NIC's stall prevention fired at the tightened timeout (the configured 1 s never came).
  EXPECT_EQ(counter("lan4", "tx_pause_storm_error_events"), errors_before + 1);
  const auto stats = watchdog_->stats().storms;
  const auto* lan4 = stats_of(stats, "lan4", Direction::tx);
  ASSERT_NE(lan4, nullptr);
  EXPECT_EQ((lan4->actions.at({"stall-prevention", "ok"})), 1u);
}

// ---- the NIC's own stall prevention saw it first ----

TEST_F(StallPrevention, ATxStormTheNicEndedIsDetectedByTheNicAndNeedsNoAction) {
  // mlx5 auto = 100 ms, shorter than the 200 ms detection time: the duration rule never sees it.
  ASSERT_NO_FATAL_FAILURE(
      start(storm_config("{enabled: true, poll_interval: 20ms, detection_time: 200ms, "
                         "restoration_time: 300ms, action: stall-prevention}",
                         "auto")));
  ASSERT_TRUE(run_until([&] { return seen("lan4", Kind::Restored); })) << all_notices();
  EXPECT_EQ(kinds("lan4", Direction::tx), (std::vector{Kind::Detected, Kind::Restored}))
      << all_notices();
  const auto detected = notices(Kind::Detected);
  ASSERT_EQ(detected.size(), 1u);
  EXPECT_EQ(detected[0].action, "none");
  EXPECT_NE(detected[0].message.find("by the NIC's stall prevention"), std::string::npos)
      << detected[0].message;
  // The NIC gave up after 100 ms of pausing: detected then, not 200 ms in.
  EXPECT_LT(detected[0].at - sim_time(1.0), 200ms);
  EXPECT_EQ(stall_timeout("lan4"), 100);  // never touched: mlx5 reads auto back as 100 ms
}

// ---- the NIC ignores the action: escalation ----

class IgnoredRemediation : public StormActions {
  std::string scenario() const override {
    return "name: ignored\n"
           "traffic:\n"
           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
           "  - {port: lan4, priority: 3, direction: rx, rate: 100G}\n"
           "events:\n"
           "  - {at: 1s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 1s,\n"
           "     ignores_remediation: true}\n"
           "  - {at: 1s, kind: pfc_storm, port: lan4, priority: 3, direction: tx, duration: 1s,\n"
           "     ignores_remediation: true}\n";
  }
};

// TX: the NIC still pausing under tightened stall prevention is a failure the counters show.
// RX: PFC off does not stop the switch's frames, and a NIC that still obeys them sends nothing,
// as an idle one does: the counters cannot tell, so it is said (unverified), never escalated as
// a failure nor reported handled.
TEST_F(IgnoredRemediation, IsEscalatedWhereTheCountersShowItAndNeverReportedHandled) {
  ASSERT_NO_FATAL_FAILURE(start(
      storm_config(std::string(kFastWatchdog) +
                       "restoration_time: 300ms, action: {rx: disable-pfc, tx: stall-prevention}, "
                       "verify_polls: 3}",
                   "off")));
  ASSERT_TRUE(run_until([&] {
    return seen("lan3", Kind::Restored) && seen("lan4", Kind::Restored) &&
           pfc_mask("lan3") == 1u << 3 && stall_timeout("lan4") == 0;
  })) << all_notices();
  EXPECT_EQ(kinds("lan3", Direction::rx),
            (std::vector{Kind::Detected, Kind::Acted, Kind::Unverified, Kind::Restored}))
      << all_notices();
  EXPECT_EQ(kinds("lan4", Direction::tx),
            (std::vector{Kind::Detected, Kind::Acted, Kind::Escalated, Kind::Restored}))
      << all_notices();
  const auto escalated = notices(Kind::Escalated);
  ASSERT_EQ(escalated.size(), 1u);
  EXPECT_EQ(escalated[0].reason, "remediation-failed") << escalated[0].message;
  EXPECT_TRUE(escalated[0].critical);
  EXPECT_EQ(count(Kind::Remediated), 0u);
  const auto stats = watchdog_->stats().storms;
  EXPECT_EQ(stats_of(stats, "lan3", Direction::rx)->escalations.at("remediation-failed"), 0u);
  EXPECT_EQ(stats_of(stats, "lan4", Direction::tx)->escalations.at("remediation-failed"), 1u);
}

// ---- a storm on a port with no traffic ----

class IdlePort : public StormActions {
  std::string scenario() const override {
    return "name: idle\n"
           "events:\n"
           "  - {at: 1s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 1s}\n";
  }
};

// The switch pauses a port that has nothing to send: disable-pfc is applied and read back, but
// nothing the port sends can show it worked. Said at warning; no critical escalation that would
// page for an idle node; the hold goes when the switch stops.
TEST_F(IdlePort, AnRxStormIsHeldUnverifiedAndNeverEscalated) {
  ASSERT_NO_FATAL_FAILURE(start(
      storm_config(std::string(kFastWatchdog) + "restoration_time: 300ms, action: disable-pfc}")));
  ASSERT_TRUE(run_until([&] {
    return seen("lan3", Kind::Restored) && pfc_mask("lan3") == 1u << 3;
  })) << all_notices();
  EXPECT_EQ(kinds("lan3", Direction::rx),
            (std::vector{Kind::Detected, Kind::Acted, Kind::Unverified, Kind::Restored}))
      << all_notices();
  const auto unverified = notices(Kind::Unverified);
  ASSERT_EQ(unverified.size(), 1u);
  EXPECT_NE(unverified[0].message.find("cannot be told"), std::string::npos)
      << unverified[0].message;
  EXPECT_EQ(count(Kind::Escalated), 0u) << all_notices();
}

// ---- the action budget ----

class RecurringStorms : public StormActions {
  std::string scenario() const override {
    return "name: recurring\n"
           "traffic:\n"
           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
           "events:\n"
           "  - {at: 1s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: "
           "400ms}\n"
           "  - {at: 2.5s, kind: pfc_storm, port: lan3, priority: 3, direction: rx,\n"
           "     duration: 400ms}\n"
           "  - {at: 4s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: "
           "400ms}\n";
  }
};

TEST_F(RecurringStorms, TheActionThatSpendsTheBudgetHoldsThePortInItsSafeState) {
  ASSERT_NO_FATAL_FAILURE(start(
      storm_config(std::string(kFastWatchdog) +
                   "action: disable-pfc, max_actions_per_hour: 2, restoration_time: 200ms}")));
  // The first storm is handled and undone; the second spends the budget: held past its end.
  ASSERT_TRUE(run_until([&] { return seen("lan3", Kind::Escalated); })) << all_notices();
  run_to(5.0);  // the third storm has come and gone
  const auto all = notices();
  EXPECT_EQ(
      kinds("lan3", Direction::rx),
      (std::vector{Kind::Detected, Kind::Acted, Kind::Remediated, Kind::Restored, Kind::Detected,
                   Kind::Acted, Kind::Remediated, Kind::Restored, Kind::Escalated}))
      << all_notices();
  const auto escalated = notices(Kind::Escalated);
  ASSERT_EQ(escalated.size(), 1u);
  EXPECT_EQ(escalated[0].reason, "budget-spent");
  EXPECT_TRUE(escalated[0].critical);
  // Held: PFC stays off on priority 3 through the third storm, which is then not even seen
  // (mlx5 lists no pause counters without PFC, and the NIC ignores the pauses).
  EXPECT_EQ(pfc_mask("lan3"), 0);
  const auto stats = watchdog_->stats().storms;
  const auto* lan3 = stats_of(stats, "lan3", Direction::rx);
  ASSERT_NE(lan3, nullptr);
  EXPECT_TRUE(lan3->held);
  EXPECT_TRUE(lan3->remediated);
  EXPECT_EQ(lan3->detections, 2u);
  EXPECT_EQ((lan3->actions.at({"disable-pfc", "ok"})), 2u);
  EXPECT_EQ(lan3->escalations.at("budget-spent"), 1u);
}

// ---- no detection across a driver reload ----

class ReloadMidStorm : public StormActions {
  std::string scenario() const override {
    return "name: reload-mid-storm\n"
           "traffic:\n"
           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
           "events:\n"
           "  - {at: 1s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 2s}\n"
           "  - {at: 1.15s, kind: driver_reload, port: lan3, down_for: 100ms}\n";
  }
};

TEST_F(ReloadMidStorm, TheStormsTimeBeforeTheReloadDoesNotCount) {
  // 150 ms of storm before the reload, less than the 200 ms detection time. After it the port is
  // back at firmware defaults (PFC off), the reconciler configures it again, and only then does
  // the storm pause it once more: detection 200 ms after that, never sooner.
  ASSERT_NO_FATAL_FAILURE(
      start(storm_config("{enabled: true, poll_interval: 10ms, detection_time: 200ms, "
                         "restoration_time: 300ms, action: alert}")));
  ASSERT_TRUE(run_until([&] { return seen("lan3", Kind::Restored); })) << all_notices();
  const auto detected = notices(Kind::Detected);
  ASSERT_EQ(detected.size(), 1u) << all_notices();
  EXPECT_GE(detected[0].at, sim_time(1.25) + 200ms);
  EXPECT_GE(detected[0].latency, 200ms);
  EXPECT_LE(detected[0].at - detected[0].latency, sim_time(3.0));
  EXPECT_GE(detected[0].at - detected[0].latency, sim_time(1.25));
}

// ---- no detection across a counter wrap ----

class WrappingCounters : public StormActions {
  std::string node() const override {
    // lan3's 64-bit ethtool counters start 1.5 million short of 2^64: the packet counters wrap
    // within half a second, rx_prio3_pause_duration (us) two seconds in, under the congestion.
    return "nics:\n"
           "  - pci: 0000:17:00.0\n"
           "    ports:\n"
           "      - {netdev: lan2, rdma_device: mlx5_0, addresses: [192.168.2.10/24]}\n"
           "  - pci: 0000:3d:00.0\n"
           "    ports:\n"
           "      - {netdev: lan3, rdma_device: mlx5_1, addresses: [192.168.3.10/24],\n"
           "         counters_start: 18446744073708051616}\n";
  }
  std::string scenario() const override {
    return "name: wrap\n"
           "traffic:\n"
           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
           "  - {port: lan3, priority: 3, direction: rx, rate: 100G}\n"
           "events:\n"
           "  - {at: 0.5s, kind: congestion, port: lan3, priority: 3, duration: 2s,\n"
           "     pause_ratio: 0.95}\n"
           "  - {at: 3s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 1s}\n";
  }
};

TEST_F(WrappingCounters, AWrapIsNoStormAndTheNextRealStormIsStillDetected) {
  ASSERT_NO_FATAL_FAILURE(
      start("ports: {netdevs: [lan2, lan3]}\n"
            "profile: {pfc: {priorities: [3]}, stall_prevention: auto}\n"
            "watchdog: {enabled: true, poll_interval: 10ms, detection_time: 50ms, "
            "restoration_time: 300ms, action: alert}\n"));
  const uint64_t before = counter("lan3", "rx_prio3_pause_duration");
  EXPECT_GT(before, uint64_t{18446744073708000000u});
  ASSERT_TRUE(run_until([&] { return seen("lan3", Kind::Detected); })) << all_notices();
  // The counter did wrap meanwhile, and nothing was detected before the real storm at 3 s.
  EXPECT_LT(counter("lan3", "rx_prio3_pause_duration"), before);
  const auto detected = notices(Kind::Detected);
  ASSERT_EQ(detected.size(), 1u) << all_notices();
  EXPECT_GE(detected[0].at, sim_time(3.0) + 50ms);
  EXPECT_LT(detected[0].at, sim_time(3.0) + 100ms);
}

}  // namespace
}  // namespace roced::watchdog::test

namespace roced::watchdog::test {
namespace {

// mlx5's firmware DCBX agent (a profile that leaves DCBX to the firmware, willing) takes the
// switch's PFC without any notification (mlx5 sends none, and no dcbnl request was made). The
// per-priority pause counters follow the PFC mask (en_stats.c
// mlx5e_grp_per_prio_pfc_fill_strings), so the watchdog's next read shows another string set, and
// the reconciler looks then rather than at its drift check ten minutes on.
class SilentFirmwareChange : public StormNode {
  std::string scenario() const override {
    return "name: silent\n"
           "events:\n"
           "  - {at: 3s, kind: dcbx_peer, port: lan3, pfc: [3, 4]}\n";
  }
};

TEST_F(SilentFirmwareChange, TheCounterNamesTellTheReconcilerAtOnce) {
  std::string config = storm_config("{enabled: true, poll_interval: 100ms, action: alert}");
  config.replace(config.find("dcbx: host"), std::string("dcbx: host").size(), "dcbx: firmware");
  ASSERT_NO_FATAL_FAILURE(start("daemon: {drift_check_interval: 10m}\n" + config));
  const auto drifts = [&] {
    size_t n = 0;
    for (const auto& event : port_events()) {
      n += event.netdev == "lan3" && event.kind == reconcile::PortEvent::Kind::Drifted;
    }
    return n;
  };
  run_to(2.9);
  const size_t before = drifts();
  // The change at 3 s: found at the port's next full reading (a quiet port is read fully every
  // kRestInterval, 2 s) and the reconciler's settling, not ten minutes later.
  ASSERT_TRUE(run_until([&] { return drifts() > before || time_.now() >= sim_time(8.0); }));
  EXPECT_GT(drifts(), before) << "no drift seen 5 s after a silent PFC change";
  EXPECT_LT(time_.now(),
            sim_time(3.0) + sampling::StatsPoller::kRestInterval + std::chrono::milliseconds(500));
}

}  // namespace
}  // namespace roced::watchdog::test
