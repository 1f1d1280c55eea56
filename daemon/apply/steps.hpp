// SPDX-License-Identifier: Apache-2.0
#pragma once
// Internal to the applier: a plan's changes as steps. A step is one write (or a short sequence
// of writes to one feature) that carries one or more changes: PFC priorities and cable length
// share one PFC message, trust and the DSCP map share the APP table. Each step knows how to
// write the wanted values and how to put the observed ones back (the feature's Writes), which
// the applier journals (write::Journal) before the step is written.

#include <functional>
#include <string>
#include <vector>

#include "daemon/apply/port_device.hpp"
#include "daemon/settings/spec.hpp"
#include "write/write.hpp"

namespace roced::apply::detail {

// The Writer runs a step's requests with retries (daemon/settings/device.hpp).
using settings::is_transient;
using settings::Writer;

struct Step {
  std::vector<plan::Change> changes;  // the plan's changes this step carries, in plan order
  settings::Feature feature;          // what they are written with (the settings table's)
  std::function<Result<void>(Writer&)> apply;
  write::Undo undo;  // back to PortPlan::observed
};

// The plan's changes as steps, in Setting order. Changes of one feature (and one DCQCN knob)
// become one step, written by the feature's FeatureSpec (daemon/settings/spec_*.cpp).
std::vector<Step> make_steps(const plan::PortPlan& port_plan);

}  // namespace roced::apply::detail
