// SPDX-License-Identifier: Apache-2.0
#include "rdma/ecn_knobs.hpp"

#include <array>

namespace roced::rdma {

namespace fs = std::filesystem;

namespace {

struct KnobName {
  const char* upstream;  // debugfs cc_params/<name> (drivers/infiniband/hw/mlx5/cong.c)
  const char* ofed;      // ecn/roce_rp|roce_np/<name>; nullptr: the OFED tree has no such file
  uint8_t bits = 32;     // the mlx5_ifc field's width: MLX5_SET keeps only these low bits
};

// In mlx5_ib_dbg_cc_types order. The OFED names are the mlx5_ifc field names that cong.c reads
// each upstream knob from (cong_control_r_roce_ecn_rp / _np), as the OFED sysfs files are named;
// the widths are those fields' (include/linux/mlx5/mlx5_ifc.h).
constexpr std::array<KnobName, 20> kKnobs = {{
    {"rp_clamp_tgt_rate", "clamp_tgt_rate", 1},
    {"rp_clamp_tgt_rate_ati", "clamp_tgt_rate_after_time_inc", 1},
    {"rp_time_reset", "rpg_time_reset"},
    {"rp_byte_reset", "rpg_byte_reset"},
    {"rp_threshold", "rpg_threshold"},
    {"rp_ai_rate", "rpg_ai_rate"},
    {"rp_max_rate", "rpg_max_rate"},
    {"rp_hai_rate", "rpg_hai_rate"},
    {"rp_min_dec_fac", "rpg_min_dec_fac"},
    {"rp_min_rate", "rpg_min_rate"},
    {"rp_rate_to_set_on_first_cnp", "rate_to_set_on_first_cnp"},
    {"rp_dce_tcp_g", "dce_tcp_g"},
    {"rp_dce_tcp_rtt", "dce_tcp_rtt"},
    {"rp_rate_reduce_monitor_period", "rate_reduce_monitor_period"},
    {"rp_initial_alpha_value", "initial_alpha_value"},
    {"rp_gd", "rpg_gd"},
    {"np_min_time_between_cnps", "min_time_between_cnps"},
    {"np_cnp_dscp", "cnp_dscp", 6},
    {"np_cnp_prio_mode", nullptr, 1},  // OFED sets the CNP priority without a mode switch
    {"np_cnp_prio", "cnp_802p_prio", 3},
}};

const KnobName* find_upstream(const std::string& name) {
  for (const auto& knob : kKnobs) {
    if (name == knob.upstream) return &knob;
  }
  return nullptr;
}

bool is_reaction_point(const std::string& upstream_name) {
  return upstream_name.rfind("rp_", 0) == 0;
}

}  // namespace

uint64_t dcqcn_knob_max(const std::string& upstream_name) {
  const KnobName* knob = find_upstream(upstream_name);
  const uint8_t bits = knob ? knob->bits : 32;
  return (uint64_t{1} << bits) - 1;
}

const std::vector<std::string>& known_dcqcn_knobs() {
  // The DCQCN thresholds and timers: the reaction point's rp_* and the notification point's
  // CNP pacing. The CNP DSCP and priority are settings of their own (ecn.cnp_dscp/cnp_priority).
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& knob : kKnobs) {
      const std::string name = knob.upstream;
      if (is_reaction_point(name) || name == "np_min_time_between_cnps") out.push_back(name);
    }
    return out;
  }();
  return names;
}

std::optional<fs::path> knob_path(EcnFlavour flavour, const std::string& pci,
                                  const std::string& netdev, const std::string& upstream_name) {
  const KnobName* knob = find_upstream(upstream_name);
  if (!knob) return std::nullopt;
  switch (flavour) {
    case EcnFlavour::Inbox:
      if (pci.empty()) return std::nullopt;
      return fs::path("/sys/kernel/debug/mlx5") / pci / "cc_params" / knob->upstream;
    case EcnFlavour::Ofed:
      if (!knob->ofed) return std::nullopt;
      // Beside enable/, where the OFED driver and roce-sim put them.
      return fs::path("/sys/class/net") / netdev / "ecn" /
             (is_reaction_point(upstream_name) ? "roce_rp" : "roce_np") / knob->ofed;
    case EcnFlavour::None:
      break;
  }
  return std::nullopt;
}

std::map<std::string, uint64_t> knobs_by_upstream_name(const EcnState& state) {
  std::map<std::string, uint64_t> out;
  if (state.flavour == EcnFlavour::Inbox) {
    out.insert(state.np_params.begin(), state.np_params.end());
    out.insert(state.rp_params.begin(), state.rp_params.end());
    return out;
  }
  if (state.flavour == EcnFlavour::Ofed) {
    for (const auto& knob : kKnobs) {
      if (!knob.ofed) continue;
      const auto& params = is_reaction_point(knob.upstream) ? state.rp_params : state.np_params;
      if (auto it = params.find(knob.ofed); it != params.end())
        out.emplace(knob.upstream, it->second);
    }
  }
  return out;
}

fs::path ecn_enable_path(const std::string& netdev, const std::string& point, int priority) {
  return fs::path("/sys/class/net") / netdev / "ecn" / ("roce_" + point) / "enable" /
         std::to_string(priority);
}

}  // namespace roced::rdma
