// SPDX-License-Identifier: Apache-2.0
#pragma once
// DCQCN knobs by one name in both driver flavours. roced.yaml and the Plan use the upstream
// cc_params names (drivers/infiniband/hw/mlx5/cong.c: "rp_ai_rate", "np_min_time_between_cnps",
// "np_cnp_dscp", "np_cnp_prio"); NVIDIA's out-of-tree driver calls them roce_rp/rpg_ai_rate,
// roce_np/min_time_between_cnps, roce_np/cnp_dscp, roce_np/cnp_802p_prio.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rdma/ecn.hpp"

namespace roced::rdma {

// Every upstream knob name roced knows, for validation and suggestions.
const std::vector<std::string>& known_dcqcn_knobs();
// The largest value a knob's field holds: cong.c stores a written value with MLX5_SET, which
// keeps the field's low bits, so a wider value would read back as something else.
uint64_t dcqcn_knob_max(const std::string& upstream_name);

// The real path of a knob on this port in this flavour; nullopt when the flavour has no such knob.
std::optional<std::filesystem::path> knob_path(EcnFlavour flavour, const std::string& pci,
                                               const std::string& netdev,
                                               const std::string& upstream_name);

// The knobs of an EcnState by upstream name, whichever flavour it was read from.
std::map<std::string, uint64_t> knobs_by_upstream_name(const EcnState& state);

// OFED only: /sys/class/net/<if>/ecn/roce_np|roce_rp/enable/<prio> ("np" or "rp").
std::filesystem::path ecn_enable_path(const std::string& netdev, const std::string& point,
                                      int priority);

}  // namespace roced::rdma
