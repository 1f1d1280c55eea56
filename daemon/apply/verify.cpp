// SPDX-License-Identifier: Apache-2.0
// Reading back: after a step, the setting must no longer be a change when the port is planned
// again; after an undo, it must read as it did when the plan was made.
#include "daemon/apply/steps.hpp"

namespace roced::apply::detail {

std::string still_pending(const plan::PortPlan& replanned, const plan::Change& change) {
  if (!replanned.error.empty()) return "cannot read back: " + replanned.error;
  for (const auto& c : replanned.changes) {
    if (c.setting == change.setting && c.key == change.key) {
      return "reads " + c.now + " after the write (wanted " + c.wanted + ")";
    }
  }
  return {};
}

std::string not_restored(const plan::PortPlan& p, const PortStatus& now,
                         const plan::Change& change) {
  // The row's own projection and equality, the ones its plan used.
  return settings::row(change.setting)
      .restored(settings::Ctx{p.port, p.desired, change.key}, p.observed, now);
}

}  // namespace roced::apply::detail
