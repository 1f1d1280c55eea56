// SPDX-License-Identifier: Apache-2.0
#pragma once
// Internal to the applier: a plan's changes as steps. A step is one write (or a short sequence
// of writes to one feature) that carries one or more changes: PFC priorities and cable length
// share one PFC message, trust and the DSCP map share the APP table. Each step knows how to
// write the wanted values and how to put the observed ones back.

#include <functional>
#include <string>
#include <vector>

#include "daemon/apply/port_device.hpp"

namespace roced::apply::detail {

// The Writer runs a step's requests with retries (daemon/settings/device.hpp).
using settings::is_transient;
using settings::Writer;

struct Step {
  std::vector<plan::Change> changes;  // the plan's changes this step carries, in plan order
  std::function<Result<void>(Writer&)> apply;
  std::function<Result<void>(Writer&)> undo;  // back to PortPlan::observed
};

// The plan's changes as steps, in Setting order. Changes of one feature become one step.
std::vector<Step> make_steps(const plan::PortPlan& port_plan);

// Per feature (apply_dcb.cpp, apply_link.cpp, apply_rdma.cpp): appends the step for the changes
// of that feature, when there are any. `changes` are the port's changes of this feature only.
void dcbx_step(const plan::PortPlan& p, std::vector<plan::Change> changes, std::vector<Step>& out);
void app_table_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                    std::vector<Step>& out);  // trust and DSCP map
void ets_step(const plan::PortPlan& p, std::vector<plan::Change> changes, std::vector<Step>& out);
void pfc_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
              std::vector<Step>& out);  // priorities and cable length
void buffer_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                 std::vector<Step>& out);
void mtu_step(const plan::PortPlan& p, std::vector<plan::Change> changes, std::vector<Step>& out);
void stall_step(const plan::PortPlan& p, std::vector<plan::Change> changes, std::vector<Step>& out);
void ecn_priorities_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                         std::vector<Step>& out);
void cnp_dscp_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                   std::vector<Step>& out);
void cnp_priority_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                       std::vector<Step>& out);
void dcqcn_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                std::vector<Step>& out);  // one knob: one change
void rdma_cm_mode_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                       std::vector<Step>& out);
void rdma_cm_tos_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                      std::vector<Step>& out);

// Verification (verify.cpp). After a step: `replanned` (plan_port on what reads back now) still
// lists the change -> why it failed; empty when the setting reads as wanted.
std::string still_pending(const plan::PortPlan& replanned, const plan::Change& change);
// After an undo: the setting reads other than in `observed` (the plan's) -> why; empty when it is
// back.
std::string not_restored(const PortStatus& observed, const PortStatus& now,
                         const plan::Change& change);

}  // namespace roced::apply::detail
