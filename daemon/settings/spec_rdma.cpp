// SPDX-License-Identifier: Apache-2.0
// The RDMA writes: per-priority ECN enable (OFED), CNP DSCP and priority, DCQCN knobs (either
// driver flavour, by upstream name), rdma_cm's configfs defaults.
#include "daemon/settings/spec_rdma.hpp"

#include <cerrno>

#include "rdma/ecn_knobs.hpp"

namespace roced::settings {

namespace {

bool bit(uint8_t mask, int priority) { return (mask & (1u << priority)) != 0; }

// enable/<p> of one point ("np" or "rp") from `from` to `to`: only the priorities that differ.
std::vector<write::EcnEnable> ecn_enable_writes(const std::string& point, uint8_t from,
                                                uint8_t to) {
  std::vector<write::EcnEnable> out;
  for (int priority = 0; priority < dcb::kPriorities; ++priority) {
    if (bit(from, priority) == bit(to, priority)) continue;
    out.push_back({point, priority, bit(to, priority)});
  }
  return out;
}

Result<void> write_all(Writer& w, const std::vector<write::EcnEnable>& writes) {
  for (const auto& one : writes) {
    if (auto written = w.write(one); !written) return written;
  }
  return ok();
}

Writes knob_writes(rdma::EcnFlavour flavour, std::string name, uint64_t wanted,
                   std::optional<uint64_t> observed) {
  const write::EcnKnob knob{flavour, name, wanted};
  return Writes{[knob](Writer& w) { return w.write(knob); },
                observed ? knob.undo(*observed) : not_read(name)};
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
  if (!np || !rp) {  // neither written nor undone: the same error both ways
    const write::Undo unread = not_read("ecn/roce_np|roce_rp/enable/");
    return Writes{[unread](Writer& w) { return write::perform(unread, w); }, unread};
  }
  auto writes = ecn_enable_writes("np", *np, wanted);
  const auto rp_writes = ecn_enable_writes("rp", *rp, wanted);
  writes.insert(writes.end(), rp_writes.begin(), rp_writes.end());
  // Only the priorities the apply may have touched go back, each to what it read.
  write::Undo undo;
  for (const auto& one : writes) undo.then(one.undo(!one.enabled));
  return Writes{[writes](Writer& w) { return write_all(w, writes); }, undo};
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
  const write::EcnKnob priority{flavour, "np_cnp_prio", c.want.ecn.cnp_priority};
  const auto observed = ecn.cnp_priority();
  std::optional<uint64_t> mode;
  if (flavour == rdma::EcnFlavour::Inbox) mode = param(ecn.np_params, "np_cnp_prio_mode");
  const bool switch_mode = mode && *mode != 0;
  const write::EcnKnob mode_zero{flavour, "np_cnp_prio_mode", 0};
  write::Undo undo = observed ? priority.undo(*observed) : not_read("np_cnp_prio");
  if (switch_mode) undo.then(mode_zero.undo(*mode));
  return Writes{[=](Writer& w) -> Result<void> {
                  if (switch_mode) {
                    if (auto written = w.write(mode_zero); !written) return written;
                  }
                  return w.write(priority);
                },
                undo};
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

// One rdma_cm default: the configfs group made if absent, then the value written. `observed` is
// what rdma_cm used before (an absent group is put "back" by writing rdma_cm's defaults into the
// group the apply made: configfs groups are not removed, write::RdmaCmGroup::undo).
template <class W, class T>
Writes rdma_cm_writes(W wanted, std::optional<T> observed) {
  const write::RdmaCmGroup group;
  write::Undo undo = group.undo();
  undo.then(observed ? wanted.undo(*observed) : not_read("rdma_cm"));
  return Writes{[group, wanted](Writer& w) -> Result<void> {
                  if (auto made = w.write(group); !made) return made;
                  return w.write(wanted);
                },
                undo};
}

}  // namespace

std::optional<Writes> FeatureSpec<Feature::RdmaCmMode>::writes(const WriteCtx& c) {
  const auto& cm = c.observed.rdma_cm.value;
  return rdma_cm_writes(write::RdmaCmMode{c.want.roce.rdma_cm_mode},
                        cm ? std::optional(cm->effective_mode()) : std::nullopt);
}

std::optional<Writes> FeatureSpec<Feature::RdmaCmTos>::writes(const WriteCtx& c) {
  const auto& cm = c.observed.rdma_cm.value;
  return rdma_cm_writes(write::RdmaCmTos{static_cast<int>(c.want.roce.tos)},
                        cm ? std::optional(cm->effective_tos()) : std::nullopt);
}

}  // namespace roced::settings
