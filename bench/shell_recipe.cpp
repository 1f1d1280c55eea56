// SPDX-License-Identifier: Apache-2.0
#include "bench/shell_recipe.hpp"

#include <string>

namespace roced::bench {

namespace fs = std::filesystem;

namespace {

std::string quote(const std::string& text) {  // for sh: single quotes, ' as '\''
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string echo_into(const std::string& value, const fs::path& file) {
  return "echo " + quote(value) + " > " + quote(file.string()) + "\n";
}

}  // namespace

ShellRecipe shell_recipe(const std::vector<DiscoveredPort>& ports, const config::Profile& profile,
                         const fs::path& dir) {
  ShellRecipe recipe;
  recipe.apply = std::string("set -e\n") + kBookwormDcb;
  const config::Profile& p = profile;
  for (const DiscoveredPort& port : ports) {
    const std::string dev = port.netdev;
    std::string& a = recipe.apply;
    std::string& c = recipe.check;
    // DCB: one command per object, as the role's tasks are written.
    a += std::string("dcb dcbx set dev ") + dev +
         (p.dcbx == config::DcbxMode::Host ? " host ieee\n" : " lld-managed ieee\n");
    c += "dcb dcbx show dev " + dev + "\n";
    if (p.trust == dcb::Trust::Dscp) {
      a += "dcb app replace dev " + dev + " dscp-prio";
      for (int dscp = 0; dscp < 64; ++dscp) {
        a += " " + std::to_string(dscp) + ":" + std::to_string(p.dscp_map[dscp]);
      }
      a += "\n";
    } else {
      a += "dcb app flush dev " + dev + " dscp-prio\n";
    }
    c += "dcb app show dev " + dev + " dscp-prio\n";
    a += "dcb ets set dev " + dev + " prio-tc";
    for (int prio = 0; prio < 8; ++prio) {
      a += " " + std::to_string(prio) + ":" + std::to_string(p.ets.prio_tc[prio]);
    }
    a += " tc-tsa";
    for (int tc = 0; tc < 8; ++tc)
      a += " " + std::to_string(tc) + ":" + dcb::tsa_name(p.ets.tsa[tc]);
    a += " tc-bw";
    for (int tc = 0; tc < 8; ++tc) {
      a += " " + std::to_string(tc) + ":" + std::to_string(p.ets.bandwidth[tc]);
    }
    a += "\n";
    c += "dcb ets show dev " + dev + "\n";
    a += "dcb pfc set dev " + dev + " prio-pfc";
    for (int prio = 0; prio < 8; ++prio) {
      a += " " + std::to_string(prio) + ((p.pfc_priorities >> prio) & 1 ? ":on" : ":off");
    }
    a += " delay " + std::to_string(p.cable_length_m) + "\n";
    c += "dcb pfc show dev " + dev + "\n";
    if (p.buffers) {
      a += "dcb buffer set dev " + dev + " prio-buffer";
      for (int prio = 0; prio < 8; ++prio) {
        a += " " + std::to_string(prio) + ":" + std::to_string(p.buffers->prio2buffer[prio]);
      }
      a += " buffer-size";
      for (int b = 0; b < 8; ++b) {
        a += " " + std::to_string(b) + ":" + std::to_string(p.buffers->buffer_size[b]);
      }
      a += "\n";
      c += "dcb buffer show dev " + dev + "\n";
    }
    a += "ip link set dev " + dev + " mtu " + std::to_string(p.mtu) + "\n";
    c += "ip link show dev " + dev + "\n";
    a += "ethtool --set-tunable " + dev + " pfc-prevention-tout " +
         std::to_string(p.stall_prevention.tunable_value()) + "\n";
    c += "ethtool --get-tunable " + dev + " pfc-prevention-tout\n";

    // ECN: the inbox driver's debugfs knobs, or the OFED driver's sysfs ones.
    const fs::path cc = dir / "debug/mlx5" / port.pci / "cc_params";
    const fs::path np = dir / "sys/class/net" / dev / "ecn/roce_np";
    const fs::path rp = dir / "sys/class/net" / dev / "ecn/roce_rp";
    if (fs::exists(cc)) {
      // cong.c: np_cnp_prio takes effect with np_cnp_prio_mode 0.
      a += echo_into("0", cc / "np_cnp_prio_mode");
      a += echo_into(std::to_string(p.ecn.cnp_priority), cc / "np_cnp_prio");
      a += echo_into(std::to_string(p.ecn.cnp_dscp), cc / "np_cnp_dscp");
      c += "cat " + quote((cc / "np_cnp_prio_mode").string()) + " " +
           quote((cc / "np_cnp_prio").string()) + " " + quote((cc / "np_cnp_dscp").string()) + "\n";
      for (const auto& [knob, value] : p.ecn.dcqcn) {
        a += echo_into(std::to_string(value), cc / knob);
        c += "cat " + quote((cc / knob).string()) + "\n";
      }
      if (p.ecn.enabled_priorities) {
        recipe.not_covered.push_back(dev +
                                     ": ecn.priorities (the inbox driver has no per-priority "
                                     "ECN enable)");
      }
    } else if (fs::exists(np)) {
      a += echo_into("0", np / "cnp_prio_mode");
      a += echo_into(std::to_string(p.ecn.cnp_priority), np / "cnp_802p_prio");
      a += echo_into(std::to_string(p.ecn.cnp_dscp), np / "cnp_dscp");
      c += "cat " + quote((np / "cnp_prio_mode").string()) + " " +
           quote((np / "cnp_802p_prio").string()) + " " + quote((np / "cnp_dscp").string()) + "\n";
      if (p.ecn.enabled_priorities) {
        for (int prio = 0; prio < 8; ++prio) {
          const std::string on = (*p.ecn.enabled_priorities >> prio) & 1 ? "1" : "0";
          a += echo_into(on, np / "enable" / std::to_string(prio));
          a += echo_into(on, rp / "enable" / std::to_string(prio));
        }
        c += "cat " + quote((np / "enable").string()) + "/* " + quote((rp / "enable").string()) +
             "/*\n";
      }
      if (!p.ecn.dcqcn.empty()) {
        recipe.not_covered.push_back(dev + ": ecn.dcqcn (OFED knob names not mapped here)");
      }
    }

    // rdma_cm: configfs creates ports/<n> at mkdir; the simulated node a moment later.
    if (!port.rdma_device.empty()) {
      const fs::path group = dir / "config/rdma_cm" / port.rdma_device;
      const fs::path port_dir = group / "ports" / std::to_string(port.rdma_port);
      a += "[ -d " + quote(group.string()) + " ] || mkdir " + quote(group.string()) + "\n";
      a += "i=0; while [ ! -s " + quote((port_dir / "default_roce_tos").string()) +
           " ] && [ $i -lt 1000000 ]; do i=$((i+1)); done\n";
      a += echo_into(p.roce.rdma_cm_mode, port_dir / "default_roce_mode");
      a += echo_into(std::to_string(p.roce.tos), port_dir / "default_roce_tos");
      c += "cat " + quote((port_dir / "default_roce_mode").string()) + " " +
           quote((port_dir / "default_roce_tos").string()) + "\n";
    }
  }
  return recipe;
}

}  // namespace roced::bench
