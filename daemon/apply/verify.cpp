// SPDX-License-Identifier: Apache-2.0
// Reading back: after a step, the setting must no longer be a change when the port is planned
// again; after an undo, it must read as it did when the plan was made.
#include "daemon/apply/steps.hpp"
#include "rdma/ecn_knobs.hpp"

namespace roced::apply::detail {

namespace {

using plan::Setting;

// Compares one field of two reads with `same`; says what is wrong when they differ.
template <class T, class Same>
std::string compare(const Field<T>& then, const Field<T>& now, const std::string& what, Same same) {
  if (!now.ok()) return "cannot read back " + what + ": " + now.error;
  if (!then.ok()) return what + " was not read before the change";
  return same(*then.value, *now.value) ? "" : what + " differs from before the apply";
}

std::optional<uint64_t> knob(const rdma::EcnState& ecn, const std::string& name) {
  const auto knobs = rdma::knobs_by_upstream_name(ecn);
  auto it = knobs.find(name);
  return it == knobs.end() ? std::nullopt : std::optional<uint64_t>(it->second);
}

}  // namespace

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
  // A setting with a row compares with the row's own equality, the one its plan used.
  if (const settings::Row& row = settings::row(change.setting); row.restored) {
    return row.restored(settings::Ctx{p.port, p.desired, change.key}, p.observed, now);
  }
  const PortStatus& observed = p.observed;
  switch (change.setting) {
    case Setting::Mtu:
      return compare(observed.link, now.link, "the MTU",
                     [](const LinkInfo& a, const LinkInfo& b) { return a.mtu == b.mtu; });
    case Setting::StallPrevention:
      return compare(observed.stall_prevention, now.stall_prevention, "stall prevention",
                     [](const StallPrevention& a, const StallPrevention& b) {
                       return StallPrevention::same_setting(a.raw, b.raw);
                     });
    case Setting::EcnPriorities:
      return compare(observed.ecn, now.ecn, "the ECN priorities",
                     [](const rdma::EcnState& a, const rdma::EcnState& b) {
                       return a.np_enabled == b.np_enabled && a.rp_enabled == b.rp_enabled;
                     });
    case Setting::CnpDscp:
      return compare(observed.ecn, now.ecn, "the CNP DSCP",
                     [](const rdma::EcnState& a, const rdma::EcnState& b) {
                       return a.cnp_dscp() == b.cnp_dscp();
                     });
    case Setting::CnpPriority:
      return compare(observed.ecn, now.ecn, "the CNP priority",
                     [](const rdma::EcnState& a, const rdma::EcnState& b) {
                       return a.cnp_priority() == b.cnp_priority() &&
                              knob(a, "np_cnp_prio_mode") == knob(b, "np_cnp_prio_mode");
                     });
    case Setting::Dcqcn:
      return compare(observed.ecn, now.ecn, change.key,
                     [&](const rdma::EcnState& a, const rdma::EcnState& b) {
                       return knob(a, change.key) == knob(b, change.key);
                     });
    case Setting::RdmaCmMode:
      return compare(
          observed.rdma_cm, now.rdma_cm, "the rdma_cm RoCE mode",
          [](const auto& a, const auto& b) { return a.effective_mode() == b.effective_mode(); });
    case Setting::RdmaCmTos:
      return compare(
          observed.rdma_cm, now.rdma_cm, "the rdma_cm ToS",
          [](const auto& a, const auto& b) { return a.effective_tos() == b.effective_tos(); });
    default:
      break;
  }
  return "unknown setting";
}

}  // namespace roced::apply::detail
