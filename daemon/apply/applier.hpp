// SPDX-License-Identifier: Apache-2.0
#pragma once
// The applier: executes a Plan port by port, in Setting order, one DCB feature per netlink
// message, each step verified by reading back. A port that fails is rolled back to the observed
// state its plan was made from; the other ports still get configured.

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "daemon/plan/plan.hpp"
#include "daemon/settings/device.hpp"
#include "os/system.hpp"
#include "util/enum_names.hpp"

namespace roced::apply {

struct StepResult {
  plan::Change change;
  bool ok = false;
  int attempts = 0;   // > 1 when a transient error (EBUSY, EAGAIN) was retried
  std::string error;  // "EIO: ..." when !ok
};

struct PortResult {
  std::string netdev;
  enum class Outcome {
    InSync,          // nothing to do; nothing written
    Applied,         // every change written and verified
    RolledBack,      // a step failed; the port is back where it was
    RollbackFailed,  // a step failed and so did putting it back: needs a human
    Unreadable,      // the plan had an error for this port; nothing written
    Held,            // not applied: a port before it lost its carrier to a disruptive change
  } outcome = Outcome::InSync;
  std::vector<StepResult> steps;     // what was attempted, in order
  std::vector<StepResult> rollback;  // undo steps, in order, when rolled back
  std::vector<plan::Unsupported> unsupported;
  std::vector<finding::Finding> findings;  // the plan's, then the apply's own (findings.hpp)
  // Applied, but these settings could not be read and were left alone: no success.
  std::string unread;
  std::string error;  // the failure that caused a rollback
  // With manual buffers: what became of the lossless headroom after PFC, MTU or buffers changed
  // (recomputed at link speed once the carrier was back, or why not). Empty when not needed.
  std::string headroom;
  // After a disruptive change to a port whose link was up: how long its carrier took to return
  // ("back after 3000 ms"), or that it did not within carrier_timeout. Empty when not waited.
  std::string carrier;
  // It had its carrier before a disruptive change and not within carrier_timeout after it: no
  // other port may be flapped until it has (a fault that keeps links down would otherwise take
  // every rail down, one carrier_timeout after the other).
  bool carrier_lost = false;
};
inline constexpr auto kOutcomeNames = enum_names<PortResult::Outcome>({
    {PortResult::Outcome::InSync, "in-sync"},
    {PortResult::Outcome::Applied, "applied"},
    {PortResult::Outcome::RolledBack, "rolled-back"},
    {PortResult::Outcome::RollbackFailed, "rollback-failed"},
    {PortResult::Outcome::Unreadable, "unreadable"},
    {PortResult::Outcome::Held, "held"},
});
static_assert(kOutcomeNames.covers<PortResult::Outcome::Held>(), "name every Outcome");
std::string outcome_name(PortResult::Outcome outcome);  // "in-sync", "applied", "rolled-back", ...

struct ApplyResult {
  std::vector<PortResult> ports;
  bool ok() const;       // no port RolledBack, RollbackFailed, Unreadable or Held
  bool changed() const;  // some port was written (Applied, RolledBack or RollbackFailed)
};

using ApplyOptions = settings::WriteOptions;  // max_attempts, first_backoff

ApplyResult apply_plan(System& system, const plan::Plan& plan, const ApplyOptions& options = {});
PortResult apply_port(System& system, const plan::PortPlan& port_plan,
                      const ApplyOptions& options = {});

std::string format_apply_text(const ApplyResult& result);
nlohmann::ordered_json apply_to_json(const ApplyResult& result);  // per port: what changed

// The apply document's version, its first key (docs/plan-json.md).
inline constexpr const char* kApplySchema = "roced.apply/v1";

// What the apply document says besides the ports' results.
struct ApplyContext {
  std::string source;
  std::string config_path;
  const plan::Plan* plan = nullptr;  // shown under "plan" (rocectl apply --diff), else null
  std::vector<std::string> not_found;
  std::string error;  // the ports could not be listed
};

// `rocectl apply --json` and D-Bus Apply: the whole document, "ok" counting not_found and error.
nlohmann::ordered_json apply_document(const ApplyContext& context, const ApplyResult& result);

}  // namespace roced::apply
