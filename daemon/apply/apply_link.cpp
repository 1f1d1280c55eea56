// SPDX-License-Identifier: Apache-2.0
// The link steps: MTU over rtnetlink, PFC stall prevention through the ethtool tunable.
#include "daemon/apply/steps.hpp"

namespace roced::apply::detail {

void mtu_step(const plan::PortPlan& p, std::vector<plan::Change> changes, std::vector<Step>& out) {
  if (changes.empty()) return;
  const uint32_t wanted = p.desired.mtu;
  // plan_port plans nothing without the link, so it was read.
  const uint32_t observed = p.observed.link.value ? p.observed.link.value->mtu : 0;
  out.push_back(Step{
      std::move(changes),
      [wanted](Writer& w) { return w.write([&] { return w.device().set_mtu(wanted); }); },
      [observed](Writer& w) { return w.write([&] { return w.device().set_mtu(observed); }); }});
}

void stall_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                std::vector<Step>& out) {
  if (changes.empty()) return;
  const uint16_t wanted = p.desired.stall_prevention.tunable_value();
  const auto observed = p.observed.stall_prevention.value;
  out.push_back(Step{std::move(changes),
                     [wanted](Writer& w) {
                       return w.write([&] { return w.device().set_stall_prevention(wanted); });
                     },
                     // mlx5 reads "auto" back as 100 ms: writing that back is the same state.
                     [observed](Writer& w) -> Result<void> {
                       if (!observed) {
                         return Error{ENODATA, "stall prevention was not read before the change"};
                       }
                       const uint16_t raw = observed->raw;
                       return w.write([&] { return w.device().set_stall_prevention(raw); });
                     }});
}

}  // namespace roced::apply::detail
