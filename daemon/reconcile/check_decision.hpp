// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a port worker does with one fresh plan of its port: the decision alone, with no I/O, no
// lock and no clock of its own, so every branch can be tested on made-up facts and times.

#include <chrono>
#include <optional>
#include <string>

namespace roced::reconcile {

// Why the port is being checked. Routine: an event, the drift check, a reload, a retry.
// Apply: an Apply request (whatever the drift policy). Remediation: a change of the storm
// watchdog's hold, applied alone.
enum class CheckKind { Routine, Apply, Remediation };

// The facts of one check, gathered by the worker.
struct CheckFacts {
  CheckKind kind = CheckKind::Routine;
  bool readable = true;       // the plan has no error
  bool netdev_exists = true;  // looked up only when unreadable
  bool in_sync = false;
  bool enforce_policy = true;  // daemon.drift_policy
  std::string signature;       // the drift: settings, from and to (empty when in sync)
  // Some change undoes what the port was last brought in sync with. False: only the wanted
  // values moved (a reload's new configuration), the port is as roced left it: no drift.
  bool drifted = true;
  bool configured_once = false;
  std::string reported_drift;  // the drift last announced
  std::optional<std::chrono::steady_clock::time_point> last_correction;
  std::string last_corrected_drift;
  std::chrono::steady_clock::time_point now;
};

enum class CheckAction {
  Gone,        // the netdev went away while being read: forget the port
  Unreadable,  // report the read error; a pending hold is put back as it was
  Remediate,   // apply the storm watchdog's hold alone
  InSync,      // nothing to write
  BackOff,     // the drift just corrected is back: another agent sets it, wait before retrying
  Report,      // drift under `report`: say so, write nothing
  Apply,       // drift under `enforce` (or an Apply request): write the plan
};

// "drifted: ..." and its "(reported...)"; "the configuration changed: ..." for a new configuration.
enum class DriftNotice { None, Corrected, Reported, NewConfiguration };

struct CheckDecision {
  CheckAction action = CheckAction::InSync;
  bool enforce = false;
  bool count_drift = false;  // the drift counters go up for these changes
  DriftNotice notice = DriftNotice::None;
  bool remember_drift = false;  // the signature becomes the last announced drift
  bool forget_fights = false;   // in sync long enough after a correction: no fight is on
};

// Corrections this close together that bring back the same drift are a fight with another agent.
inline constexpr std::chrono::seconds kFightWindow{5};

CheckDecision decide_check(const CheckFacts& facts);

}  // namespace roced::reconcile
