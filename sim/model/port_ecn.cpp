// SPDX-License-Identifier: Apache-2.0
// DCQCN knobs (drivers/infiniband/hw/mlx5/cong.c for the inbox debugfs cc_params; the OFED
// ecn/ sysfs tree carries the same values under its own names).
#include <cerrno>

#include "sim/model/port.hpp"

namespace roce_sim {
namespace {

struct ParamLimit {
  const char* name;
  uint32_t max;
};

// Upper bounds: the field widths of mlx5_ifc cong_control_r_roce_ecn_{rp,np} / roce_general
// (1, 3 and 6-bit fields), plus the documented ranges of the DCQCN alpha/g/decrease factor.
// The driver's MLX5_SET would silently truncate; the model rejects instead, so a bad write is
// visible (the server reverts the file).
constexpr ParamLimit kLimits[] = {
    {"rp_clamp_tgt_rate", 1},
    {"rp_clamp_tgt_rate_ati", 1},
    {"rp_time_reset", UINT32_MAX},
    {"rp_byte_reset", UINT32_MAX},
    {"rp_threshold", UINT32_MAX},
    {"rp_ai_rate", UINT32_MAX},
    {"rp_max_rate", UINT32_MAX},
    {"rp_hai_rate", UINT32_MAX},
    {"rp_min_dec_fac", 100},
    {"rp_min_rate", UINT32_MAX},
    {"rp_rate_to_set_on_first_cnp", UINT32_MAX},
    {"rp_dce_tcp_g", 1023},
    {"rp_dce_tcp_rtt", UINT32_MAX},
    {"rp_rate_reduce_monitor_period", UINT32_MAX},
    {"rp_initial_alpha_value", 1023},
    {"rp_gd", UINT32_MAX},
    {"np_min_time_between_cnps", UINT32_MAX},
    {"np_cnp_dscp", 63},
    {"np_cnp_prio_mode", 1},
    {"np_cnp_prio", 7},
    {"rtt_resp_dscp_valid", 1},
    {"rtt_resp_dscp", 63},
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
  for (const auto& limit : kLimits) {
    if (name != limit.name) continue;
    if (value > limit.max) return -EINVAL;
    ecn_.params[name] = value;
    // mlx5_ib_set_cc_param_mask_val side effects: a CNP priority forces prio mode 0, an RTT
    // response DSCP marks itself valid.
    if (name == "np_cnp_prio") ecn_.params["np_cnp_prio_mode"] = 0;
    if (name == "rtt_resp_dscp") ecn_.params["rtt_resp_dscp_valid"] = 1;
    return 0;
  }
  return -EINVAL;
}

}  // namespace roce_sim
