// SPDX-License-Identifier: Apache-2.0
// A port whose driver is not mlx5 (rxe, bnxt_re, irdma): roced's DCB, buffer, stall prevention
// and ECN/DCQCN semantics are mlx5's, so each of those settings is reported unsupported there,
// never planned as a change and never a read error that fails the port.
#include "daemon/plan/planner.hpp"

namespace roced::plan::detail {

namespace {

// The kernel's own "no" when it said one (veth DCB: EOPNOTSUPP), else why roced does not try.
template <class T>
void unsupported_here(PortPlanner& p, const Field<T>& field, Setting setting,
                      const std::string& key = {}) {
  const bool kernel_said_no = !field.ok() && field.unsupported_here();
  p.unsupported(setting, kernel_said_no ? field.reason : mlx5_only_reason(p.out.port), key);
}

}  // namespace

void plan_mlx5_only_unsupported(PortPlanner& p) {
  const PortStatus& have = p.have;
  unsupported_here(p, have.dcbx, Setting::Dcbx);
  unsupported_here(p, have.trust, Setting::Trust);
  if (p.want.trust == dcb::Trust::Dscp) unsupported_here(p, have.dscp_apps, Setting::DscpMap);
  unsupported_here(p, have.ets, Setting::Ets);
  unsupported_here(p, have.pfc, Setting::PfcPriorities);
  unsupported_here(p, have.pfc, Setting::CableLength);
  if (p.want.buffers) unsupported_here(p, have.buffer, Setting::Buffers);
  unsupported_here(p, have.stall_prevention, Setting::StallPrevention);
  if (p.want.ecn.enabled_priorities) unsupported_here(p, have.ecn, Setting::EcnPriorities);
  unsupported_here(p, have.ecn, Setting::CnpDscp);
  unsupported_here(p, have.ecn, Setting::CnpPriority);
  for (const auto& [name, value] : p.want.ecn.dcqcn) {
    unsupported_here(p, have.ecn, Setting::Dcqcn, name);
  }
}

}  // namespace roced::plan::detail
