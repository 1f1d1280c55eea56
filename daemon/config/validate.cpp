// SPDX-License-Identifier: Apache-2.0
// Cross-setting rules: each catches a configuration that mlx5 would take without complaint but
// that leaves RoCE lossy, starved or refused later. Errors fail the load; warnings do not.
#include "daemon/config/validate.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <initializer_list>

#include "rdma/rdma_cm.hpp"

namespace roced::config::detail {

namespace {

// mlx5's lower bound for a lossless buffer at 40 Gbit/s, what no speed goes below (the planner
// checks the port's real speed).
uint32_t min_lossless_buffer(uint16_t cable_m, uint32_t mtu) {
  return dcb::mlx5_lossless_minimum(0, cable_m, mtu, 0);
}

std::string priorities_text(uint8_t mask) {
  std::string out;
  for (int p = 0; p < 8; ++p) {
    if (mask & (1u << p)) out += (out.empty() ? "" : ",") + std::to_string(p);
  }
  return out.empty() ? "none" : out;
}

class Rules {
 public:
  Rules(const FieldLocations& set_here, const std::vector<std::string>& unreadable,
        const std::string& prefix, bool is_override, Diagnostics& out)
      : set_here_(set_here),
        unreadable_(unreadable),
        prefix_(prefix),
        is_override_(is_override),
        out_(out) {}

  void error(std::initializer_list<std::string> fields, const std::string& message) {
    report(true, fields, message);
  }
  void warning(std::initializer_list<std::string> fields, const std::string& message) {
    report(false, fields, message);
  }

 private:
  void report(bool is_error, std::initializer_list<std::string> fields,
              const std::string& message) {
    for (const auto& field : fields) {
      if (is_unreadable(field)) return;
    }
    for (const auto& field : fields) {
      auto it = set_here_.find(field);
      if (it == set_here_.end()) continue;
      emit(is_error, it->second, field, message);
      return;
    }
    // Only the defaults are involved: `profile` owns the problem, an override inherits it.
    if (!is_override_) emit(is_error, {}, *fields.begin(), message);
  }
  // "pfc" failed: "pfc.priorities" is unknown too; "ets.tcs.6" failed: so is the sum of "ets.tcs".
  bool is_unreadable(const std::string& field) const {
    const auto starts_with = [](const std::string& text, const std::string& head) {
      return text.size() > head.size() && text.compare(0, head.size(), head) == 0 &&
             text[head.size()] == '.';
    };
    for (const auto& failed : unreadable_) {
      if (failed.empty() || failed == field || starts_with(field, failed) ||
          starts_with(failed, field)) {
        return true;
      }
    }
    return false;
  }
  void emit(bool is_error, Location at, const std::string& field, const std::string& message) {
    if (is_error) {
      out_.error(at, prefix_ + "." + field, message);
    } else {
      out_.warning(at, prefix_ + "." + field, message);
    }
  }

  const FieldLocations& set_here_;
  const std::vector<std::string>& unreadable_;
  const std::string& prefix_;
  bool is_override_;
  Diagnostics& out_;
};

std::string dscp_field(int dscp) { return "dscp_map." + std::to_string(dscp); }

void check_dcbx_and_trust(Rules& r, const Profile& p) {
  if (p.dcbx == DcbxMode::Firmware) {
    r.warning({"dcbx"},
              "with the firmware DCBX agent the switch can replace the PFC and ETS set here "
              "(the agent is willing); roced will report it as drift");
  }
  if (p.trust == dcb::Trust::Pcp) {
    r.warning({"trust", "dscp_map"},
              "with trust pcp a packet's priority is its VLAN PCP (untagged: priority 0): "
              "roced cannot check that RoCE lands on a PFC priority, and dscp_map is not used");
  }
  if (p.roce.rdma_cm_mode != "RoCE v2") {
    r.warning({"roce.rdma_cm_mode"},
              "RoCE v1 has no IP header: DSCP trust cannot classify it and it does not route "
              "beyond the L2 segment");
  }
}

void check_roce_is_lossless(Rules& r, const Profile& p) {
  if (p.pfc_priorities == 0) {
    r.warning({"pfc.priorities"},
              "no PFC priority: nothing is lossless, RoCE relies on ECN and retransmission alone");
    return;
  }
  if (p.trust != dcb::Trust::Dscp) return;
  const int dscp = p.roce.tos >> 2;
  const int priority = p.dscp_map[static_cast<size_t>(dscp)];
  if (p.pfc_priorities & (1u << priority)) return;
  r.error({"roce.tos", dscp_field(dscp), "pfc.priorities", "trust"},
          "RoCE traffic (roce.tos " + std::to_string(p.roce.tos) + " = DSCP " +
              std::to_string(dscp) + ") maps to priority " + std::to_string(priority) +
              ", which has no PFC (pfc.priorities: " + priorities_text(p.pfc_priorities) +
              "): RoCE would silently not be lossless");
}

// mlx5 makes a receive buffer lossless, with xoff/xon headroom, when a PFC priority maps to it
// (en/port_buffer.c update_buffer_lossy); a priority no DSCP reaches holds that for nothing.
void check_pfc_priorities_are_reached(Rules& r, const Profile& p) {
  if (p.trust != dcb::Trust::Dscp) return;
  for (int priority = 0; priority < 8; ++priority) {
    if ((p.pfc_priorities & (1u << priority)) == 0) continue;
    const bool reached = std::any_of(p.dscp_map.begin(), p.dscp_map.end(),
                                     [&](uint8_t mapped) { return mapped == priority; });
    if (reached) continue;
    r.warning({"pfc.priorities", "dscp_map"},
              "PFC is on priority " + std::to_string(priority) +
                  ", which no DSCP maps to (dscp_map): with trust dscp no IP packet lands "
                  "there, and its lossless headroom is reserved for nothing");
  }
}

void check_tos_ecn_bits(Rules& r, const Profile& p) {
  if ((p.roce.tos & 3) == 3) {
    r.warning({"roce.tos"}, "ToS " + std::to_string(p.roce.tos) +
                                " sets the ECN bits to CE (11): every RoCE packet leaves marked "
                                "as congested; use ECT(0), e.g. 106 for DSCP 26");
  }
}

void check_cnp(Rules& r, const Profile& p) {
  const int cnp = p.ecn.cnp_priority;
  if (p.pfc_priorities & (1u << cnp)) {
    r.error({"ecn.cnp_priority", "pfc.priorities"},
            "CNP priority " + std::to_string(cnp) +
                " has PFC: CNPs would be paused by the congestion they report; use a priority "
                "without PFC (the recipe: 6)");
  }
  if (p.trust == dcb::Trust::Dscp) {
    const int dscp = p.ecn.cnp_dscp;
    const int mapped = p.dscp_map[static_cast<size_t>(dscp)];
    if (mapped != cnp) {
      r.warning({"ecn.cnp_dscp", dscp_field(dscp), "ecn.cnp_priority"},
                "CNPs carry DSCP " + std::to_string(dscp) + ", which dscp_map maps to priority " +
                    std::to_string(mapped) + ", not cnp_priority " + std::to_string(cnp) +
                    ": receivers that trust DSCP queue them at priority " + std::to_string(mapped));
    }
  }
  const int tc = p.ets.prio_tc[static_cast<size_t>(cnp)];
  if (p.ets.tsa[static_cast<size_t>(tc)] != dcb::Tsa::Strict) {
    r.warning({"ecn.cnp_priority", "ets.prio_tc", "ets.tcs." + std::to_string(tc)},
              "CNP priority " + std::to_string(cnp) + " is on TC " + std::to_string(tc) +
                  ", which is not strict: CNPs can queue behind the traffic they should slow "
                  "down");
  }
}

void check_ets(Rules& r, const Profile& p) {
  int sum = 0;
  bool any_ets = false;
  std::string terms;
  for (size_t tc = 0; tc < 8; ++tc) {
    if (p.ets.tsa[tc] != dcb::Tsa::Ets) continue;
    any_ets = true;
    sum += p.ets.bandwidth[tc];
    terms += (terms.empty() ? "" : " + ") + std::string("TC") + std::to_string(tc) + " " +
             std::to_string(p.ets.bandwidth[tc]);
  }
  if (any_ets && sum != 100) {
    r.error({"ets.tcs"}, "the ets TCs' bandwidths add up to " + std::to_string(sum) +
                             ", not 100 (" + terms + "); mlx5 refuses such an ETS (-EINVAL)");
  }
  for (int priority = 0; priority < 8; ++priority) {
    if (!(p.pfc_priorities & (1u << priority))) continue;
    const size_t tc = p.ets.prio_tc[static_cast<size_t>(priority)];
    if (p.ets.tsa[tc] == dcb::Tsa::Strict) {
      r.warning({"pfc.priorities", "ets.prio_tc", "ets.tcs." + std::to_string(tc)},
                "lossless priority " + std::to_string(priority) + " is on strict TC " +
                    std::to_string(tc) +
                    ": its traffic goes before every ets TC and can starve them");
    }
    uint8_t lossy_sharing = 0;
    for (int other = 0; other < 8; ++other) {
      if (p.ets.prio_tc[static_cast<size_t>(other)] == tc && !(p.pfc_priorities & (1u << other))) {
        lossy_sharing = static_cast<uint8_t>(lossy_sharing | (1u << other));
      }
    }
    if (lossy_sharing) {
      r.warning({"ets.prio_tc", "pfc.priorities"},
                "TC " + std::to_string(tc) + " carries lossless priority " +
                    std::to_string(priority) + " and priorities without PFC (" +
                    priorities_text(lossy_sharing) +
                    "): they share one queue, so pauses for one hold back the others");
    }
  }
}

void check_mtu_cable_stall(Rules& r, const Profile& p) {
  // The recipe's floor is 4200; 4192 is the exact edge (4096 + the 96 bytes of RoCE v2 headers
  // iboe_get_mtu reserves), so 4192-4199 still gives 4096 but with no slack.
  if (const int path = rdma::roce_path_mtu(p.mtu); path < 4096) {
    r.warning({"mtu"},
              "MTU " + std::to_string(p.mtu) +
                  " is below 4200: the RoCE path MTU drops from 4096 to " +
                  (path ? std::to_string(path) : std::string("nothing (RoCE cannot run)")));
  } else if (p.mtu < 4200) {
    r.warning({"mtu"}, "MTU " + std::to_string(p.mtu) +
                           " is below 4200: the RoCE path MTU is still 4096, but only " +
                           std::to_string(p.mtu - 4096 - 96) +
                           " bytes above the RoCE v2 headers (the recipe keeps 8)");
  }
  if (p.cable_length_m > 100) {
    r.warning({"pfc.cable_length"},
              std::to_string(p.cable_length_m) +
                  " m is longer than any in-row cable: mlx5 sizes the Xoff headroom from it, so "
                  "check that it is the real length");
  }
  if (p.stall_prevention.mode == StallPrevention::Mode::Off && p.pfc_priorities != 0) {
    r.warning({"stall_prevention", "pfc.priorities"},
              "off: a host that stops receiving pauses its switch port forever, and the pause "
              "spreads through the fabric (PFC storm)");
  }
}

void check_ecn_priorities(Rules& r, const Profile& p) {
  if (!p.ecn.enabled_priorities) return;
  const auto lossless_without_ecn =
      static_cast<uint8_t>(p.pfc_priorities & ~*p.ecn.enabled_priorities);
  if (lossless_without_ecn) {
    r.warning({"ecn.priorities", "pfc.priorities"},
              "ECN is off on lossless priority " + priorities_text(lossless_without_ecn) +
                  ": DCQCN never slows senders there, congestion is held by PFC alone");
  }
}

// Both set: the floor above the ceiling is no rate a reaction point can keep (mlx5 takes each
// knob alone, in Mbit/s, and checks neither against the other).
void check_dcqcn_rates(Rules& r, const Profile& p) {
  const auto min = p.ecn.dcqcn.find("rp_min_rate");
  const auto max = p.ecn.dcqcn.find("rp_max_rate");
  if (min == p.ecn.dcqcn.end() || max == p.ecn.dcqcn.end() || min->second <= max->second) return;
  r.error({"ecn.dcqcn.rp_min_rate", "ecn.dcqcn.rp_max_rate"},
          "rp_min_rate " + std::to_string(min->second) + " Mbit/s is above rp_max_rate " +
              std::to_string(max->second) + " Mbit/s: DCQCN's floor must not exceed its ceiling");
}

void check_buffers(Rules& r, const Profile& p) {
  if (!p.buffers) return;
  const BufferProfile& b = *p.buffers;
  const uint32_t minimum = min_lossless_buffer(p.cable_length_m, p.mtu);
  for (size_t buffer = 0; buffer < 8; ++buffer) {
    const uint32_t size = b.buffer_size[buffer];
    if (size % dcb::kMlx5BufferCell != 0) {
      const uint32_t down = size / dcb::kMlx5BufferCell * dcb::kMlx5BufferCell;
      r.error({"buffers.size"},
              "buffer " + std::to_string(buffer) + " is " + std::to_string(size) +
                  " bytes; mlx5 keeps buffer sizes in 128-byte cells and would read it back as " +
                  std::to_string(down) + ", a change that never ends: use " + std::to_string(down) +
                  " or " + std::to_string(down + dcb::kMlx5BufferCell));
    }
    uint8_t lossless = 0;
    uint8_t lossy = 0;
    for (size_t priority = 0; priority < 8; ++priority) {
      if (b.prio2buffer[priority] != buffer) continue;
      const auto bit = static_cast<uint8_t>(1u << priority);
      (p.pfc_priorities & bit ? lossless : lossy) |= bit;
    }
    if (!lossless) continue;
    const std::string name = "buffer " + std::to_string(buffer);
    const std::string holds = " holds lossless priority " + priorities_text(lossless);
    if (b.buffer_size[buffer] == 0) {
      r.error({"buffers.size", "buffers.prio2buffer", "pfc.priorities"},
              name + holds +
                  " but its size is 0; mlx5 refuses a lossless buffer of size 0 "
                  "(-EINVAL)");
    } else if (b.buffer_size[buffer] < minimum) {
      r.error({"buffers.size", "buffers.prio2buffer", "pfc.priorities", "mtu", "pfc.cable_length"},
              name + holds + " but is " + std::to_string(b.buffer_size[buffer]) +
                  " bytes; mlx5 needs at least " + std::to_string(minimum) + " (Xoff for " +
                  std::to_string(p.cable_length_m) + " m and MTU " + std::to_string(p.mtu) +
                  " at 40 Gbit/s, one 9216-byte frame, one cell; more at higher speeds) and "
                  "would refuse it (-ENOMEM)");
    }
    if (lossy) {
      r.warning({"buffers.prio2buffer", "pfc.priorities"},
                name + holds + " and priority " + priorities_text(lossy) +
                    " without PFC: the lossy traffic shares the lossless headroom");
    }
  }
}

// mlx5e_dcbnl_ieee_setmaxrate (en_dcbnl.c) keeps a count of 100 Mbit/s units up to 25.5
// Gbit/s and of 1 Gbit/s units above (a u8 in mainline, up to 255 Gbit/s, which the planner checks
// per port; a u16 in NVIDIA's own tree); a rate between steps reads back rounded down. Kernels
// differ on where 25.6-25.9 Gbit/s go, so only whole steps are taken: every one of those reads
// back exactly on either.
bool mlx5_holds_maxrate(uint32_t mbps) {
  if (mbps == 0) return true;
  if (mbps <= 25500) return mbps % 100 == 0;
  return mbps >= 26000 && mbps <= 65535000 && mbps % 1000 == 0;
}

void check_maxrate(Rules& r, const Profile& p) {
  if (!p.maxrate_mbps) return;
  for (size_t tc = 0; tc < 8; ++tc) {
    const uint32_t mbps = (*p.maxrate_mbps)[tc];
    if (mlx5_holds_maxrate(mbps)) continue;
    r.error({"maxrate"}, "TC " + std::to_string(tc) + ": " + std::to_string(mbps) +
                             " Mbit/s is not a rate mlx5 holds: 100 to 25500 in steps of 100, "
                             "26000 and up in steps of 1000 (mainline mlx5 up to 255000), or 0 "
                             "for no cap");
  }
}

bool is_glob(const std::string& pattern) {
  return pattern.find_first_of("*?[") != std::string::npos;
}

bool matches(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

}  // namespace

void validate_profile(const Profile& profile, const FieldLocations& set_here,
                      const std::vector<std::string>& unreadable, const std::string& prefix,
                      bool is_override, Diagnostics& out) {
  Rules rules(set_here, unreadable, prefix, is_override, out);
  check_dcbx_and_trust(rules, profile);
  check_roce_is_lossless(rules, profile);
  check_pfc_priorities_are_reached(rules, profile);
  check_tos_ecn_bits(rules, profile);
  check_cnp(rules, profile);
  check_ets(rules, profile);
  check_mtu_cable_stall(rules, profile);
  check_ecn_priorities(rules, profile);
  check_dcqcn_rates(rules, profile);
  check_buffers(rules, profile);
  check_maxrate(rules, profile);
}

void validate_selection(const PortSelection& ports, const SelectionLocations& where,
                        Diagnostics& out) {
  // Installing the package or an empty file must not reconfigure (and flap) every port: roced
  // manages only what the operator named.
  if (ports.netdevs.empty() && where.netdev_entries == 0) {
    out.warning(
        where.netdevs.value_or(Location{}), "ports.netdevs",
        std::string(where.netdevs ? "empty" : "not given") + ": " + std::string(kNoPortsNamed));
  }
  if (where.drivers && ports.drivers.empty()) {
    out.warning(*where.drivers, "ports.drivers",
                "empty: ports of every driver are selected, not only mlx5_core");
  }
  for (size_t i = 0; i < ports.drivers.size() && i < where.driver_items.size(); ++i) {
    if (ports.drivers[i] != "mlx5_core") {
      out.warning(where.driver_items[i], "ports.drivers",
                  "'" + ports.drivers[i] +
                      "' is not mlx5_core: its ports get the MTU, rdma_cm defaults, GID checks "
                      "and telemetry; the mlx5-only settings (DCB, buffers, stall prevention, "
                      "ECN/DCQCN) are reported unsupported on them");
    }
  }
  for (size_t i = 0; i < ports.exclude.size() && i < where.exclude_items.size(); ++i) {
    const std::string& name = ports.exclude[i];
    if (std::find(ports.netdevs.begin(), ports.netdevs.end(), name) != ports.netdevs.end()) {
      out.warning(where.exclude_items[i], "ports.exclude",
                  name + " is both in netdevs and in exclude: it is excluded");
    }
  }
  for (size_t i = 0; i < where.overrides.size(); ++i) {
    // Not a structured binding: clang 14 (the fuzz and sanitizer builds) cannot capture one.
    const std::string& pattern = where.overrides[i].first;
    const Location& at = where.overrides[i].second;
    const std::string field = "overrides." + pattern;
    if (is_glob(pattern)) continue;
    const bool selected =
        (ports.netdevs.empty() ||
         std::any_of(ports.netdevs.begin(), ports.netdevs.end(),
                     [&](const std::string& p) { return matches(p, pattern); })) &&
        std::none_of(ports.exclude.begin(), ports.exclude.end(),
                     [&](const std::string& p) { return matches(p, pattern); });
    if (!selected) {
      out.warning(at, field,
                  pattern + " is not a port that ports selects: this override never applies");
      continue;
    }
    for (size_t earlier = 0; earlier < i; ++earlier) {
      if (matches(where.overrides[earlier].first, pattern)) {
        out.warning(at, field,
                    "never applies: " + pattern + " already matches the earlier override '" +
                        where.overrides[earlier].first + "' (the first match wins)");
        break;
      }
    }
  }
}

}  // namespace roced::config::detail
