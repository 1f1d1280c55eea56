// SPDX-License-Identifier: Apache-2.0
// roced.yaml's ECN and rdma_cm keys, each read and checked alone. ecn.dcqcn knobs replace only
// the knobs they name.
#include <algorithm>

#include "daemon/settings/profile_reader.hpp"
#include "daemon/settings/spec_rdma.hpp"
#include "daemon/yaml/suggest.hpp"
#include "rdma/ecn_knobs.hpp"

namespace roced::settings {

void Spec<Setting::EcnPriorities>::read(ProfileReader& r, const yaml::Entry& e) {
  if (e.value.IsNull()) {  // explicitly empty: leave per-priority ECN to the driver
    r.profile.ecn.enabled_priorities.reset();
    r.mark("ecn.priorities", e.value_at);
  } else if (auto mask = r.reader.priority_mask(e.value, e.value_at, r.path("ecn.priorities"))) {
    r.profile.ecn.enabled_priorities = *mask;
    r.mark("ecn.priorities", e.value_at);
  }
}

void Spec<Setting::CnpDscp>::read(ProfileReader& r, const yaml::Entry& e) {
  if (auto dscp = r.reader.integer(e.value, e.value_at, r.path("ecn.cnp_dscp"), 0, 63,
                                   "a DSCP value (0-63)")) {
    r.profile.ecn.cnp_dscp = static_cast<uint8_t>(*dscp);
    r.mark("ecn.cnp_dscp", e.value_at);
  }
}

void Spec<Setting::CnpPriority>::read(ProfileReader& r, const yaml::Entry& e) {
  if (auto priority = r.reader.integer(e.value, e.value_at, r.path("ecn.cnp_priority"), 0, 7,
                                       "a priority (0-7)")) {
    r.profile.ecn.cnp_priority = static_cast<uint8_t>(*priority);
    r.mark("ecn.cnp_priority", e.value_at);
  }
}

void Spec<Setting::Dcqcn>::read(ProfileReader& r, const yaml::Entry& entry) {
  const auto& known = rdma::known_dcqcn_knobs();
  r.reader.entries(entry.value, entry.value_at, r.path("ecn.dcqcn"), {}, [&](const yaml::Entry& e) {
    const std::string where = r.path("ecn.dcqcn." + e.key);
    if (e.key == "np_cnp_dscp" || e.key == "np_cnp_prio" || e.key == "np_cnp_prio_mode") {
      r.diagnostics().error(e.key_at, where,
                            "the CNP's DSCP and priority are set by ecn.cnp_dscp and "
                            "ecn.cnp_priority, not as DCQCN knobs");
      return;
    }
    if (std::find(known.begin(), known.end(), e.key) == known.end()) {
      r.diagnostics().error(e.key_at, where,
                            "unknown DCQCN knob '" + e.key + "'" +
                                yaml::did_you_mean(e.key, known) +
                                "; knobs use the upstream cc_params names (rp_*, "
                                "np_min_time_between_cnps)");
      return;
    }
    // cc_params files take a u32 (mlx5_ib_set_cc_params) and keep the field's bits of it.
    const uint64_t max = rdma::dcqcn_knob_max(e.key);
    const std::string what =
        max == 1 ? "0 or 1 (a one-bit field)" : "a knob value (0-" + std::to_string(max) + ")";
    if (auto value =
            r.reader.integer(e.value, e.value_at, where, 0, static_cast<int64_t>(max), what)) {
      r.profile.ecn.dcqcn[e.key] = static_cast<uint64_t>(*value);
      r.mark("ecn.dcqcn." + e.key, e.key_at);
    }
  });
}

void Spec<Setting::RdmaCmMode>::read(ProfileReader& r, const yaml::Entry& e) {
  if (auto mode = r.reader.choice(e.value, e.value_at, r.path("roce.rdma_cm_mode"), {"v2", "v1"})) {
    r.profile.roce.rdma_cm_mode = *mode == "v2" ? "RoCE v2" : "IB/RoCE v1";
    r.mark("roce.rdma_cm_mode", e.value_at);
  }
}

void Spec<Setting::RdmaCmTos>::read(ProfileReader& r, const yaml::Entry& e) {
  if (auto tos = r.reader.integer(e.value, e.value_at, r.path("roce.tos"), 0, 255,
                                  "a ToS byte (0-255; DSCP << 2 | ECN)")) {
    r.profile.roce.tos = static_cast<uint8_t>(*tos);
    r.mark("roce.tos", e.value_at);
  }
}

}  // namespace roced::settings
