// SPDX-License-Identifier: Apache-2.0
// The RDMA writes: per-priority ECN enable (OFED), CNP DSCP and priority, DCQCN knobs (either
// driver flavour, by upstream name), rdma_cm's configfs defaults.
#include "daemon/settings/spec_rdma.hpp"

#include <cerrno>

#include "rdma/ecn_knobs.hpp"

namespace roced::settings {

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

Writes knob_writes(rdma::EcnFlavour flavour, std::string name, uint64_t wanted,
                   std::optional<uint64_t> observed) {
  return Writes{[=](Writer& w) {
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

std::optional<Writes> FeatureSpec<Feature::EcnEnable>::writes(const WriteCtx& c) {
  if (!c.want.ecn.enabled_priorities || !c.observed.ecn.value) return std::nullopt;
  const rdma::EcnState& ecn = *c.observed.ecn.value;
  const uint8_t wanted = *c.want.ecn.enabled_priorities;
  const auto np = ecn.np_enabled;
  const auto rp = ecn.rp_enabled;
  return Writes{[=](Writer& w) -> Result<void> {
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
                }};
}

std::optional<Writes> FeatureSpec<Feature::CnpDscp>::writes(const WriteCtx& c) {
  if (!c.observed.ecn.value) return std::nullopt;
  const rdma::EcnState& ecn = *c.observed.ecn.value;
  return knob_writes(ecn.flavour, "np_cnp_dscp", c.want.ecn.cnp_dscp, ecn.cnp_dscp());
}

// Inbox: np_cnp_prio takes effect only with np_cnp_prio_mode 0 (cong.c:
// mlx5_ib_set_cc_param_mask_val sets mode 0 with every np_cnp_prio write): the mode goes to 0
// first and, on the way back, returns after the priority. OFED has no mode knob.
std::optional<Writes> FeatureSpec<Feature::CnpPriority>::writes(const WriteCtx& c) {
  if (!c.observed.ecn.value) return std::nullopt;
  const rdma::EcnState& ecn = *c.observed.ecn.value;
  const auto flavour = ecn.flavour;
  const uint64_t wanted = c.want.ecn.cnp_priority;
  const auto observed = ecn.cnp_priority();
  std::optional<uint64_t> mode;
  if (flavour == rdma::EcnFlavour::Inbox) mode = param(ecn.np_params, "np_cnp_prio_mode");
  const bool switch_mode = mode && *mode != 0;
  return Writes{
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
      }};
}

std::optional<Writes> FeatureSpec<Feature::DcqcnKnob>::writes(const WriteCtx& c) {
  if (!c.observed.ecn.value) return std::nullopt;
  const std::string name(c.instance);
  auto wanted = c.want.ecn.dcqcn.find(name);
  if (wanted == c.want.ecn.dcqcn.end()) return std::nullopt;
  const auto knobs = rdma::knobs_by_upstream_name(*c.observed.ecn.value);
  return knob_writes(c.observed.ecn.value->flavour, name, wanted->second, param(knobs, name));
}

namespace {

// One rdma_cm default: the configfs group made if absent, then the value written. `set` is the
// PortDevice call for it; `observed` what rdma_cm used before (an absent group is put "back" by
// writing rdma_cm's defaults into the group the apply made: configfs groups are not removed).
template <class T, class Set>
Writes rdma_cm_writes(T wanted, std::optional<T> observed, Set set) {
  return Writes{[wanted, set](Writer& w) -> Result<void> {
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

std::optional<Writes> FeatureSpec<Feature::RdmaCmMode>::writes(const WriteCtx& c) {
  const auto& cm = c.observed.rdma_cm.value;
  return rdma_cm_writes(
      c.want.roce.rdma_cm_mode, cm ? std::optional(cm->effective_mode()) : std::nullopt,
      [](PortDevice& device, const std::string& mode) { return device.set_rdma_cm_mode(mode); });
}

std::optional<Writes> FeatureSpec<Feature::RdmaCmTos>::writes(const WriteCtx& c) {
  const auto& cm = c.observed.rdma_cm.value;
  return rdma_cm_writes(static_cast<int>(c.want.roce.tos),
                        cm ? std::optional(cm->effective_tos()) : std::nullopt,
                        [](PortDevice& device, int tos) { return device.set_rdma_cm_tos(tos); });
}

}  // namespace roced::settings
