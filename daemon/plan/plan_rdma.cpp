// SPDX-License-Identifier: Apache-2.0
// The RDMA side: ECN/DCQCN in either driver flavour, rdma_cm defaults, the RoCE v2 GID index.
#include "daemon/plan/planner.hpp"
#include "rdma/ecn_knobs.hpp"

namespace roced::plan::detail {

namespace {

struct EcnSetting {
  Setting setting;
  std::string key;
};

// Every ECN setting the profile manages on this port, in Setting order.
std::vector<EcnSetting> managed_ecn_settings(const config::Profile& want) {
  std::vector<EcnSetting> out;
  if (want.ecn.enabled_priorities) out.push_back({Setting::EcnPriorities, {}});
  out.push_back({Setting::CnpDscp, {}});
  out.push_back({Setting::CnpPriority, {}});
  for (const auto& [name, value] : want.ecn.dcqcn) out.push_back({Setting::Dcqcn, name});
  return out;
}

void plan_ecn_priorities(PortPlanner& p, const rdma::EcnState& ecn) {
  const uint8_t want = *p.want.ecn.enabled_priorities;
  if (ecn.flavour == rdma::EcnFlavour::Inbox) {
    p.unsupported(Setting::EcnPriorities, "the inbox driver has no per-priority ECN enable");
    return;
  }
  if (!ecn.np_enabled || !ecn.rp_enabled) {
    p.unsupported(Setting::EcnPriorities, "no ecn/roce_np|roce_rp/enable/ on this port");
    return;
  }
  // Both points: the receiver marks and sends CNPs (np), the sender slows down (rp).
  if (*ecn.np_enabled == want && *ecn.rp_enabled == want) return;
  const std::string now = *ecn.np_enabled == *ecn.rp_enabled
                              ? describe::priorities(*ecn.np_enabled)
                              : "np " + describe::priorities(*ecn.np_enabled) + " rp " +
                                    describe::priorities(*ecn.rp_enabled);
  p.change(Setting::EcnPriorities, now, describe::priorities(want));
}

void plan_cnp_dscp(PortPlanner& p, const rdma::EcnState& ecn) {
  const auto dscp = ecn.cnp_dscp();
  if (!dscp) {
    p.unsupported(Setting::CnpDscp, "the " + rdma::ecn_flavour_name(ecn.flavour) +
                                        " driver shows no CNP DSCP knob on this port");
    return;
  }
  if (*dscp == p.want.ecn.cnp_dscp) return;
  p.change(Setting::CnpDscp, std::to_string(*dscp), std::to_string(p.want.ecn.cnp_dscp));
}

// Inbox: np_cnp_prio applies only while np_cnp_prio_mode is 0 (cong.c writes mode 0 with every
// np_cnp_prio write). A matching priority under mode 1 is therefore no match: the change stands,
// and the applier writes mode 0 first.
void plan_cnp_priority(PortPlanner& p, const rdma::EcnState& ecn) {
  const auto priority = ecn.cnp_priority();
  if (!priority) {
    p.unsupported(Setting::CnpPriority, "the " + rdma::ecn_flavour_name(ecn.flavour) +
                                            " driver shows no CNP priority knob on this port");
    return;
  }
  std::optional<uint64_t> mode;
  if (ecn.flavour == rdma::EcnFlavour::Inbox) {
    if (auto it = ecn.np_params.find("np_cnp_prio_mode"); it != ecn.np_params.end()) {
      mode = it->second;
    }
  }
  const bool in_effect = !mode || *mode == 0;
  if (*priority == p.want.ecn.cnp_priority && in_effect) return;
  std::string now = std::to_string(*priority);
  if (!in_effect) now += " (np_cnp_prio_mode " + std::to_string(*mode) + ": not in effect)";
  p.change(Setting::CnpPriority, now, std::to_string(p.want.ecn.cnp_priority));
}

void plan_dcqcn(PortPlanner& p, const rdma::EcnState& ecn) {
  const auto knobs = rdma::knobs_by_upstream_name(ecn);
  for (const auto& [name, want] : p.want.ecn.dcqcn) {
    auto it = knobs.find(name);
    if (it == knobs.end()) {
      p.unsupported(Setting::Dcqcn,
                    "the " + rdma::ecn_flavour_name(ecn.flavour) + " driver has no " + name +
                        " knob on this port",
                    name);
      continue;
    }
    if (it->second != want) {
      p.change(Setting::Dcqcn, std::to_string(it->second), std::to_string(want), name);
    }
  }
}

}  // namespace

void plan_ecn(PortPlanner& p) {
  const auto settings = managed_ecn_settings(p.want);
  if (!p.have.ecn.ok()) {
    for (const auto& s : settings) p.need(p.have.ecn, s.setting, "ECN/DCQCN", s.key);
    return;
  }
  const rdma::EcnState& ecn = *p.have.ecn.value;
  if (ecn.flavour == rdma::EcnFlavour::None) {
    for (const auto& s : settings) {
      p.unsupported(s.setting,
                    "no ECN/DCQCN knobs on this port (neither debugfs mlx5/<pci>/cc_params nor "
                    "/sys/class/net/" +
                        p.out.port.netdev + "/ecn; is debugfs mounted?)",
                    s.key);
    }
    return;
  }
  if (p.want.ecn.enabled_priorities) plan_ecn_priorities(p, ecn);
  plan_cnp_dscp(p, ecn);
  plan_cnp_priority(p, ecn);
  plan_dcqcn(p, ecn);
}

void plan_rdma_cm(PortPlanner& p) {
  const auto* mode_read = p.need(p.have.rdma_cm, Setting::RdmaCmMode, "rdma_cm configfs");
  const auto* tos_read = p.need(p.have.rdma_cm, Setting::RdmaCmTos, "rdma_cm configfs");
  if (!mode_read || !tos_read) return;
  const rdma::RdmaCmDefaults& cm = *mode_read;
  const std::string mode = cm.effective_mode();
  if (mode != p.want.roce.rdma_cm_mode) {
    p.change(Setting::RdmaCmMode, cm.configured ? mode : mode + " (kernel default)",
             p.want.roce.rdma_cm_mode);
  }
  const int tos = cm.effective_tos();
  if (tos != p.want.roce.tos) {
    const std::string now = std::to_string(tos);
    p.change(Setting::RdmaCmTos, cm.configured ? now : now + " (kernel default)",
             std::to_string(p.want.roce.tos));
  }
}

void plan_gid(PortPlanner& p) {
  const Field<GidStatus>& gids = p.have.gids;
  if (!gids.ok()) {
    // No RDMA device is already reported by the rdma_cm settings; anything else is worth a word.
    if (!gids.unsupported_here()) p.warn("cannot read the GID table: " + gids.error);
    return;
  }
  const std::string& family = p.want.roce.gid_family;
  const auto entry = family == "ipv6"
                         ? rdma::roce_v2_ipv6_entry(gids.value->entries, p.out.port.netdev)
                         : rdma::roce_v2_ipv4_entry(gids.value->entries, p.out.port.netdev);
  const auto& jobs_use = p.want.roce.gid_index;
  if (!entry) {
    std::string warning = "no RoCE v2 GID with an " +
                          std::string(family == "ipv6" ? "IPv6" : "IPv4") + " address on " +
                          p.out.port.netdev;
    if (jobs_use) warning += ", the config says jobs use " + std::to_string(*jobs_use);
    p.warn(warning);
    return;
  }
  p.out.roce_v2_gid_index = entry->index;
  if (jobs_use && *jobs_use != entry->index) {
    p.warn("RoCE v2 GID index is " + std::to_string(entry->index) + ", the config says jobs use " +
           std::to_string(*jobs_use));
  }
}

}  // namespace roced::plan::detail
