// SPDX-License-Identifier: Apache-2.0
// The port worker's decision on made-up facts and times: every branch without a thread or a node.
#include "daemon/reconcile/check_decision.hpp"

#include <gtest/gtest.h>

namespace roced::reconcile {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

const SteadyClock::time_point kNow = SteadyClock::time_point(std::chrono::hours(100));

CheckFacts drifted(CheckKind kind = CheckKind::Routine) {
  CheckFacts facts;
  facts.kind = kind;
  facts.signature = "pfc.priorities=none>3;";
  facts.configured_once = true;
  facts.now = kNow;
  return facts;
}

TEST(CheckDecision, AnUnreadablePortIsReportedAndAVanishedOneForgotten) {
  CheckFacts facts = drifted();
  facts.readable = false;
  EXPECT_EQ(decide_check(facts).action, CheckAction::Unreadable);
  facts.netdev_exists = false;
  EXPECT_EQ(decide_check(facts).action, CheckAction::Gone);
}

TEST(CheckDecision, AHoldIsAppliedAloneWhateverThePortShows) {
  CheckFacts facts = drifted(CheckKind::Remediation);
  facts.enforce_policy = false;
  const auto decision = decide_check(facts);
  EXPECT_EQ(decision.action, CheckAction::Remediate);
  EXPECT_FALSE(decision.count_drift);
  EXPECT_EQ(decision.notice, DriftNotice::None);
}

TEST(CheckDecision, InSyncForgetsTheFightsOnlyOnceTheWindowHasPassed) {
  CheckFacts facts = drifted();
  facts.in_sync = true;
  facts.last_correction = kNow - kFightWindow + 1ms;
  EXPECT_EQ(decide_check(facts).action, CheckAction::InSync);
  EXPECT_FALSE(decide_check(facts).forget_fights);
  facts.last_correction = kNow - kFightWindow;
  EXPECT_TRUE(decide_check(facts).forget_fights);
}

TEST(CheckDecision, DriftUnderEnforceIsCountedAnnouncedAndApplied) {
  const auto decision = decide_check(drifted());
  EXPECT_EQ(decision.action, CheckAction::Apply);
  EXPECT_TRUE(decision.enforce);
  EXPECT_TRUE(decision.count_drift);
  EXPECT_EQ(decision.notice, DriftNotice::Corrected);
  EXPECT_TRUE(decision.remember_drift);
}

TEST(CheckDecision, TheFirstCheckConfiguresThePortWithoutCallingItDrift) {
  CheckFacts facts = drifted();
  facts.configured_once = false;
  const auto decision = decide_check(facts);
  EXPECT_EQ(decision.action, CheckAction::Apply);
  EXPECT_FALSE(decision.count_drift);
  EXPECT_EQ(decision.notice, DriftNotice::None);
  EXPECT_FALSE(decision.remember_drift);
}

// Only the wanted values moved (a reload): applied under enforce, said once under report, and
// never counted as drift.
TEST(CheckDecision, ANewConfigurationIsAppliedOrReportedButNeverCountedAsDrift) {
  CheckFacts facts = drifted();
  facts.drifted = false;
  auto decision = decide_check(facts);
  EXPECT_EQ(decision.action, CheckAction::Apply);
  EXPECT_FALSE(decision.count_drift);
  EXPECT_EQ(decision.notice, DriftNotice::NewConfiguration);
  facts.enforce_policy = false;
  decision = decide_check(facts);
  EXPECT_EQ(decision.action, CheckAction::Report);
  EXPECT_FALSE(decision.count_drift);
  EXPECT_EQ(decision.notice, DriftNotice::NewConfiguration);
  facts.reported_drift = facts.signature;  // said already
  EXPECT_EQ(decide_check(facts).notice, DriftNotice::None);
}

TEST(CheckDecision, DriftUnderReportIsAnnouncedOncePerDistinctDrift) {
  CheckFacts facts = drifted();
  facts.enforce_policy = false;
  facts.configured_once = false;  // under report even the first check only reports
  auto decision = decide_check(facts);
  EXPECT_EQ(decision.action, CheckAction::Report);
  EXPECT_TRUE(decision.count_drift);
  EXPECT_EQ(decision.notice, DriftNotice::Reported);
  facts.reported_drift = facts.signature;
  decision = decide_check(facts);
  EXPECT_EQ(decision.action, CheckAction::Report);
  EXPECT_FALSE(decision.count_drift);
  EXPECT_EQ(decision.notice, DriftNotice::None);
}

TEST(CheckDecision, AnApplyRequestEnforcesUnderReport) {
  CheckFacts facts = drifted(CheckKind::Apply);
  facts.enforce_policy = false;
  EXPECT_EQ(decide_check(facts).action, CheckAction::Apply);
}

TEST(CheckDecision, TheSameDriftBackWithinTheWindowIsAFightThatBacksOff) {
  CheckFacts facts = drifted();
  facts.last_corrected_drift = facts.signature;
  facts.last_correction = kNow - kFightWindow + 1ms;
  EXPECT_EQ(decide_check(facts).action, CheckAction::BackOff);
  EXPECT_TRUE(decide_check(facts).count_drift);  // still counted and announced
  facts.last_correction = kNow - kFightWindow;   // long enough ago: a new drift, corrected
  EXPECT_EQ(decide_check(facts).action, CheckAction::Apply);
  facts.last_correction = kNow;
  facts.signature = "pfc.priorities=none>4;";  // another drift: corrected at once
  EXPECT_EQ(decide_check(facts).action, CheckAction::Apply);
  facts.signature = facts.last_corrected_drift;
  facts.kind = CheckKind::Apply;  // an Apply request never backs off
  EXPECT_EQ(decide_check(facts).action, CheckAction::Apply);
}

}  // namespace
}  // namespace roced::reconcile
