// SPDX-License-Identifier: Apache-2.0
// Drift: a foreign `dcb pfc set`, a firmware DCBX agent's override and mlnx_qos, corrected under
// enforce and only reported under report; a failing port backs off without holding up the others.
#include "reconcile_node.hpp"

namespace roced::test {
namespace {

using reconcile::Reconciler;

class ReconcileDrift : public ReconcileNode {};

TEST_F(ReconcileDrift, ForeignDcbPfcSetIsCorrectedUnderEnforce) {
  // An hour between drift checks: only the DCB notification can bring the correction.
  const auto config = make_config(DriftPolicy::Enforce, 1h);
  EventLog log(time_);  // before the reconciler: its workers write to it until it stops
  Reconciler reconciler(system_, config, test_options());
  reconciler.on_event(log.listener());
  reconciler.start();
  for (const auto& port : reconciler.snapshot()) {
    EXPECT_EQ(port.condition, PortCondition::InSync) << port.port.netdev;
  }
  EXPECT_EQ(log.of("lan3", PortEvent::Kind::Corrected).size(), 1u) << log.describe();
  EXPECT_TRUE(log.of("lan3", PortEvent::Kind::Drifted).empty()) << log.describe();
  // The first configuration is an apply, not a drift nor a correction (the metrics' counters).
  const auto configured = port_of(reconciler, "lan3");
  ASSERT_TRUE(configured);
  EXPECT_EQ(configured->counters.applies_ok, 1u);
  EXPECT_TRUE(configured->counters.drifts.empty());
  EXPECT_TRUE(configured->counters.corrections.empty());
  log.clear();

  foreign_pfc("lan3", kPfcForeign);
  const auto foreign_at = time_.now();
  ASSERT_TRUE(run_until([&] {
    return !log.of("lan3", PortEvent::Kind::Corrected, "pfc.priorities").empty();
  })) << log.describe();
  // The burst of notifications settles first (event_settle, 50 ms), then one check corrects it.
  const auto corrected_at = log.of("lan3", PortEvent::Kind::Corrected).front().at;
  EXPECT_GE(corrected_at - foreign_at, test_options().event_settle);
  EXPECT_EQ(log.of("lan3", PortEvent::Kind::Drifted, "pfc.priorities").size(), 1u)
      << log.describe();
  EXPECT_EQ(pfc_mask("lan3"), kPfcWanted);
  // The correction's own notifications are re-checked and found in sync: no second round.
  ASSERT_TRUE(run_until([&] {
    const auto lan3 = port_of(reconciler, "lan3");
    return lan3 && lan3->condition == PortCondition::InSync && lan3->last_plan.in_sync() &&
           time_.now() - corrected_at > 1s;
  }));
  EXPECT_EQ(log.of("lan3", PortEvent::Kind::Corrected).size(), 1u) << log.describe();
  for (const char* other : {"lan2", "lan4", "lan5"}) {
    EXPECT_TRUE(log.of(other, PortEvent::Kind::Drifted).empty()) << log.describe();
  }
  EXPECT_TRUE(reconciler.healthy());
  EXPECT_EQ(reconciler.status_line(), "4 ports: 4 in sync");
  const auto corrected = port_of(reconciler, "lan3");
  ASSERT_TRUE(corrected);
  EXPECT_EQ(corrected->counters.applies_ok, 2u);
  EXPECT_EQ(corrected->counters.applies_failed, 0u);
  EXPECT_EQ(corrected->counters.drifts, (std::map<std::string, uint64_t>{{"pfc.priorities", 1}}));
  EXPECT_EQ(corrected->counters.corrections,
            (std::map<std::string, uint64_t>{{"pfc.priorities", 1}}));
  EXPECT_EQ(port_of(reconciler, "lan2")->counters.applies_ok, 1u);
}

TEST_F(ReconcileDrift, TheSameDriftStraightBackAfterItsCorrectionBacksOff) {
  const auto config = make_config(DriftPolicy::Enforce, 1h);
  EventLog log(time_);  // before the reconciler: its workers write to it until it stops
  Reconciler reconciler(system_, config, test_options());
  reconciler.on_event(log.listener());
  reconciler.start();
  log.clear();

  foreign_pfc("lan3", kPfcForeign);
  ASSERT_TRUE(run_until([&] { return log.of("lan3", PortEvent::Kind::Corrected).size() == 1; }))
      << log.describe();
  // Another agent puts it back at once: no rewrite loop, the next correction waits.
  foreign_pfc("lan3", kPfcForeign);
  const auto back_at = time_.now();
  ASSERT_TRUE(run_until([&] {
    const auto lan3 = port_of(reconciler, "lan3");
    return lan3 && lan3->next_retry.has_value();
  }));
  EXPECT_EQ(pfc_mask("lan3"), kPfcForeign);  // left alone during the backoff
  ASSERT_TRUE(run_until([&] { return log.of("lan3", PortEvent::Kind::Corrected).size() == 2; }))
      << log.describe();
  const auto corrections = log.of("lan3", PortEvent::Kind::Corrected);
  EXPECT_GE(corrections[1].at - back_at, test_options().first_retry);
  EXPECT_EQ(pfc_mask("lan3"), kPfcWanted);
}

TEST_F(ReconcileDrift, ForeignDcbPfcSetIsOnlyReportedOnceUnderReport) {
  const auto interval = 300ms;
  const auto config = make_config(DriftPolicy::Report, interval);
  apply_once(config);
  EventLog log(time_);  // before the reconciler: its workers write to it until it stops
  Reconciler reconciler(system_, config, test_options());
  reconciler.on_event(log.listener());
  reconciler.start();
  EXPECT_TRUE(log.events().empty()) << log.describe();

  const auto before = writes();
  foreign_pfc("lan3", kPfcForeign);
  const auto after_foreign = writes();
  EXPECT_EQ(after_foreign.at("lan3"), before.at("lan3") + 1);  // the tool's one IEEE_SET
  ASSERT_TRUE(run_until([&] {
    return !log.of("lan3", PortEvent::Kind::Drifted, "pfc.priorities").empty();
  })) << log.describe();
  const auto reported = time_.wall_now();

  // Let several drift checks pass: the same drift is not announced again, nothing is written.
  ASSERT_TRUE(run_until([&] { return all_checked_since(reconciler, reported + 4 * interval); }));
  EXPECT_EQ(writes(), after_foreign);
  EXPECT_EQ(log.of("lan3", PortEvent::Kind::Drifted).size(), 1u) << log.describe();
  // What the port has, then what the profile wants: not an arrow that reads as a change.
  EXPECT_EQ(log.of("lan3", PortEvent::Kind::Drifted).front().event.message,
            "drifted: pfc.priorities is 4, wanted 3 (reported, not corrected)");
  EXPECT_TRUE(log.of("lan3", PortEvent::Kind::Corrected).empty()) << log.describe();
  EXPECT_EQ(pfc_mask("lan3"), kPfcForeign);
  const auto lan3 = port_of(reconciler, "lan3");
  ASSERT_TRUE(lan3);
  EXPECT_EQ(lan3->condition, PortCondition::Drifted);
  EXPECT_FALSE(lan3->last_plan.changes.empty());
  // Reported once, counted once, never corrected.
  EXPECT_EQ(lan3->counters.drifts, (std::map<std::string, uint64_t>{{"pfc.priorities", 1}}));
  EXPECT_TRUE(lan3->counters.corrections.empty());
  EXPECT_EQ(lan3->counters.applies_ok, 0u);
  EXPECT_EQ(reconciler.status_line(), "4 ports: 3 in sync, 1 drifted (lan3)");

  // A different drift is news again.
  foreign_pfc("lan3", 1U << 5);
  ASSERT_TRUE(run_until([&] { return log.of("lan3", PortEvent::Kind::Drifted).size() == 2; }))
      << log.describe();
}

// A willing firmware DCBX agent takes the switch's PFC while lan3 is left in firmware mode.
class ReconcileFirmwareAgent : public ReconcileNode {
 protected:
  std::string scenario_text() const override {
    return "name: dcbx-peer\n"
           "events:\n"
           "  - {at: 6s, kind: dcbx_peer, port: lan3, pfc: [4]}\n";
  }
  static constexpr double kPeerAt = 6.0;
  static constexpr const char* kFirmwareMode = "overrides:\n  lan3: {dcbx: firmware}\n";
};

// mlx5 announces nothing its firmware agent does: without the storm watchdog (whose counter
// names show a PFC change at once) the drift check finds it.
TEST_F(ReconcileFirmwareAgent, OverrideIsCorrectedUnderEnforce) {
  const auto config = make_config(DriftPolicy::Enforce, 30s, kFirmwareMode);
  EventLog log(time_);  // before the reconciler: its workers write to it until it stops
  Reconciler reconciler(system_, config, test_options());
  reconciler.on_event(log.listener());
  reconciler.start();
  EXPECT_FALSE(dcbx_host("lan3"));  // firmware mode, as the override says
  EXPECT_EQ(pfc_mask("lan3"), kPfcWanted);
  log.clear();

  ASSERT_TRUE(run_until([&] {
    return !log.of("lan3", PortEvent::Kind::Corrected, "pfc.priorities").empty();
  })) << log.describe();
  EXPECT_GE(since_start_s(), kPeerAt);
  EXPECT_EQ(log.of("lan3", PortEvent::Kind::Drifted, "pfc.priorities").size(), 1u)
      << log.describe();
  EXPECT_EQ(pfc_mask("lan3"), kPfcWanted);
  EXPECT_TRUE(node_in_sync(config));
}

TEST_F(ReconcileFirmwareAgent, OverrideIsOnlyReportedUnderReport) {
  const auto interval = 500ms;
  const auto config = make_config(DriftPolicy::Report, interval, kFirmwareMode);
  apply_once(config);
  EventLog log(time_);  // before the reconciler: its workers write to it until it stops
  Reconciler reconciler(system_, config, test_options());
  reconciler.on_event(log.listener());
  reconciler.start();
  const auto before = writes();
  EXPECT_TRUE(log.events().empty()) << log.describe();
  ASSERT_TRUE(run_until([&] {
    return !log.of("lan3", PortEvent::Kind::Drifted, "pfc.priorities").empty();
  })) << log.describe();
  EXPECT_GE(since_start_s(), kPeerAt);
  EXPECT_EQ(pfc_mask("lan3"), kPfcForeign);
  // Two more drift checks: still reported once, still nothing written.
  const auto reported = time_.wall_now();
  ASSERT_TRUE(run_until([&] { return all_checked_since(reconciler, reported + 2 * interval); }));
  EXPECT_EQ(writes(), before);
  EXPECT_EQ(log.of("lan3", PortEvent::Kind::Drifted).size(), 1u) << log.describe();
  EXPECT_TRUE(log.of("lan3", PortEvent::Kind::Corrected).empty()) << log.describe();
}

// mlnx_qos (the scenario's foreign tool) rewrites lan4's PFC, trust and MTU.
class ReconcileForeignTool : public ReconcileNode {
 protected:
  std::string scenario_text() const override {
    return "name: foreign-tool\n"
           "events:\n"
           "  - {at: 6s, kind: foreign_tool, port: lan4, set: {pfc: [4], trust: pcp, mtu: 1500}}\n";
  }
};

TEST_F(ReconcileForeignTool, MlnxQosChangesAreCorrectedUnderEnforce) {
  const auto config = make_config(DriftPolicy::Enforce, 1h);
  EventLog log(time_);  // before the reconciler: its workers write to it until it stops
  Reconciler reconciler(system_, config, test_options());
  reconciler.on_event(log.listener());
  reconciler.start();
  log.clear();
  ASSERT_TRUE(run_until([&] {
    return !log.of("lan4", PortEvent::Kind::Corrected, "pfc.priorities").empty() &&
           !log.of("lan4", PortEvent::Kind::Corrected, "trust").empty() &&
           !log.of("lan4", PortEvent::Kind::Corrected, "mtu").empty();
  })) << log.describe();
  EXPECT_FALSE(log.of("lan4", PortEvent::Kind::Drifted, "trust").empty()) << log.describe();
  ASSERT_TRUE(wait_until([&] { return node_in_sync(config); }));
  EXPECT_EQ(pfc_mask("lan4"), kPfcWanted);
  EXPECT_EQ(mtu_of("lan4"), 9000u);
  for (const char* other : {"lan2", "lan3", "lan5"}) {
    EXPECT_TRUE(log.of(other, PortEvent::Kind::Drifted).empty()) << log.describe();
  }
}

// lan3's MTU write fails twice: lan3 retries with backoff while the others are configured.
class ReconcileBackoff : public ReconcileNode {
 protected:
  std::string scenario_text() const override {
    return "name: mtu-errors\n"
           "events:\n"
           "  - {at: 0s, kind: netlink_errors, port: lan3, errno: EIO, op: mtu, count: 2}\n";
  }
};

TEST_F(ReconcileBackoff, FailingPortRetriesWithBackoffAndDoesNotBlockOthers) {
  const auto config = make_config(DriftPolicy::Enforce, 1h);
  EventLog log(time_);  // before the reconciler: its workers write to it until it stops
  Reconciler reconciler(system_, config, test_options());
  reconciler.on_event(log.listener());
  reconciler.start();
  for (const char* other : {"lan2", "lan4", "lan5"}) {
    const auto port = port_of(reconciler, other);
    ASSERT_TRUE(port);
    EXPECT_EQ(port->condition, PortCondition::InSync) << other;
  }
  // No time has passed: the first failure's retry is not due yet.
  const auto first = port_of(reconciler, "lan3");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->condition, PortCondition::Failed);
  EXPECT_EQ(first->consecutive_failures, 1);
  EXPECT_EQ(mtu_of("lan3"), 1500u);  // rolled back

  ASSERT_TRUE(run_until([&] { return !log.of("lan3", PortEvent::Kind::Corrected).empty(); }))
      << log.describe();
  const auto failures = log.of("lan3", PortEvent::Kind::ApplyFailed);
  ASSERT_EQ(failures.size(), 2u) << log.describe();
  EXPECT_TRUE(contains(failures[0].event.message, "failure 1, retry in 200 ms"))
      << failures[0].event.message;
  EXPECT_TRUE(contains(failures[1].event.message, "failure 2, retry in 400 ms"))
      << failures[1].event.message;
  // Each retry waited its delay on the clock.
  const auto corrected = log.of("lan3", PortEvent::Kind::Corrected).front();
  EXPECT_GE(failures[1].at - failures[0].at, 200ms);
  EXPECT_GE(corrected.at - failures[1].at, 400ms);
  const auto lan3 = port_of(reconciler, "lan3");
  ASSERT_TRUE(lan3);
  EXPECT_EQ(lan3->condition, PortCondition::InSync);
  EXPECT_EQ(lan3->consecutive_failures, 0);
  ASSERT_TRUE(lan3->last_apply);
  EXPECT_EQ(lan3->last_apply->outcome, apply::PortResult::Outcome::Applied);
  EXPECT_TRUE(node_in_sync(config));
}

// A reload's new MTU is the new configuration, applied as such: the port is as roced left it, so
// nothing drifted and nothing was corrected. A foreign PFC change on another port in the same
// check is still drift.
TEST_F(ReconcileDrift, AReloadsNewValueIsNoDriftButAForeignChangeStillIs) {
  const auto config = make_config(DriftPolicy::Enforce, 1h);
  EventLog log(time_);
  Reconciler reconciler(system_, config, test_options());
  reconciler.on_event(log.listener());
  reconciler.start();
  log.clear();

  const std::vector<std::string> ports = {"lan2", "lan3", "lan4", "lan5"};
  foreign_pfc("lan2", kPfcForeign);
  std::string text = kConfigText;
  text.replace(text.find("mtu: 9000"), 9, "mtu: 4200");
  const fs::path changed = dir_ / "changed.yaml";
  write_file(changed, text);
  ASSERT_TRUE(reconciler.reload(changed.string()).ok);
  ASSERT_TRUE(run_until([&] {
    for (const auto& netdev : ports) {
      if (mtu_of(netdev) != 4200) return false;
    }
    return pfc_mask("lan2") == kPfcWanted;
  })) << log.describe();
  ASSERT_TRUE(run_until([&] { return node_in_sync(reconciler.config()); }));
  for (const auto& netdev : ports) {
    const auto port = port_of(reconciler, netdev);
    ASSERT_TRUE(port);
    EXPECT_EQ(port->counters.drifts.count("mtu"), 0u) << netdev;
    EXPECT_EQ(port->counters.corrections.count("mtu"), 0u) << netdev;
    EXPECT_TRUE(log.of(netdev, PortEvent::Kind::Drifted, "mtu").empty()) << log.describe();
  }
  const auto lan2 = port_of(reconciler, "lan2");
  EXPECT_EQ(lan2->counters.drifts, (std::map<std::string, uint64_t>{{"pfc.priorities", 1}}));
  EXPECT_EQ(lan2->counters.corrections, (std::map<std::string, uint64_t>{{"pfc.priorities", 1}}));
  EXPECT_EQ(log.of("lan2", PortEvent::Kind::Drifted, "pfc.priorities").size(), 1u)
      << log.describe();
}

}  // namespace
}  // namespace roced::test
