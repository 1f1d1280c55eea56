// SPDX-License-Identifier: Apache-2.0
// Reads one profile section key by key. A key given replaces the base's value; dscp_map entries,
// ets.tcs entries and ecn.dcqcn knobs replace only the entries they name.
#include "daemon/config/read_profile.hpp"

#include <algorithm>
#include <cctype>

#include "daemon/config/suggest.hpp"
#include "rdma/ecn_knobs.hpp"

namespace roced::config::detail {

namespace {

const std::vector<std::string> kProfileKeys = {
    "dcbx",    "trust", "dscp_map",         "pfc",  "ets",    "mtu",
    "maxrate", "ecn",   "stall_prevention", "roce", "buffers"};
const std::vector<std::string> kPfcKeys = {"priorities", "cable_length"};
const std::vector<std::string> kEtsKeys = {"prio_tc", "tcs"};
const std::vector<std::string> kTcKeys = {"tsa", "bandwidth"};
const std::vector<std::string> kEcnKeys = {"priorities", "cnp_dscp", "cnp_priority", "dcqcn"};
const std::vector<std::string> kRoceKeys = {"rdma_cm_mode", "tos", "gid_family", "gid_index"};
const std::vector<std::string> kBufferKeys = {"prio2buffer", "size"};

// What each section reads: the reader, the profile being built, where fields were set.
struct Section {
  Reader& reader;
  Profile& profile;
  FieldLocations& set_here;
  const std::string& prefix;

  std::string path(const std::string& field) const { return prefix + "." + field; }
  void mark(const std::string& field, Location at) { set_here[field] = at; }
};

void read_dscp_map(Section& s, const Entry& entry) {
  s.mark("dscp_map", entry.key_at);
  s.reader.entries(entry.value, entry.value_at, s.path("dscp_map"), {}, [&](const Entry& e) {
    const auto dscp = s.reader.integer(YAML::Node(e.key), e.key_at, s.path("dscp_map"), 0, 63,
                                       "a DSCP value (0-63)");
    const auto priority = s.reader.integer(e.value, e.value_at, s.path("dscp_map." + e.key), 0, 7,
                                           "a priority (0-7)");
    if (!dscp || !priority) return;
    s.profile.dscp_map[static_cast<size_t>(*dscp)] = static_cast<uint8_t>(*priority);
    s.mark("dscp_map." + std::to_string(*dscp), e.key_at);
  });
}

void read_pfc(Section& s, const Entry& entry) {
  s.reader.entries(entry.value, entry.value_at, s.path("pfc"), kPfcKeys, [&](const Entry& e) {
    if (e.key == "priorities") {
      if (auto mask = s.reader.priority_mask(e.value, e.value_at, s.path("pfc.priorities"))) {
        s.profile.pfc_priorities = *mask;
        s.mark("pfc.priorities", e.value_at);
      }
    } else if (e.key == "cable_length") {
      // mlx5 takes ieee_pfc.delay as metres only within 1-999 and silently ignores the rest.
      if (auto metres = s.reader.integer(e.value, e.value_at, s.path("pfc.cable_length"), 1, 999,
                                         "a cable length in metres (1-999, mlx5's range)")) {
        s.profile.cable_length_m = static_cast<uint16_t>(*metres);
        s.mark("pfc.cable_length", e.value_at);
      }
    }
  });
}

void read_tc(Section& s, const Entry& tc_entry, int tc) {
  const std::string field = s.path("ets.tcs." + std::to_string(tc));
  std::optional<dcb::Tsa> tsa;
  std::optional<Location> tsa_at;
  std::optional<int64_t> bandwidth;
  std::optional<Location> bandwidth_at;
  bool ok = true;
  if (!tc_entry.value.IsMap()) {
    s.reader.diagnostics().error(tc_entry.value_at, field,
                                 "expected {tsa: ets|strict|vendor, bandwidth: 0-100}");
    return;
  }
  s.reader.entries(tc_entry.value, tc_entry.value_at, field, kTcKeys, [&](const Entry& e) {
    if (e.key == "tsa") {
      tsa_at = e.value_at;
      const auto name =
          s.reader.choice(e.value, e.value_at, field + ".tsa", {"ets", "strict", "vendor", "cbs"});
      if (!name) {
        ok = false;
      } else if (*name == "cbs") {
        // The IEEE credit-based shaper is a valid TSA, but mlx5 programs only the other three.
        s.reader.diagnostics().error(e.value_at, field + ".tsa",
                                     "mlx5 does not implement the cbs TSA; use ets, strict or "
                                     "vendor");
        ok = false;
      } else {
        tsa = *name == "ets" ? dcb::Tsa::Ets
                             : (*name == "strict" ? dcb::Tsa::Strict : dcb::Tsa::Vendor);
      }
    } else if (e.key == "bandwidth") {
      bandwidth_at = e.value_at;
      bandwidth = s.reader.integer(e.value, e.value_at, field + ".bandwidth", 0, 100,
                                   "a bandwidth share in percent (0-100)");
      if (!bandwidth) ok = false;
    }
  });
  if (!ok) return;
  // A TC given replaces the base's TC; without a tsa it is an ETS TC.
  const dcb::Tsa effective = tsa.value_or(dcb::Tsa::Ets);
  if (effective == dcb::Tsa::Ets && !bandwidth) {
    s.reader.diagnostics().error(tc_entry.value_at, field,
                                 "an ets TC needs a bandwidth (percent of the link under load)");
    return;
  }
  if (effective != dcb::Tsa::Ets && bandwidth) {
    s.reader.diagnostics().error(*bandwidth_at, field + ".bandwidth",
                                 "a " + dcb::tsa_name(effective) +
                                     " TC takes no bandwidth share (only ets TCs do); remove it");
    return;
  }
  s.profile.ets.tsa[static_cast<size_t>(tc)] = effective;
  s.profile.ets.bandwidth[static_cast<size_t>(tc)] = static_cast<uint8_t>(bandwidth.value_or(0));
  s.mark("ets.tcs." + std::to_string(tc), tc_entry.key_at);
}

void read_ets(Section& s, const Entry& entry) {
  s.reader.entries(entry.value, entry.value_at, s.path("ets"), kEtsKeys, [&](const Entry& e) {
    if (e.key == "prio_tc") {
      if (auto tcs = s.reader.eight_integers(e.value, e.value_at, s.path("ets.prio_tc"), 0, 7,
                                             "a traffic class (0-7)")) {
        for (size_t p = 0; p < 8; ++p) s.profile.ets.prio_tc[p] = static_cast<uint8_t>((*tcs)[p]);
        s.mark("ets.prio_tc", e.value_at);
      }
    } else if (e.key == "tcs") {
      s.reader.entries(e.value, e.value_at, s.path("ets.tcs"), {}, [&](const Entry& tc_entry) {
        const auto tc = s.reader.integer(YAML::Node(tc_entry.key), tc_entry.key_at,
                                         s.path("ets.tcs"), 0, 7, "a traffic class (0-7)");
        if (tc) read_tc(s, tc_entry, static_cast<int>(*tc));
      });
      // Any TC set makes the section party to the bandwidth sum, reported at `tcs:`.
      if (e.value.IsMap() && e.value.size() > 0) s.mark("ets.tcs", e.key_at);
    }
  });
}

void read_dcqcn(Section& s, const Entry& entry) {
  const auto& known = rdma::known_dcqcn_knobs();
  s.reader.entries(entry.value, entry.value_at, s.path("ecn.dcqcn"), {}, [&](const Entry& e) {
    const std::string field = s.path("ecn.dcqcn." + e.key);
    if (e.key == "np_cnp_dscp" || e.key == "np_cnp_prio" || e.key == "np_cnp_prio_mode") {
      s.reader.diagnostics().error(e.key_at, field,
                                   "the CNP's DSCP and priority are set by ecn.cnp_dscp and "
                                   "ecn.cnp_priority, not as DCQCN knobs");
      return;
    }
    if (std::find(known.begin(), known.end(), e.key) == known.end()) {
      s.reader.diagnostics().error(e.key_at, field,
                                   "unknown DCQCN knob '" + e.key + "'" +
                                       did_you_mean(e.key, known) +
                                       "; knobs use the upstream cc_params names (rp_*, "
                                       "np_min_time_between_cnps)");
      return;
    }
    // cc_params files take a u32 (mlx5_ib_set_cc_params) and keep the field's bits of it.
    const uint64_t max = rdma::dcqcn_knob_max(e.key);
    const std::string what =
        max == 1 ? "0 or 1 (a one-bit field)" : "a knob value (0-" + std::to_string(max) + ")";
    if (auto value =
            s.reader.integer(e.value, e.value_at, field, 0, static_cast<int64_t>(max), what)) {
      s.profile.ecn.dcqcn[e.key] = static_cast<uint64_t>(*value);
      s.mark("ecn.dcqcn." + e.key, e.key_at);
    }
  });
}

void read_ecn(Section& s, const Entry& entry) {
  s.reader.entries(entry.value, entry.value_at, s.path("ecn"), kEcnKeys, [&](const Entry& e) {
    if (e.key == "priorities") {
      if (e.value.IsNull()) {  // explicitly empty: leave per-priority ECN to the driver
        s.profile.ecn.enabled_priorities.reset();
        s.mark("ecn.priorities", e.value_at);
      } else if (auto mask =
                     s.reader.priority_mask(e.value, e.value_at, s.path("ecn.priorities"))) {
        s.profile.ecn.enabled_priorities = *mask;
        s.mark("ecn.priorities", e.value_at);
      }
    } else if (e.key == "cnp_dscp") {
      if (auto dscp = s.reader.integer(e.value, e.value_at, s.path("ecn.cnp_dscp"), 0, 63,
                                       "a DSCP value (0-63)")) {
        s.profile.ecn.cnp_dscp = static_cast<uint8_t>(*dscp);
        s.mark("ecn.cnp_dscp", e.value_at);
      }
    } else if (e.key == "cnp_priority") {
      if (auto priority = s.reader.integer(e.value, e.value_at, s.path("ecn.cnp_priority"), 0, 7,
                                           "a priority (0-7)")) {
        s.profile.ecn.cnp_priority = static_cast<uint8_t>(*priority);
        s.mark("ecn.cnp_priority", e.value_at);
      }
    } else if (e.key == "dcqcn") {
      read_dcqcn(s, e);
    }
  });
}

void read_stall_prevention(Section& s, const Entry& entry) {
  const std::string field = s.path("stall_prevention");
  const std::string what = "off, auto or a timeout in ms (80-8000)";
  if (entry.value.IsScalar() && (entry.value.Scalar() == "off" || entry.value.Scalar() == "auto")) {
    s.profile.stall_prevention = {
        entry.value.Scalar() == "off" ? StallPrevention::Mode::Off : StallPrevention::Mode::Auto,
        0};
    s.mark("stall_prevention", entry.value_at);
    return;
  }
  if (entry.value.IsScalar() && !entry.value.Scalar().empty() &&
      !std::isdigit(static_cast<unsigned char>(entry.value.Scalar()[0])) &&
      entry.value.Scalar()[0] != '-') {
    s.reader.diagnostics().error(entry.value_at, field,
                                 "'" + entry.value.Scalar() + "' is not " + what +
                                     did_you_mean(entry.value.Scalar(), {"off", "auto"}));
    return;
  }
  // mlx5 refuses other values with -EINVAL (0 is off and 0xffff auto: say so by name).
  if (auto ms = s.reader.integer(entry.value, entry.value_at, field, 80, 8000, what)) {
    s.profile.stall_prevention = {StallPrevention::Mode::Manual, static_cast<uint16_t>(*ms)};
    s.mark("stall_prevention", entry.value_at);
  }
}

void read_roce(Section& s, const Entry& entry) {
  s.reader.entries(entry.value, entry.value_at, s.path("roce"), kRoceKeys, [&](const Entry& e) {
    const std::string field = s.path("roce." + e.key);
    if (e.key == "rdma_cm_mode") {
      if (auto mode = s.reader.choice(e.value, e.value_at, field, {"v2", "v1"})) {
        s.profile.roce.rdma_cm_mode = *mode == "v2" ? "RoCE v2" : "IB/RoCE v1";
        s.mark("roce.rdma_cm_mode", e.value_at);
      }
    } else if (e.key == "tos") {
      if (auto tos = s.reader.integer(e.value, e.value_at, field, 0, 255,
                                      "a ToS byte (0-255; DSCP << 2 | ECN)")) {
        s.profile.roce.tos = static_cast<uint8_t>(*tos);
        s.mark("roce.tos", e.value_at);
      }
    } else if (e.key == "gid_family") {
      if (auto family = s.reader.choice(e.value, e.value_at, field, {"ipv4", "ipv6"})) {
        s.profile.roce.gid_family = *family;
        s.mark("roce.gid_family", e.value_at);
      }
    } else if (e.key == "gid_index") {
      if (e.value.IsNull()) {
        s.profile.roce.gid_index.reset();
        s.mark("roce.gid_index", e.value_at);
      } else if (auto index =
                     s.reader.integer(e.value, e.value_at, field, 0, 255, "a GID index (0-255)")) {
        s.profile.roce.gid_index = static_cast<int>(*index);
        s.mark("roce.gid_index", e.value_at);
      }
    }
  });
}

void read_buffers(Section& s, const Entry& entry) {
  const std::string field = s.path("buffers");
  if (entry.value.IsNull()) {  // explicitly empty: left to the driver
    s.profile.buffers.reset();
    s.mark("buffers", entry.value_at);
    return;
  }
  BufferProfile buffers = s.profile.buffers.value_or(BufferProfile{});
  bool has_map = s.profile.buffers.has_value();
  bool has_size = s.profile.buffers.has_value();
  bool ok = true;
  s.reader.entries(entry.value, entry.value_at, field, kBufferKeys, [&](const Entry& e) {
    if (e.key == "prio2buffer") {
      auto map = s.reader.eight_integers(e.value, e.value_at, field + ".prio2buffer", 0, 7,
                                         "a buffer (0-7)");
      if (!map) {
        ok = false;
        return;
      }
      for (size_t p = 0; p < 8; ++p) buffers.prio2buffer[p] = static_cast<uint8_t>((*map)[p]);
      has_map = true;
      s.mark("buffers.prio2buffer", e.value_at);
    } else if (e.key == "size") {
      auto sizes = s.reader.eight_integers(e.value, e.value_at, field + ".size", 0, UINT32_MAX,
                                           "a buffer size in bytes");
      if (!sizes) {
        ok = false;
        return;
      }
      for (size_t b = 0; b < 8; ++b) buffers.buffer_size[b] = static_cast<uint32_t>((*sizes)[b]);
      has_size = true;
      s.mark("buffers.size", e.value_at);
    }
  });
  if (!ok || !entry.value.IsMap()) return;
  if (!has_map || !has_size) {
    s.reader.diagnostics().error(entry.value_at, field,
                                 std::string("needs both prio2buffer and size (") +
                                     (has_map ? "size" : "prio2buffer") + " is missing)");
    return;
  }
  s.profile.buffers = buffers;
  s.mark("buffers", entry.key_at);
}

// Eight Mbit/s caps, one per TC; whether each is one mlx5 can hold is validate.cpp's question.
void read_maxrate(Section& s, const Entry& entry) {
  if (entry.value.IsNull()) {  // explicitly empty: left alone
    s.profile.maxrate_mbps.reset();
    s.mark("maxrate", entry.value_at);
    return;
  }
  auto rates = s.reader.eight_integers(entry.value, entry.value_at, s.path("maxrate"), 0, 65535000,
                                       "a rate in Mbit/s (0 = no cap, at most 65535000)");
  if (!rates) return;
  std::array<uint32_t, 8> mbps{};
  for (size_t tc = 0; tc < 8; ++tc) mbps[tc] = static_cast<uint32_t>((*rates)[tc]);
  s.profile.maxrate_mbps = mbps;
  s.mark("maxrate", entry.value_at);
}

}  // namespace

void read_profile(Reader& reader, const YAML::Node& node, Location where, const std::string& prefix,
                  Profile& profile, FieldLocations& set_here) {
  Section s{reader, profile, set_here, prefix};
  reader.entries(node, where, prefix, kProfileKeys, [&](const Entry& e) {
    const std::string field = s.path(e.key);
    if (e.key == "dcbx") {
      if (auto mode = reader.choice(e.value, e.value_at, field, kDcbxModeNames)) {
        profile.dcbx = *mode;
        s.mark("dcbx", e.value_at);
      }
    } else if (e.key == "trust") {
      if (auto trust = reader.choice(e.value, e.value_at, field, dcb::kTrustNames)) {
        profile.trust = *trust;
        s.mark("trust", e.value_at);
      }
    } else if (e.key == "dscp_map") {
      read_dscp_map(s, e);
    } else if (e.key == "pfc") {
      read_pfc(s, e);
    } else if (e.key == "ets") {
      read_ets(s, e);
    } else if (e.key == "mtu") {
      // 68 is the IPv4 minimum; 9978 is mlx5's largest MTU.
      if (auto mtu =
              reader.integer(e.value, e.value_at, field, 68, 9978, "an MTU in bytes (68-9978)")) {
        profile.mtu = static_cast<uint32_t>(*mtu);
        s.mark("mtu", e.value_at);
      }
    } else if (e.key == "ecn") {
      read_ecn(s, e);
    } else if (e.key == "stall_prevention") {
      read_stall_prevention(s, e);
    } else if (e.key == "roce") {
      read_roce(s, e);
    } else if (e.key == "buffers") {
      read_buffers(s, e);
    } else if (e.key == "maxrate") {
      read_maxrate(s, e);
    }
  });
}

}  // namespace roced::config::detail
