// SPDX-License-Identifier: Apache-2.0
// Each check states one assumption with the driver function it was read from, then holds the
// observation against it. A read that failed makes the check cannot_tell with the error: the
// report then says why, and a person can ask again as root or without lockdown.
#include "qualify/read_checks.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <set>
#include <sstream>

#include "driver/detect.hpp"
#include "qualify/check_kinds.hpp"
#include "telemetry/wrap.hpp"

namespace roced::qualify {
namespace {

using Names = std::vector<std::string>;

bool has(const Names& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

Check make(const finding::Kind& kind) {
  Check check = finding::make(kind, {}, {}, std::string(kind.meaning));
  check.verdict = Verdict::CannotTell;
  return check;
}

Check judged(Check check, bool holds, std::string evidence) {
  check.verdict = holds ? Verdict::Holds : Verdict::Differs;
  check.found = evidence;
  check.text = std::move(evidence);
  return check;
}

Check unknown(Check check, std::string why) {
  check.verdict = Verdict::CannotTell;
  check.found = why;
  check.text = std::move(why);
  return check;
}

std::string join(const Names& names, size_t at_most = 12) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < at_most; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > at_most) out += ", ... (" + std::to_string(names.size()) + ")";
  return out;
}

std::string mask_text(unsigned mask) {
  std::string out;
  for (int p = 0; p < 8; ++p) {
    if (mask & (1u << p)) out += (out.empty() ? "" : ",") + std::to_string(p);
  }
  return out.empty() ? "none" : out;
}

driver::Detected detect_tree(const Observation& seen) {
  driver::HostFacts facts;
  if (seen.driver_info.ok()) {
    facts.driver = seen.driver_info->driver;
    facts.driver_version = seen.driver_info->version;
  }
  facts.kernel_release = seen.kernel_release;
  facts.kernel_version = seen.kernel_version;
  facts.ofed_sysfs = seen.ofed_sysfs;
  return driver::detect(facts);
}

Check driver_check(const Observation& seen) {
  Check check = make(kinds::kDriverIsMlx5);
  if (!seen.driver_info.ok()) return unknown(check, seen.driver_info.error().message);
  const DriverInfo& info = *seen.driver_info;
  const std::string flavour = driver_flavour(seen);
  std::string evidence = "driver " + info.driver + " " + info.version;
  if (!flavour.empty()) evidence += flavour == "inbox" ? " (inbox)" : " (NVIDIA's tree)";
  const driver::Detected tree = detect_tree(seen);
  evidence += ", tree " + std::string(driver::flavour_row(tree.flavour).name);
  if (!tree.version.empty()) evidence += " " + tree.version;
  if (tree.flavour == driver::Flavour::Unknown && !tree.evidence.empty()) {
    evidence += " (" + tree.evidence.back() + ")";
  }
  evidence += ", firmware " + info.firmware;
  if (!seen.hca_type.empty()) {
    const std::string model = model_of_hca_type(seen.hca_type);
    evidence += ", " + seen.hca_type + (model.empty() ? "" : " (" + model + ")");
  }
  return judged(check, info.driver == "mlx5_core", evidence);
}

Check link_check(const Observation& seen) {
  Check check = make(kinds::kLinkUp);
  if (!seen.link.ok()) return unknown(check, seen.link.error().message);
  if (!seen.link->carrier) return unknown(check, "no carrier: the link is down");
  if (!seen.speed_mbps) return unknown(check, "carrier up but no speed in sysfs");
  return judged(check, true,
                std::to_string(*seen.speed_mbps / 1000) + " Gb/s, MTU " +
                    std::to_string(seen.link->mtu) + " (max " + std::to_string(seen.link->max_mtu) +
                    ")");
}

Check dcbx_check(const Observation& seen) {
  Check check = make(kinds::kDcbxVersions);
  if (!seen.dcbx.ok()) return unknown(check, seen.dcbx.error().message);
  const unsigned mode = *seen.dcbx;
  const bool host = (mode & dcb::kDcbxHost) != 0;
  const unsigned versions = dcb::kDcbxVerCee | dcb::kDcbxVerIeee;
  const bool holds = (mode & dcb::kDcbxLldManaged) == 0 &&
                     (host ? (mode & dcb::kDcbxVerIeee) != 0 : (mode & versions) == versions);
  return judged(check, holds,
                "DCBX " + hex(mode) + ": " + (host ? "host mode" : "firmware agent (willing)"));
}

Check pfc_capability_check(const Observation& seen) {
  Check check = make(kinds::kPfcCapability);
  if (!seen.dcb.ok()) return unknown(check, seen.dcb.error().message);
  if (!seen.dcb->pfc) return unknown(check, "IEEE_GET carried no PFC");
  const auto& pfc = *seen.dcb->pfc;
  return judged(check, pfc.cap == 8,
                "pfc_cap " + std::to_string(pfc.cap) + ", PFC on " + mask_text(pfc.enabled_mask) +
                    ", delay " + std::to_string(pfc.delay));
}

Check ets_check(const Observation& seen) {
  Check check = make(kinds::kEtsClasses);
  if (!seen.dcb.ok()) return unknown(check, seen.dcb.error().message);
  if (!seen.dcb->ets) return unknown(check, "IEEE_GET carried no ETS");
  const dcb::Ets& ets = *seen.dcb->ets;
  bool holds = ets.ets_cap == 8;
  std::string tsa, prio_tc, bw;
  for (size_t tc = 0; tc < 8; ++tc) {
    const dcb::Tsa kind = ets.tc_tsa[tc];
    holds =
        holds && (kind == dcb::Tsa::Strict || kind == dcb::Tsa::Ets || kind == dcb::Tsa::Vendor);
    holds = holds && ets.prio_tc[tc] < 8;
    tsa += (tc ? " " : "") + std::string(dcb::kTsaNames.name(kind, "?"));
    prio_tc += (tc ? " " : "") + std::to_string(ets.prio_tc[tc]);
    bw += (tc ? " " : "") + std::to_string(ets.tc_tx_bw[tc]);
  }
  return judged(check, holds,
                "ets_cap " + std::to_string(ets.ets_cap) + ", tsa [" + tsa + "], bw [" + bw +
                    "], prio_tc [" + prio_tc + "]");
}

Check statistics_check(const Observation& seen) {
  Check check = make(kinds::kStatisticsConsistent);
  if (!seen.stat_names.ok()) return unknown(check, seen.stat_names.error().message);
  if (!seen.stat_values.ok()) return unknown(check, seen.stat_values.error().message);
  const Names& names = *seen.stat_names;
  const size_t unique = std::set<std::string>(names.begin(), names.end()).size();
  return judged(check, unique == names.size() && *seen.stat_values == names.size(),
                std::to_string(names.size()) + " names (" + std::to_string(unique) +
                    " different), " + std::to_string(*seen.stat_values) + " values");
}

Check pause_counters_check(const Observation& seen) {
  Check check = make(kinds::kPauseCountersFollowPfc);
  if (!seen.dcb.ok() || !seen.dcb->pfc) {
    return unknown(check, seen.dcb.ok() ? "no PFC in IEEE_GET" : seen.dcb.error().message);
  }
  if (!seen.stat_names.ok()) return unknown(check, seen.stat_names.error().message);
  Names wrong;
  for (int p = 0; p < 8; ++p) {
    const bool pfc = (seen.dcb->pfc->enabled_mask >> p) & 1;
    for (const char* dir : {"rx", "tx"}) {
      for (const char* what : {"_pause", "_pause_duration"}) {
        const std::string name = std::string(dir) + "_prio" + std::to_string(p) + what;
        if (has(*seen.stat_names, name) != pfc) wrong.push_back(name + (pfc ? " missing" : ""));
      }
    }
  }
  return judged(check, wrong.empty(),
                wrong.empty() ? "pause counters for PFC priorities " +
                                    mask_text(seen.dcb->pfc->enabled_mask) + " only"
                              : "unexpected: " + join(wrong));
}

// The names roced's sampler reads whatever PFC is (en_stats.c per-priority traffic group and the
// port-level ones of counters.rst).
Check sampled_counters_check(const Observation& seen) {
  Check check = make(kinds::kSampledCountersPresent);
  if (!seen.stat_names.ok()) return unknown(check, seen.stat_names.error().message);
  Names wanted = {"rx_discards_phy", "tx_discards_phy", "rx_pause_ctrl_phy", "tx_pause_ctrl_phy",
                  "rx_out_of_buffer"};
  for (int p = 0; p < 8; ++p) {
    const std::string prio = "_prio" + std::to_string(p);
    for (const char* what : {"_bytes", "_packets"}) {
      wanted.push_back("rx" + prio + what);
      wanted.push_back("tx" + prio + what);
    }
    wanted.push_back("rx" + prio + "_discards");
  }
  Names missing;
  for (const auto& name : wanted) {
    if (!has(*seen.stat_names, name)) missing.push_back(name);
  }
  Names optional;
  for (const char* name : {"tx_pause_storm_warning_events", "tx_pause_storm_error_events",
                           "rx_prio3_buf_discard", "rx_prio3_cong_discard", "rx_prio3_marked"}) {
    optional.push_back(std::string(name) + (has(*seen.stat_names, name) ? " yes" : " no"));
  }
  return judged(
      check, missing.empty(),
      (missing.empty() ? std::to_string(wanted.size()) + " present" : "missing: " + join(missing)) +
          "; optional: " + join(optional));
}

Check buffer_check(const Observation& seen) {
  Check check = make(kinds::kBufferCells);
  if (!seen.dcb.ok()) return unknown(check, seen.dcb.error().message);
  if (!seen.dcb->buffer) return unknown(check, "no buffer in IEEE_GET: no port buffer commands");
  const dcb::Buffer& buffer = *seen.dcb->buffer;
  bool cells = buffer.total_size > 0;
  std::string sizes;
  for (size_t i = 0; i < 8; ++i) {
    cells = cells && buffer.buffer_size[i] % dcb::kMlx5BufferCell == 0;
    sizes += (i ? " " : "") + std::to_string(buffer.buffer_size[i]);
  }
  // The cell itself shows only in a write's rounding, and a buffer write leaves mainline's driver
  // in manual-buffer mode until it reloads: --write does not make one.
  return judged(check, cells,
                "sizes [" + sizes + "] of " + std::to_string(buffer.total_size) +
                    " bytes, all multiples of 128 (the cell is 128 or a multiple of it)");
}

// The tunable and the two pause storm counters come with the same firmware capabilities
// (en_ethtool.c mlx5e_get_pfc_prevention_tout, en_stats.c NUM_PPORT_PFC_STALL_COUNTERS: PCAM
// pfcc_mask and DEBUG stall_detect): roced reads storms from the counters where the tunable is.
Check stall_prevention_check(const Observation& seen) {
  Check check = make(kinds::kStallPreventionRange);
  const bool counters =
      seen.stat_names.ok() && has(*seen.stat_names, "tx_pause_storm_warning_events");
  const std::string listed =
      seen.stat_names.ok()
          ? std::string(counters ? "; storm counters listed" : "; no storm counters listed")
          : std::string();
  if (!seen.stall_timeout.ok()) {
    if (seen.stall_timeout.error().is_unsupported()) {
      if (counters) return judged(check, false, "EOPNOTSUPP" + listed);
      return unknown(check,
                     "EOPNOTSUPP: this NIC has no stall prevention (roced reports it "
                     "unsupported and goes on)" +
                         listed);
    }
    return unknown(check, seen.stall_timeout.error().message);
  }
  const unsigned ms = *seen.stall_timeout;
  const bool in_range = ms == 0 || (ms >= 80 && ms <= 8000);
  return judged(check, in_range && (counters || !seen.stat_names.ok()),
                std::to_string(ms) + " ms" + listed);
}

Check dcqcn_check(const Observation& seen) {
  Check check = make(kinds::kDcqcnKnobs);
  const std::string lockdown =
      seen.lockdown ? " (kernel lockdown " + *seen.lockdown + ")" : std::string();
  if (!seen.ecn.ok()) return unknown(check, seen.ecn.error().message + lockdown);
  const rdma::EcnState& ecn = *seen.ecn;
  if (ecn.flavour == rdma::EcnFlavour::None) {
    if (seen.lockdown) {
      return unknown(check, "no knob readable: lockdown " + *seen.lockdown +
                                " closes debugfs files with write bits (fs/debugfs/file.c)");
    }
    return unknown(check, "no cc_params and no ecn/ directory (is debugfs mounted?)");
  }
  const std::string flavour = driver_flavour(seen);
  const std::string where = rdma::ecn_flavour_name(ecn.flavour);
  const bool holds = flavour.empty() || flavour == where;
  return judged(check, holds,
                where + " knobs at " + ecn.source + ": " +
                    std::to_string(ecn.np_params.size() + ecn.rp_params.size()) + " readable" +
                    (holds ? "" : ", but the driver looks " + flavour) + lockdown);
}

Check gid_check(const Observation& seen) {
  Check check = make(kinds::kGidTable);
  if (!seen.gids.ok()) return unknown(check, seen.gids.error().message);
  size_t v1 = 0, v2 = 0, other = 0, own_v2 = 0;
  std::optional<int> v2_ipv4;
  for (const auto& entry : *seen.gids) {
    if (entry.type == "RoCE v2") {
      ++v2;
      if (entry.ndev == seen.port.netdev && !entry.elsewhere) {
        ++own_v2;
        if (!v2_ipv4 && rdma::ipv4_of_mapped_gid(entry.gid)) v2_ipv4 = entry.index;
      }
    } else if (entry.type == "IB/RoCE v1") {
      ++v1;
    } else {
      ++other;
    }
  }
  std::string evidence = std::to_string(seen.gids->size()) + " entries";
  if (seen.gid_slots.ok()) evidence += " of " + std::to_string(*seen.gid_slots) + " slots";
  evidence += ": " + std::to_string(v2) + " RoCE v2, " + std::to_string(v1) + " v1";
  if (other) evidence += ", " + std::to_string(other) + " of another type";
  evidence += v2_ipv4 ? "; RoCE v2 IPv4 at index " + std::to_string(*v2_ipv4)
                      : "; no RoCE v2 IPv4 entry (no IPv4 address?)";
  return judged(check, own_v2 > 0 && other == 0, evidence);
}

Check rdma_cm_check(const Observation& seen) {
  Check check = make(kinds::kRdmaCmDefaults);
  if (!seen.rdma_cm.ok()) return unknown(check, seen.rdma_cm.error().message);
  const auto& cm = *seen.rdma_cm;
  return judged(check, true,
                cm.effective_mode() + ", ToS " + std::to_string(cm.effective_tos()) +
                    (cm.configured ? " (configfs group made)" : " (built-in: no configfs group)"));
}

Check hw_counter_check(const Observation& seen) {
  Check check = make(kinds::kHwCounterWidths);
  if (!seen.hw_counters.ok()) return unknown(check, seen.hw_counters.error().message);
  size_t narrow = 0, wide = 0, proven = 0;
  Names too_big;
  for (const auto& [name, value] : *seen.hw_counters) {
    if (telemetry::hw_counter_width(name) == telemetry::CounterWidth::bits32) {
      ++narrow;
      if (value > UINT32_MAX) too_big.push_back(name + "=" + std::to_string(value));
    } else {
      ++wide;
      if (value > UINT32_MAX) ++proven;
    }
  }
  if (seen.hw_counters->empty()) return unknown(check, "no hw_counters on this port");
  Names missing;
  for (const char* name : {"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled",
                           "out_of_buffer", "out_of_sequence", "packet_seq_err"}) {
    if (!seen.hw_counters->count(name)) missing.push_back(name);
  }
  std::string evidence = std::to_string(narrow) + " read as 32-bit, " + std::to_string(wide) +
                         " as 64-bit (" + std::to_string(proven) + " already past 2^32)";
  if (!missing.empty()) evidence += "; absent: " + join(missing);
  if (!too_big.empty()) evidence += "; past 2^32, so not 32-bit: " + join(too_big);
  return judged(check, too_big.empty(), evidence);
}

std::string micros(std::chrono::nanoseconds took) {
  return std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(took).count()) +
         " µs";
}

// roced reads every port's statistics once per sampling interval (1 s by default): on an 8-rail
// node a read well under 10 ms keeps the sampler far below a tenth of one core.
constexpr auto kGstatsBudget = std::chrono::milliseconds(10);

Check gstats_cost_check(const Observation& seen) {
  Check check = make(kinds::kGstatsCost);
  if (!seen.gstats_median) {
    return unknown(check, seen.stat_values.ok() ? "not timed" : seen.stat_values.error().message);
  }
  return judged(check, *seen.gstats_median < kGstatsBudget,
                "median " + micros(*seen.gstats_median) + ", longest " +
                    micros(seen.gstats_max.value_or(*seen.gstats_median)) + " over " +
                    std::to_string(kGstatsSamples) + " reads");
}

Check firmware_commands_check(const Observation& seen) {
  Check check = make(kinds::kFirmwareCommandCosts);
  if (!seen.firmware_commands.ok()) return unknown(check, seen.firmware_commands.error().message);
  std::vector<std::pair<std::string, FirmwareCommand>> busiest(seen.firmware_commands->begin(),
                                                               seen.firmware_commands->end());
  std::sort(busiest.begin(), busiest.end(),
            [](const auto& a, const auto& b) { return a.second.n > b.second.n; });
  Names lines;
  for (size_t i = 0; i < busiest.size() && i < 5; ++i) {
    lines.push_back(busiest[i].first + " n=" + std::to_string(busiest[i].second.n) + " average " +
                    micros(std::chrono::nanoseconds(busiest[i].second.average_ns)));
  }
  if (lines.empty()) return unknown(check, "no command issued yet");
  return judged(check, true, join(lines));
}

}  // namespace

std::string model_of_hca_type(const std::string& hca_type) {
  static constexpr std::array<std::pair<const char*, const char*>, 9> kModels = {{
      {"MT4119", "ConnectX-5"},
      {"MT4121", "ConnectX-5 Ex"},
      {"MT4123", "ConnectX-6"},
      {"MT4125", "ConnectX-6 Dx"},
      {"MT4127", "ConnectX-6 Lx"},
      {"MT4129", "ConnectX-7"},
      {"MT4131", "ConnectX-8"},
      {"MT41686", "BlueField-2"},
      {"MT41692", "BlueField-3"},
  }};
  for (const auto& [type, model] : kModels) {
    if (hca_type == type) return model;
  }
  return {};
}

std::string driver_flavour(const Observation& seen) {
  if (seen.ecn.ok() && seen.ecn->flavour == rdma::EcnFlavour::Ofed) return "ofed";
  if (!seen.driver_info.ok()) return {};
  const std::string& version = seen.driver_info->version;
  if (!seen.kernel_release.empty() && version == seen.kernel_release) return "inbox";
  // A kernel release has three numbers before any '-' ("6.1.0-27-amd64"); NVIDIA's versions two
  // ("24.10-1.1.4", MLNX_OFED's "5.8-1.0.1.1").
  const std::string numbers = version.substr(0, version.find('-'));
  const auto dots = std::count(numbers.begin(), numbers.end(), '.');
  if (dots >= 2) return "inbox";
  if (dots == 1 && version.find('-') != std::string::npos) return "ofed";
  return {};
}

std::vector<Check> read_checks(const Observation& seen) {
  return {driver_check(seen),
          link_check(seen),
          dcbx_check(seen),
          pfc_capability_check(seen),
          ets_check(seen),
          buffer_check(seen),
          statistics_check(seen),
          pause_counters_check(seen),
          sampled_counters_check(seen),
          stall_prevention_check(seen),
          dcqcn_check(seen),
          gid_check(seen),
          rdma_cm_check(seen),
          hw_counter_check(seen),
          gstats_cost_check(seen),
          firmware_commands_check(seen)};
}

std::optional<Check> read_check(const Observation& seen, const std::string& id) {
  for (auto& check : read_checks(seen)) {
    if (check.id == id) return check;
  }
  return std::nullopt;
}

PortFacts facts_of(const Observation& seen) {
  PortFacts facts;
  facts.netdev = seen.port.netdev;
  facts.rdma_device = seen.port.rdma_device;
  facts.rdma_port = seen.port.rdma_port;
  facts.pci = seen.port.pci;
  facts.uplink = seen.port.role == PortRole::Uplink;
  if (seen.driver_info.ok()) {
    facts.driver = seen.driver_info->driver;
    facts.driver_version = seen.driver_info->version;
    // mlx5e_ethtool_get_drvinfo: "%d.%d.%04d (%.16s)", the firmware then the board id.
    const std::string& firmware = seen.driver_info->firmware;
    facts.firmware = firmware.substr(0, firmware.find(' '));
  }
  facts.flavour = driver_flavour(seen);
  const driver::Detected tree = detect_tree(seen);
  facts.driver_tree = driver::flavour_row(tree.flavour).name;
  facts.driver_evidence = tree.evidence;
  facts.board_id = seen.board_id;
  facts.hca_type = seen.hca_type;
  facts.model = model_of_hca_type(seen.hca_type);
  // mlx5_ib's hca_type is "MT" and the PCI device ID in decimal: the same table without an RDMA
  // device (a LAG slave), from sysfs `device` ("0x1021"; anything else is left unread).
  unsigned device_id = 0;
  const std::string& device = seen.pci_device;
  const char* end = device.data() + device.size();
  const bool hex_id = facts.model.empty() && device.rfind("0x", 0) == 0 && [&] {
    const auto parsed = std::from_chars(device.data() + 2, end, device_id, 16);
    return parsed.ec == std::errc() && parsed.ptr == end;
  }();
  if (hex_id) {
    facts.hca_type = "MT" + std::to_string(device_id);
    facts.model = model_of_hca_type(facts.hca_type);
  }
  facts.speed_mbps = seen.speed_mbps;
  if (seen.link.ok()) {
    facts.mtu = seen.link->mtu;
    facts.max_mtu = seen.link->max_mtu;
  }
  facts.channels = seen.channels.value_or(0);
  if (seen.dcbx.ok()) facts.dcbx_host = (*seen.dcbx & dcb::kDcbxHost) != 0;
  if (seen.dcb.ok()) {
    facts.trust_dscp = dcb::trust_from_apps(seen.dcb->apps) == dcb::Trust::Dscp;
    facts.buffers = seen.dcb->buffer.has_value();
  }
  if (seen.stall_timeout.ok()) {
    facts.stall_prevention = true;
  } else if (seen.stall_timeout.error().is_unsupported()) {
    facts.stall_prevention = false;
  }
  if (seen.stat_names.ok()) {
    facts.statistics = *seen.stat_names;
    facts.pause_storm_events = has(facts.statistics, "tx_pause_storm_warning_events");
    facts.prio_discard_counters = has(facts.statistics, "rx_prio0_buf_discard");
  }
  if (seen.ecn.ok()) facts.ecn_flavour = rdma::ecn_flavour_name(seen.ecn->flavour);
  if (seen.lockdown) {
    facts.lockdown = *seen.lockdown;
    if (facts.ecn_flavour == "none") facts.ecn_flavour.clear();  // hidden, not absent
  }
  if (seen.gids.ok()) {
    for (const auto& entry : *seen.gids) {
      if (entry.type != "RoCE v2" || entry.ndev != seen.port.netdev || entry.elsewhere) continue;
      if (rdma::ipv4_of_mapped_gid(entry.gid)) {
        ++facts.ipv4_addresses;
      } else if (entry.gid.rfind("fe80:", 0) != 0) {
        ++facts.ipv6_addresses;
      }
    }
  }
  if (seen.hw_counters.ok()) {
    for (const auto& [name, value] : *seen.hw_counters) facts.hw_counters.push_back(name);
  }
  if (seen.firmware_commands.ok()) {
    const auto access = seen.firmware_commands->find("ACCESS_REG");
    if (access != seen.firmware_commands->end()) {
      facts.firmware_command_us = static_cast<uint32_t>((access->second.average_ns + 500) / 1000);
    }
  }
  if (seen.port.is_lag_slave()) {
    facts.lag_bond = seen.port.bond;
    facts.lag_device = seen.port.lag_device;
    facts.lag_mode = seen.lag_mode;
    facts.ipv4_addresses = seen.lag_ipv4_addresses;
  }
  return facts;
}

std::map<Verdict, size_t> tally(const Report& report) {
  std::map<Verdict, size_t> counts{
      {Verdict::Holds, 0}, {Verdict::Differs, 0}, {Verdict::CannotTell, 0}};
  for (const auto& port : report.ports) {
    for (const auto& check : port.checks) ++counts[check.verdict];
  }
  return counts;
}

}  // namespace roced::qualify
