// SPDX-License-Identifier: Apache-2.0
// The RDMA steps: per-priority ECN enable (OFED), CNP DSCP and priority, DCQCN knobs (either
// driver flavour, by upstream name), rdma_cm's configfs defaults.
#include "daemon/apply/steps.hpp"
#include "rdma/ecn_knobs.hpp"

namespace roced::apply::detail {

namespace {

Error not_read(const std::string& what) {
  return Error{ENODATA, what + " was not read before the change: nothing to restore"};
}

bool bit(uint8_t mask, int priority) { return (mask & (1u << priority)) != 0; }

// enable/<p> of one point ("np" or "rp") from `from` to `to`: only the priorities that differ.
Result<void> write_ecn_enable(Writer& w, const std::string& point, uint8_t from, uint8_t to) {
  for (int priority = 0; priority < dcb::kPriorities; ++priority) {
    if (bit(from, priority) == bit(to, priority)) continue;
    const bool on = bit(to, priority);
    auto written = w.write([&] { return w.device().set_ecn_enable(point, priority, on); });
    if (!written) return written;
  }
  return ok();
}

Step knob_step(std::vector<plan::Change> changes, rdma::EcnFlavour flavour, std::string name,
               uint64_t wanted, std::optional<uint64_t> observed) {
  return Step{std::move(changes),
              [=](Writer& w) {
                return w.write([&] { return w.device().set_ecn_knob(flavour, name, wanted); });
              },
              [=](Writer& w) -> Result<void> {
                if (!observed) return not_read(name);
                return w.write([&] { return w.device().set_ecn_knob(flavour, name, *observed); });
              }};
}

std::optional<uint64_t> param(const std::map<std::string, uint64_t>& params,
                              const std::string& name) {
  auto it = params.find(name);
  return it == params.end() ? std::nullopt : std::optional<uint64_t>(it->second);
}

}  // namespace

void ecn_priorities_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                         std::vector<Step>& out) {
  if (changes.empty() || !p.desired.ecn.enabled_priorities || !p.observed.ecn.value) return;
  const rdma::EcnState& ecn = *p.observed.ecn.value;
  const uint8_t wanted = *p.desired.ecn.enabled_priorities;
  const auto np = ecn.np_enabled;
  const auto rp = ecn.rp_enabled;
  out.push_back(Step{std::move(changes),
                     [=](Writer& w) -> Result<void> {
                       if (!np || !rp) return not_read("ecn/roce_np|roce_rp/enable/");
                       auto written = write_ecn_enable(w, "np", *np, wanted);
                       if (!written) return written;
                       return write_ecn_enable(w, "rp", *rp, wanted);
                     },
                     // Only the priorities the apply may have touched go back.
                     [=](Writer& w) -> Result<void> {
                       if (!np || !rp) return not_read("ecn/roce_np|roce_rp/enable/");
                       auto written = write_ecn_enable(w, "np", wanted, *np);
                       if (!written) return written;
                       return write_ecn_enable(w, "rp", wanted, *rp);
                     }});
}

void cnp_dscp_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                   std::vector<Step>& out) {
  if (changes.empty() || !p.observed.ecn.value) return;
  const rdma::EcnState& ecn = *p.observed.ecn.value;
  out.push_back(knob_step(std::move(changes), ecn.flavour, "np_cnp_dscp", p.desired.ecn.cnp_dscp,
                          ecn.cnp_dscp()));
}

// Inbox: np_cnp_prio takes effect only with np_cnp_prio_mode 0 (MLX5-FACTS.md): the mode goes to
// 0 first and, on the way back, returns after the priority (cong.c sets mode 0 with every
// np_cnp_prio write). OFED has no mode knob.
void cnp_priority_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                       std::vector<Step>& out) {
  if (changes.empty() || !p.observed.ecn.value) return;
  const rdma::EcnState& ecn = *p.observed.ecn.value;
  const auto flavour = ecn.flavour;
  const uint64_t wanted = p.desired.ecn.cnp_priority;
  const auto observed = ecn.cnp_priority();
  std::optional<uint64_t> mode;
  if (flavour == rdma::EcnFlavour::Inbox) mode = param(ecn.np_params, "np_cnp_prio_mode");
  const bool switch_mode = mode && *mode != 0;
  out.push_back(Step{
      std::move(changes),
      [=](Writer& w) -> Result<void> {
        PortDevice& device = w.device();
        if (switch_mode) {
          auto written =
              w.write([&] { return device.set_ecn_knob(flavour, "np_cnp_prio_mode", 0); });
          if (!written) return written;
        }
        return w.write([&] { return device.set_ecn_knob(flavour, "np_cnp_prio", wanted); });
      },
      [=](Writer& w) -> Result<void> {
        if (!observed) return not_read("np_cnp_prio");
        PortDevice& device = w.device();
        auto written =
            w.write([&] { return device.set_ecn_knob(flavour, "np_cnp_prio", *observed); });
        if (!written || !switch_mode) return written;
        return w.write([&] { return device.set_ecn_knob(flavour, "np_cnp_prio_mode", *mode); });
      }});
}

void dcqcn_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                std::vector<Step>& out) {
  if (changes.empty() || !p.observed.ecn.value) return;
  const std::string name = changes.front().key;
  auto wanted = p.desired.ecn.dcqcn.find(name);
  if (wanted == p.desired.ecn.dcqcn.end()) return;
  const auto knobs = rdma::knobs_by_upstream_name(*p.observed.ecn.value);
  out.push_back(knob_step(std::move(changes), p.observed.ecn.value->flavour, name, wanted->second,
                          param(knobs, name)));
}

namespace {

// One rdma_cm default: the configfs group made if absent, then the value written. `set` is the
// PortDevice call for it; `observed` what rdma_cm used before (an absent group is put "back" by
// writing rdma_cm's defaults into the group the apply made: configfs groups are not removed).
template <class T, class Set>
Step rdma_cm_step(std::vector<plan::Change> changes, T wanted, std::optional<T> observed, Set set) {
  return Step{std::move(changes),
              [wanted, set](Writer& w) -> Result<void> {
                PortDevice& device = w.device();
                if (auto made = w.write([&] { return device.make_rdma_cm_group(); }); !made) {
                  return made;
                }
                return w.write([&] { return set(device, wanted); });
              },
              [observed, set](Writer& w) -> Result<void> {
                if (!observed) return not_read("rdma_cm");
                return w.write([&] { return set(w.device(), *observed); });
              }};
}

}  // namespace

void rdma_cm_mode_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                       std::vector<Step>& out) {
  if (changes.empty()) return;
  const auto& cm = p.observed.rdma_cm.value;
  out.push_back(rdma_cm_step(
      std::move(changes), p.desired.roce.rdma_cm_mode,
      cm ? std::optional(cm->effective_mode()) : std::nullopt,
      [](PortDevice& device, const std::string& mode) { return device.set_rdma_cm_mode(mode); }));
}

void rdma_cm_tos_step(const plan::PortPlan& p, std::vector<plan::Change> changes,
                      std::vector<Step>& out) {
  if (changes.empty()) return;
  const auto& cm = p.observed.rdma_cm.value;
  out.push_back(
      rdma_cm_step(std::move(changes), static_cast<int>(p.desired.roce.tos),
                   cm ? std::optional(cm->effective_tos()) : std::nullopt,
                   [](PortDevice& device, int tos) { return device.set_rdma_cm_tos(tos); }));
}

}  // namespace roced::apply::detail
