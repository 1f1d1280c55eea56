// SPDX-License-Identifier: Apache-2.0
// roced.yaml's DCB keys, each read and checked alone. A key given replaces the base's value;
// dscp_map entries and ets.tcs entries replace only the entries they name.
#include "daemon/settings/profile_reader.hpp"
#include "daemon/settings/spec_dcb.hpp"

namespace roced::settings {

namespace {

std::string key_path(const ProfileReader& r, Setting setting) {
  return r.path(std::string(key_of(setting)));
}

void read_tc(ProfileReader& r, const yaml::Entry& tc_entry, int tc) {
  const std::string where = r.path("ets.tcs." + std::to_string(tc));
  std::optional<dcb::Tsa> tsa;
  std::optional<int64_t> bandwidth;
  std::optional<yaml::Location> bandwidth_at;
  bool ok = true;
  if (!tc_entry.value.IsMap()) {
    r.diagnostics().error(tc_entry.value_at, where,
                          "expected {tsa: ets|strict|vendor, bandwidth: 0-100}");
    return;
  }
  r.reader.entries(tc_entry.value, tc_entry.value_at, where, {"tsa", "bandwidth"},
                   [&](const yaml::Entry& e) {
                     if (e.key == "tsa") {
                       const auto name = r.reader.choice(e.value, e.value_at, where + ".tsa",
                                                         {"ets", "strict", "vendor", "cbs"});
                       if (!name) {
                         ok = false;
                       } else if (*name == "cbs") {
                         // The IEEE credit-based shaper is a valid TSA, but mlx5 programs only
                         // the other three.
                         r.diagnostics().error(e.value_at, where + ".tsa",
                                               "mlx5 does not implement the cbs TSA; use ets, "
                                               "strict or vendor");
                         ok = false;
                       } else {
                         tsa = *name == "ets"      ? dcb::Tsa::Ets
                               : *name == "strict" ? dcb::Tsa::Strict
                                                   : dcb::Tsa::Vendor;
                       }
                     } else {
                       bandwidth_at = e.value_at;
                       bandwidth = r.reader.integer(e.value, e.value_at, where + ".bandwidth", 0,
                                                    100, "a bandwidth share in percent (0-100)");
                       if (!bandwidth) ok = false;
                     }
                   });
  if (!ok) return;
  // A TC given replaces the base's TC; without a tsa it is an ETS TC.
  const dcb::Tsa effective = tsa.value_or(dcb::Tsa::Ets);
  if (effective == dcb::Tsa::Ets && !bandwidth) {
    r.diagnostics().error(tc_entry.value_at, where,
                          "an ets TC needs a bandwidth (percent of the link under load)");
    return;
  }
  if (effective != dcb::Tsa::Ets && bandwidth) {
    r.diagnostics().error(*bandwidth_at, where + ".bandwidth",
                          "a " + dcb::tsa_name(effective) +
                              " TC takes no bandwidth share (only ets TCs do); remove it");
    return;
  }
  r.profile.ets.tsa[static_cast<size_t>(tc)] = effective;
  r.profile.ets.bandwidth[static_cast<size_t>(tc)] = static_cast<uint8_t>(bandwidth.value_or(0));
  r.mark("ets.tcs." + std::to_string(tc), tc_entry.key_at);
}

}  // namespace

void Spec<Setting::Dcbx>::read(ProfileReader& r, const yaml::Entry& e) {
  if (auto mode =
          r.reader.choice(e.value, e.value_at, key_path(r, Setting::Dcbx), kDcbxModeNames)) {
    r.profile.dcbx = *mode;
    r.mark("dcbx", e.value_at);
  }
}

void Spec<Setting::Trust>::read(ProfileReader& r, const yaml::Entry& e) {
  if (auto trust =
          r.reader.choice(e.value, e.value_at, key_path(r, Setting::Trust), dcb::kTrustNames)) {
    r.profile.trust = *trust;
    r.mark("trust", e.value_at);
  }
}

void Spec<Setting::DscpMap>::read(ProfileReader& r, const yaml::Entry& entry) {
  const std::string where = key_path(r, Setting::DscpMap);
  r.mark("dscp_map", entry.key_at);
  r.reader.entries(entry.value, entry.value_at, where, {}, [&](const yaml::Entry& e) {
    const auto dscp =
        r.reader.integer(YAML::Node(e.key), e.key_at, where, 0, 63, "a DSCP value (0-63)");
    const auto priority =
        r.reader.integer(e.value, e.value_at, where + "." + e.key, 0, 7, "a priority (0-7)");
    if (!dscp || !priority) return;
    r.profile.dscp_map[static_cast<size_t>(*dscp)] = static_cast<uint8_t>(*priority);
    r.mark("dscp_map." + std::to_string(*dscp), e.key_at);
  });
}

void Spec<Setting::Ets>::read(ProfileReader& r, const yaml::Entry& entry) {
  const std::string where = key_path(r, Setting::Ets);
  r.reader.entries(
      entry.value, entry.value_at, where, {"prio_tc", "tcs"}, [&](const yaml::Entry& e) {
        if (e.key == "prio_tc") {
          if (auto tcs = r.reader.eight_integers(e.value, e.value_at, where + ".prio_tc", 0, 7,
                                                 "a traffic class (0-7)")) {
            for (size_t p = 0; p < 8; ++p)
              r.profile.ets.prio_tc[p] = static_cast<uint8_t>((*tcs)[p]);
            r.mark("ets.prio_tc", e.value_at);
          }
          return;
        }
        r.reader.entries(e.value, e.value_at, where + ".tcs", {}, [&](const yaml::Entry& tc_entry) {
          const auto tc = r.reader.integer(YAML::Node(tc_entry.key), tc_entry.key_at,
                                           where + ".tcs", 0, 7, "a traffic class (0-7)");
          if (tc) read_tc(r, tc_entry, static_cast<int>(*tc));
        });
        // Any TC set makes the section party to the bandwidth sum, reported at `tcs:`.
        if (e.value.IsMap() && e.value.size() > 0) r.mark("ets.tcs", e.key_at);
      });
}

// Eight Mbit/s caps, one per TC; whether each is one mlx5 can hold is config/validate.cpp's
// question.
void Spec<Setting::Maxrate>::read(ProfileReader& r, const yaml::Entry& e) {
  if (e.value.IsNull()) {  // explicitly empty: left alone
    r.profile.maxrate_mbps.reset();
    r.mark("maxrate", e.value_at);
    return;
  }
  auto rates = r.reader.eight_integers(e.value, e.value_at, key_path(r, Setting::Maxrate), 0,
                                       65535000, "a rate in Mbit/s (0 = no cap, at most 65535000)");
  if (!rates) return;
  std::array<uint32_t, 8> mbps{};
  for (size_t tc = 0; tc < 8; ++tc) mbps[tc] = static_cast<uint32_t>((*rates)[tc]);
  r.profile.maxrate_mbps = mbps;
  r.mark("maxrate", e.value_at);
}

void Spec<Setting::PfcPriorities>::read(ProfileReader& r, const yaml::Entry& e) {
  if (auto mask =
          r.reader.priority_mask(e.value, e.value_at, key_path(r, Setting::PfcPriorities))) {
    r.profile.pfc_priorities = *mask;
    r.mark("pfc.priorities", e.value_at);
  }
}

void Spec<Setting::CableLength>::read(ProfileReader& r, const yaml::Entry& e) {
  // mlx5 takes ieee_pfc.delay as metres only within 1-999 and silently ignores the rest.
  if (auto metres = r.reader.integer(e.value, e.value_at, key_path(r, Setting::CableLength), 1, 999,
                                     "a cable length in metres (1-999, mlx5's range)")) {
    r.profile.cable_length_m = static_cast<uint16_t>(*metres);
    r.mark("pfc.cable_length", e.value_at);
  }
}

void Spec<Setting::Buffers>::read(ProfileReader& r, const yaml::Entry& entry) {
  const std::string where = key_path(r, Setting::Buffers);
  if (entry.value.IsNull()) {  // explicitly empty: left to the driver
    r.profile.buffers.reset();
    r.mark("buffers", entry.value_at);
    return;
  }
  BufferProfile buffers = r.profile.buffers.value_or(BufferProfile{});
  bool has_map = r.profile.buffers.has_value();
  bool has_size = r.profile.buffers.has_value();
  bool ok = true;
  r.reader.entries(entry.value, entry.value_at, where, {"prio2buffer", "size"},
                   [&](const yaml::Entry& e) {
                     if (e.key == "prio2buffer") {
                       auto map = r.reader.eight_integers(
                           e.value, e.value_at, where + ".prio2buffer", 0, 7, "a buffer (0-7)");
                       if (!map) {
                         ok = false;
                         return;
                       }
                       for (size_t p = 0; p < 8; ++p) {
                         buffers.prio2buffer[p] = static_cast<uint8_t>((*map)[p]);
                       }
                       has_map = true;
                       r.mark("buffers.prio2buffer", e.value_at);
                     } else {
                       auto sizes = r.reader.eight_integers(e.value, e.value_at, where + ".size", 0,
                                                            UINT32_MAX, "a buffer size in bytes");
                       if (!sizes) {
                         ok = false;
                         return;
                       }
                       for (size_t b = 0; b < 8; ++b) {
                         buffers.buffer_size[b] = static_cast<uint32_t>((*sizes)[b]);
                       }
                       has_size = true;
                       r.mark("buffers.size", e.value_at);
                     }
                   });
  if (!ok || !entry.value.IsMap()) return;
  if (!has_map || !has_size) {
    r.diagnostics().error(entry.value_at, where,
                          std::string("needs both prio2buffer and size (") +
                              (has_map ? "size" : "prio2buffer") + " is missing)");
    return;
  }
  r.profile.buffers = buffers;
  r.mark("buffers", entry.key_at);
}

}  // namespace roced::settings
