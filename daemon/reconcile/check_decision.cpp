// SPDX-License-Identifier: Apache-2.0
#include "daemon/reconcile/check_decision.hpp"

namespace roced::reconcile {

namespace {

// The first check of a port (start, or it came back) configures it: that is no drift. Under
// report there is nothing else to show, so a drift is announced once per distinct drift.
void judge_drift(const CheckFacts& facts, CheckDecision& decision) {
  if (decision.enforce && !facts.configured_once) return;
  const bool new_drift = facts.signature != facts.reported_drift;
  if (!facts.drifted) {
    // A reload's new wanted values: nothing changed on the port, so nothing to count as drift.
    if (decision.enforce || new_drift) decision.notice = DriftNotice::NewConfiguration;
    decision.remember_drift = true;
    return;
  }
  decision.count_drift = decision.enforce || new_drift;
  if (!decision.enforce && new_drift) {
    decision.notice = DriftNotice::Reported;
  } else if (decision.enforce) {
    decision.notice = DriftNotice::Corrected;
  }
  decision.remember_drift = true;
}

bool fighting(const CheckFacts& facts, bool enforce) {
  return enforce && facts.kind == CheckKind::Routine && facts.last_correction &&
         facts.signature == facts.last_corrected_drift &&
         facts.now - *facts.last_correction < kFightWindow;
}

}  // namespace

CheckDecision decide_check(const CheckFacts& facts) {
  CheckDecision decision;
  if (!facts.readable) {
    decision.action = facts.netdev_exists ? CheckAction::Unreadable : CheckAction::Gone;
    return decision;
  }
  if (facts.kind == CheckKind::Remediation) {
    decision.action = CheckAction::Remediate;
    return decision;
  }
  if (facts.in_sync) {
    decision.action = CheckAction::InSync;
    decision.forget_fights =
        facts.last_correction && facts.now - *facts.last_correction >= kFightWindow;
    return decision;
  }
  decision.enforce = facts.kind != CheckKind::Routine || facts.enforce_policy;
  judge_drift(facts, decision);
  if (fighting(facts, decision.enforce)) {
    decision.action = CheckAction::BackOff;
  } else {
    decision.action = decision.enforce ? CheckAction::Apply : CheckAction::Report;
  }
  return decision;
}

}  // namespace roced::reconcile
