// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the storm watchdog holds on a port while it remediates a PFC storm: the priorities whose
// PFC bit it cleared and the stall-prevention timeout it tightened. The port's worker plans the
// port against its profile with the hold applied, so an active remediation is the wanted state
// (never "corrected" as drift), and the watchdog's writes take the same plan, apply, read-back
// and rollback as the configuration's.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "finding/finding.hpp"

namespace roced::reconcile {

struct Remediation {
  uint8_t pfc_off = 0;  // bit p: PFC cleared on priority p
  std::optional<std::chrono::milliseconds> stall_prevention_timeout;  // set while held

  bool empty() const { return pfc_off == 0 && !stall_prevention_timeout; }
  bool operator==(const Remediation&) const = default;
};

// `profile` with the hold applied.
config::Profile remediated(config::Profile profile, const Remediation& remediation);

// The settings a hold (or its release) changes: the only ones a remediation apply writes.
bool remediation_setting(plan::Setting setting);

// "PFC off on priority 3; stall prevention 80 ms"; empty for none.
std::string describe(const Remediation& remediation);
// The plan's finding on a held port (a hold is wanted, but not what the profile says).
inline constexpr finding::Kind kPfcHeldByWatchdog{
    "pfc_held_by_watchdog", finding::Severity::Warning, "watchdog",
    "The storm watchdog holds a remediation on the port (PFC off on a priority, stall "
    "prevention tightened) until the storm ends: traffic on that priority is lossy meanwhile.",
    "Find the storm's source (roce_pfc_storm_* metrics, rocectl status); the hold ends by itself "
    "when the pause counters are quiet for the restore period."};
finding::Finding hold_finding(const std::string& netdev, const Remediation& remediation);

}  // namespace roced::reconcile
