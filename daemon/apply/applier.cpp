// SPDX-License-Identifier: Apache-2.0
// The applier's core: a port's changes as steps in Setting order, each written (transient errors
// retried with backoff) and verified by reading back; on a failure the steps done are undone in
// reverse order, each undo verified against the state the plan was made from.
#include "daemon/apply/applier.hpp"

#include <algorithm>
#include <cerrno>

#include "daemon/apply/findings.hpp"
#include "daemon/apply/steps.hpp"
#include "write/journal.hpp"

namespace roced::apply {

namespace detail {

std::vector<Step> make_steps(const plan::PortPlan& port_plan) {
  std::vector<Step> steps;
  const auto& changes = port_plan.changes;
  for (size_t first = 0; first < changes.size();) {
    // Changes of one feature share a write; each DCQCN knob is an instance of its own.
    const settings::Feature feature = settings::info(changes[first].setting).feature;
    const std::string& instance = changes[first].key;
    size_t end = first + 1;
    while (end < changes.size() && settings::info(changes[end].setting).feature == feature &&
           changes[end].key == instance) {
      ++end;
    }
    std::vector<plan::Change> group(changes.begin() + first, changes.begin() + end);
    const settings::WriteCtx ctx{port_plan.port, port_plan.desired, port_plan.observed, instance};
    if (auto writes = settings::feature_row(feature).writes(ctx)) {
      steps.push_back(
          Step{std::move(group), feature, std::move(writes->apply), std::move(writes->undo)});
    } else {
      // No way to write it (the state it depends on was not read): a failure, never a skip.
      const std::string name = plan::setting_name(group.front().setting, group.front().key);
      const std::string why = "no write for " + name + " from what was read";
      auto cannot = [why](Writer&) -> Result<void> { return Error{ENODATA, why}; };
      steps.push_back(Step{std::move(group), feature, cannot, write::Undo::refused(why)});
    }
    first = end;
  }
  return steps;
}

}  // namespace detail

namespace {

using detail::Step;
using detail::Writer;

std::string describe(const Error& error) {
  const std::string name = errno_name(error.code);
  return name.empty() ? error.message : name + ": " + error.message;
}

StepResult step_result(plan::Change change, const Writer& writer, const std::string& failure) {
  return StepResult{std::move(change), failure.empty(), writer.attempts(), failure};
}

// After a write: each change of the step must plan no more on what reads back now. Each row
// re-plans itself, so a read error elsewhere in the re-read part does not fail this step.
std::string verify_written(const plan::PortPlan& p, const Step& step, const PortStatus& now) {
  for (const auto& change : step.changes) {
    const settings::Ctx ctx{p.port, p.desired, change.key, now};
    if (auto failure = settings::row(change.setting).pending(ctx, now); !failure.empty()) {
      return "verify: " + failure;
    }
  }
  return {};
}

// After an undo: every setting of the feature (not only those that changed: the undo rewrote the
// whole feature) must read as the plan observed it.
std::string verify_restored(const plan::PortPlan& p, const Step& step, const PortStatus& now) {
  const std::string& instance = step.changes.front().key;
  for (const settings::Row& row : settings::rows()) {
    if (row.info->feature != step.feature) continue;
    const settings::Ctx ctx{p.port, p.desired, instance, now};
    if (auto failure = row.restored(ctx, p.observed, now); !failure.empty()) {
      return "verify: " + failure;
    }
  }
  return {};
}

// The change an undo makes: from what was written back to what was observed.
plan::Change reversed(const plan::Change& change) {
  plan::Change out = change;
  std::swap(out.now, out.wanted);
  return out;
}

// Undoes the journal (one entry per step of `done`, in the same order) newest first; true when
// every setting reads as observed again.
bool roll_back(PortDevice& device, const plan::PortPlan& port_plan, write::Journal& journal,
               const std::vector<const Step*>& done, const ApplyOptions& options,
               PortResult& result) {
  bool restored = true;
  journal.unwind([&](const write::Entry& entry, size_t index) {
    const Step& step = *done[index];
    Writer writer(device, options);
    std::string failure;
    // An undo the driver answers with an error may still have put the setting back (mlx5's
    // setpfc sets the mask before it fails on the buffers): what reads back decides.
    auto undone = write::perform(entry.undo, writer);
    failure = verify_restored(port_plan, step, device.read());
    if (!undone && failure.empty()) {
      const std::string name =
          plan::setting_name(step.changes.front().setting, step.changes.front().key);
      finding::Finding said = finding::make(
          kUndoAnsweredError, port_plan.port.netdev,
          name + ": restored, though the driver answered " + describe(undone.error()));
      said.about = name;
      result.findings.push_back(std::move(said));
    } else if (!undone) {
      failure = describe(undone.error());
    }
    for (const auto& change : step.changes) {
      result.rollback.push_back(step_result(reversed(change), writer, failure));
    }
    restored = restored && failure.empty();
  });
  return restored;
}

// mlx5 computes a lossless buffer's Xoff at the link speed of the moment (en/port_buffer.c
// calculate_xoff: 40 Gb/s when mlx5e_port_linkspeed fails because the link is down), and only in
// its manual-buffer update (mlx5e_port_manual_buffer_config, from setpfc or setbuffer). A PFC mask
// change toggles the link first (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc -> mlx5_toggle_port_link), so
// the Xoff it and a following buffer write program is for 40 Gb/s, and an MTU change never
// recomputes it. So when roced manages the buffers and wrote any of these, it waits for the
// carrier and sends setpfc again as it is (no toggle): the driver recomputes Xoff at the real
// speed (xoff != priv->dcbx.xoff) and rewrites the thresholds.
bool moves_headroom(const plan::PortPlan& port_plan, const std::vector<const Step*>& written) {
  // Firmware-owned buffers (or NVIDIA's driver, which sizes them): the NIC's own business.
  if (!settings::host_sizes_buffers(port_plan.desired, port_plan.observed)) return false;
  return std::any_of(written.begin(), written.end(), [](const Step* step) {
    return step->feature == settings::Feature::Pfc || step->feature == settings::Feature::Mtu ||
           step->feature == settings::Feature::Buffer;
  });
}

// Waits `duration` on the options' clock, less when roced stops: whether the whole wait passed.
bool pause(const ApplyOptions& options, std::chrono::milliseconds duration) {
  if (options.stop != nullptr) return options.stop->pause(*options.time, duration);
  options.time->sleep_for(duration);
  return true;
}

struct CarrierWait {
  bool back = false;
  bool stopped = false;  // roced stopped before the carrier came
  std::chrono::milliseconds waited{0};
};

// Until the port has its carrier (read into `current`), at most carrier_timeout.
CarrierWait wait_for_carrier(PortDevice& device, const ApplyOptions& options, PortStatus& current) {
  constexpr auto kCarrierPoll = std::chrono::milliseconds(100);
  TimeSource& time = *options.time;
  const auto start = time.now();
  const auto deadline = start + options.carrier_timeout;
  CarrierWait wait;
  for (;;) {
    current = device.read_part(current, StatusPart::Link);
    wait.waited = std::chrono::duration_cast<std::chrono::milliseconds>(time.now() - start);
    wait.back = current.link.ok() && current.link.value->carrier;
    if (wait.back || time.now() >= deadline) return wait;
    if (!pause(options, kCarrierPoll)) {
      wait.stopped = true;
      return wait;
    }
  }
}

bool had_carrier(const PortStatus& status) {
  return status.link.ok() && status.link.value->carrier;
}

// A PFC mask change toggles the link (mlx5_toggle_port_link), an MTU change rebuilds the
// channels: a port that had its carrier is waited for until it has it again, so that whoever
// applies the next port (one at a time) never takes a second rail down meanwhile.
void wait_after_disruption(PortDevice& device, const plan::PortPlan& port_plan,
                           const ApplyOptions& options, PortStatus& current, PortResult& result) {
  if (!options.wait_for_carrier || !port_plan.disruptive() || !had_carrier(port_plan.observed)) {
    return;
  }
  const CarrierWait wait = wait_for_carrier(device, options, current);
  if (wait.back) {
    result.carrier = "back after " + std::to_string(wait.waited.count()) + " ms";
    return;
  }
  if (wait.stopped) {
    result.carrier = "not back after " + std::to_string(wait.waited.count()) +
                     " ms, when roced stopped waiting for it";
    return;
  }
  result.carrier =
      "no carrier " + std::to_string(options.carrier_timeout.count()) + " ms after the change";
  result.carrier_lost = true;
  result.findings.push_back(finding::make(kCarrierNotBack, result.netdev,
                                          "link: " + result.carrier + " (it had one before)",
                                          "carrier", "no carrier"));
}

std::string settle_headroom(PortDevice& device, const ApplyOptions& options, PortStatus& current,
                            const std::string& netdev, std::vector<finding::Finding>& findings) {
  const auto warn = [&](std::string text) {
    findings.push_back(finding::make(kHeadroomNotRecomputed, netdev, std::move(text)));
  };
  const CarrierWait carrier = wait_for_carrier(device, options, current);
  if (!carrier.back) {
    const std::string why =
        (carrier.stopped ? std::string("roced stopped before the carrier came back")
                         : "no carrier " + std::to_string(options.carrier_timeout.count()) +
                               " ms after the change") +
        ": the lossless buffers' Xoff stays as mlx5 computed it with the "
        "link down (for 40 Gb/s), too little headroom at this port's speed; apply again once "
        "the link is up";
    warn("headroom: " + why);
    return "not recomputed: " + why;
  }
  const auto waited = carrier.waited;
  current = device.read_part(current, StatusPart::Dcb);
  if (!current.pfc.ok()) {
    warn("headroom: cannot read PFC to have Xoff recomputed: " + current.pfc.error);
    return "not recomputed: " + current.pfc.error;
  }
  const dcb::Pfc pfc = *current.pfc.value;
  Writer writer(device, options);
  if (auto sent = writer.write(write::Pfc{pfc}); !sent) {
    // ENOMEM: a lossless buffer is smaller than Xoff at this speed plus max MTU plus a cell
    // (en/port_buffer.c update_xoff_threshold); mlx5 keeps the thresholds it had.
    const std::string why =
        sent.error().code == ENOMEM
            ? describe(sent.error()) +
                  " (a lossless buffer is too small for the headroom at this link speed; its Xoff "
                  "stays as computed with the link down)"
            : describe(sent.error());
    warn("headroom: " + why);
    return "not recomputed: " + why;
  }
  if (settings::driver_traits(current).buffer_recompute ==
      driver::BufferRecompute::FirmwareOwnership) {
    // Sent all the same: it recomputes where the firmware reports the buffers host-owned.
    findings.push_back(finding::make(
        kHeadroomUnknown, netdev,
        "headroom: setpfc sent again at link speed; whether this driver recomputed Xoff depends "
        "on the firmware's buffer ownership, which roced cannot read"));
    return "cannot tell: this driver recomputes only where the firmware reports the buffers "
           "host-owned (PCAM buffer_ownership), which roced cannot read";
  }
  if (waited.count() == 0) return "recomputed at link speed (setpfc, unchanged)";
  return "recomputed at link speed (setpfc, unchanged) after " + std::to_string(waited.count()) +
         " ms of link training";
}

}  // namespace

PortResult apply_port_on(PortDevice& device, const plan::PortPlan& port_plan,
                         const ApplyOptions& options) {
  PortResult result;
  result.netdev = port_plan.port.netdev;
  result.unsupported = port_plan.unsupported;
  result.findings = port_plan.findings;
  // Unread settings are left alone; the others are applied when the plan has changes for them.
  if (!port_plan.error.empty() && (!port_plan.partly_read || port_plan.changes.empty())) {
    result.outcome = PortResult::Outcome::Unreadable;
    result.error = port_plan.error;
    return result;
  }
  if (port_plan.partly_read) result.unread = port_plan.error;
  if (port_plan.changes.empty()) return result;  // InSync: not one request

  const std::vector<Step> steps = detail::make_steps(port_plan);
  // The steps that may have changed the port, and each one's undo, journalled before it is
  // written (one entry per step of `done`).
  std::vector<const Step*> done;
  write::Journal journal;
  // The port as last read: the plan's observation, with each step's part read again after it.
  PortStatus current = port_plan.observed;
  for (const Step& step : steps) {
    Writer writer(device, options);
    std::string failure;
    journal.record(plan::setting_name(step.changes.front().setting, step.changes.front().key),
                   step.undo);
    if (auto written = step.apply(writer); !written) {
      failure = describe(written.error());
    } else {
      current = device.read_part(current, settings::feature_row(step.feature).part);
      failure = verify_written(port_plan, step, current);
    }
    for (const auto& change : step.changes) {
      result.steps.push_back(step_result(change, writer, failure));
    }
    if (failure.empty()) {
      done.push_back(&step);
      continue;
    }
    // A step that failed may still have changed something (written, then not verified; APP
    // entries applied in part): it is undone with the rest. One refused whole changed nothing.
    if (writer.maybe_changed()) {
      done.push_back(&step);
    } else {
      journal.forget_last();
    }
    result.error =
        plan::setting_name(step.changes.front().setting, step.changes.front().key) + ": " + failure;
    result.outcome = roll_back(device, port_plan, journal, done, options, result)
                         ? PortResult::Outcome::RolledBack
                         : PortResult::Outcome::RollbackFailed;
    wait_after_disruption(device, port_plan, options, current, result);
    if (moves_headroom(port_plan, done)) {
      result.headroom = settle_headroom(device, options, current, result.netdev, result.findings);
    }
    return result;
  }
  result.outcome = PortResult::Outcome::Applied;
  wait_after_disruption(device, port_plan, options, current, result);
  if (moves_headroom(port_plan, done)) {
    result.headroom = settle_headroom(device, options, current, result.netdev, result.findings);
  }
  return result;
}

PortResult apply_port(System& system, const plan::PortPlan& port_plan,
                      const ApplyOptions& options) {
  auto device = system_port_device(system, port_plan.port);
  return apply_port_on(*device, port_plan, options);
}

ApplyResult apply_plan(System& system, const plan::Plan& plan, const ApplyOptions& options) {
  ApplyResult result;
  // One port after another: a failed port is rolled back before the next one is touched. Once a
  // port has lost its carrier to a disruptive change, no other working port is flapped.
  std::string lost;
  for (const auto& port_plan : plan.ports) {
    if (!lost.empty() && port_plan.disruptive() && had_carrier(port_plan.observed)) {
      PortResult held;
      held.netdev = port_plan.port.netdev;
      held.outcome = PortResult::Outcome::Held;
      held.error =
          lost + " has had no carrier since its disruptive change; apply again once it has";
      result.ports.push_back(std::move(held));
      continue;
    }
    result.ports.push_back(apply_port(system, port_plan, options));
    if (result.ports.back().carrier_lost && lost.empty()) lost = port_plan.port.netdev;
  }
  return result;
}

std::string outcome_name(PortResult::Outcome outcome) {
  return std::string(kOutcomeNames.name(outcome));
}

bool ApplyResult::ok() const {
  return std::none_of(ports.begin(), ports.end(), [](const PortResult& port) {
    return port.outcome == PortResult::Outcome::RolledBack ||
           port.outcome == PortResult::Outcome::RollbackFailed ||
           port.outcome == PortResult::Outcome::Unreadable ||
           port.outcome == PortResult::Outcome::Held || !port.unread.empty();
  });
}

bool ApplyResult::changed() const {
  return std::any_of(ports.begin(), ports.end(), [](const PortResult& port) {
    return port.outcome == PortResult::Outcome::Applied ||
           port.outcome == PortResult::Outcome::RolledBack ||
           port.outcome == PortResult::Outcome::RollbackFailed;
  });
}

}  // namespace roced::apply
