// SPDX-License-Identifier: Apache-2.0
// DCQCN knobs (drivers/infiniband/hw/mlx5/cong.c for the inbox debugfs cc_params; the OFED
// ecn/ sysfs tree carries the same values under its own names).
#include <cerrno>

#include "sim/model/port.hpp"

namespace roce_sim {
namespace {

struct ParamField {
  const char* name;
  uint32_t bits;
};

// The field widths of include/linux/mlx5/mlx5_ifc.h cong_control_r_roce_ecn_rp / _np /
// roce_general: cong.c mlx5_ib_set_cc_param_mask_val stores a written value with MLX5_SET, which
// keeps its low bits, so a value too wide for the field is truncated, not refused.
constexpr ParamField kFields[] = {
    {"rp_clamp_tgt_rate", 1},
    {"rp_clamp_tgt_rate_ati", 1},
    {"rp_time_reset", 32},
    {"rp_byte_reset", 32},
    {"rp_threshold", 32},
    {"rp_ai_rate", 32},
    {"rp_max_rate", 32},
    {"rp_hai_rate", 32},
    {"rp_min_dec_fac", 32},
    {"rp_min_rate", 32},
    {"rp_rate_to_set_on_first_cnp", 32},
    {"rp_dce_tcp_g", 32},
    {"rp_dce_tcp_rtt", 32},
    {"rp_rate_reduce_monitor_period", 32},
    {"rp_initial_alpha_value", 32},
    {"rp_gd", 32},
    {"np_min_time_between_cnps", 32},
    {"np_cnp_dscp", 6},
    {"np_cnp_prio_mode", 1},
    {"np_cnp_prio", 3},
    {"rtt_resp_dscp_valid", 1},
    {"rtt_resp_dscp", 6},
};

}  // namespace

int Port::set_ecn_enabled(bool reaction_point, int priority, bool enabled) {
  if (!spec_.caps.ecn) return -EOPNOTSUPP;
  if (priority < 0 || priority > 7) return -EINVAL;
  auto& table = reaction_point ? ecn_.rp_enabled : ecn_.np_enabled;
  table[static_cast<size_t>(priority)] = enabled;
  return 0;
}

int Port::set_cc_param(const std::string& name, uint32_t value) {
  if (!spec_.caps.ecn) return -EOPNOTSUPP;
  for (const auto& field : kFields) {
    if (name != field.name) continue;
    if (field.bits < 32) value &= (uint32_t{1} << field.bits) - 1;
    ecn_.params[name] = value;
    // mlx5_ib_set_cc_param_mask_val side effects: a CNP priority forces prio mode 0, an RTT
    // response DSCP marks itself valid. MLNX_OFED's ecn/roce_np/cnp_802p_prio
    // (en_ecn.c mlx5e_store_cnp_802p_prio) selects the cnp_802p_prio field alone: the mode stays.
    if (name == "np_cnp_prio" && kernel_driver(spec_.flavour)) ecn_.params["np_cnp_prio_mode"] = 0;
    if (name == "rtt_resp_dscp") ecn_.params["rtt_resp_dscp_valid"] = 1;
    return 0;
  }
  return -EINVAL;
}

}  // namespace roce_sim
