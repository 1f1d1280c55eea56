// SPDX-License-Identifier: Apache-2.0
#include "daemon/settings/describe.hpp"

#include <algorithm>
#include <bit>

namespace roced::settings::describe {

namespace {

constexpr int kListedDscpEntries = 8;

template <class T, class Fn>
std::string join(const std::array<T, 8>& values, Fn text) {
  std::string out;
  for (const T& value : values) {
    if (!out.empty()) out += ',';
    out += text(value);
  }
  return out;
}

}  // namespace

std::string priorities(uint8_t mask) {
  std::string out;
  for (int p = 0; p < dcb::kPriorities; ++p) {
    if ((mask & (1u << p)) == 0) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(p);
  }
  return out.empty() ? "none" : out;
}

std::string dcbx(uint8_t observed_mode) {
  const bool host = (observed_mode & dcb::kDcbxHost) != 0;
  const uint8_t rest = static_cast<uint8_t>(observed_mode & ~dcb::kDcbxHost);
  std::string out = host ? "host" : "firmware";
  if (rest != 0) out += " (" + dcb::dcbx_mode_name(rest) + ")";
  return out;
}

std::string dcbx(DcbxMode wanted_mode) { return std::string(kDcbxModeNames.name(wanted_mode)); }

std::string trust(dcb::Trust trust) { return std::string(dcb::kTrustNames.name(trust)); }

std::string stall(uint16_t raw) {
  if (raw == 0) return "off";
  if (raw == 0xffff) return "auto";
  return std::to_string(raw) + " ms";
}

namespace {

bool is_mapped(uint64_t mapped, size_t dscp) { return (mapped >> dscp) & 1; }

std::string dscp_entry(const std::array<uint8_t, 64>& map, uint64_t mapped, size_t dscp) {
  return std::to_string(dscp) + "->" +
         (is_mapped(mapped, dscp) ? std::to_string(map[dscp]) : std::string("fw"));
}

}  // namespace

std::string dscp_map(const std::array<uint8_t, 64>& map, uint64_t mapped) {
  // Few DSCPs with an entry (another tool's `dcb app add`): those, and the rest left to the NIC.
  if (64 - std::popcount(mapped) > kListedDscpEntries) {
    std::string listed;
    int count = 0;
    for (size_t dscp = 0; dscp < map.size(); ++dscp) {
      if (!is_mapped(mapped, dscp) || ++count > kListedDscpEntries) continue;
      listed += (listed.empty() ? "" : " ") + dscp_entry(map, mapped, dscp);
    }
    if (count > kListedDscpEntries) {
      listed += " +" + std::to_string(count - kListedDscpEntries) + " more";
    }
    return (listed.empty() ? std::string() : listed + ", ") + "the rest fw";
  }
  std::string exceptions;
  int count = 0;
  for (size_t dscp = 0; dscp < map.size(); ++dscp) {
    if (is_mapped(mapped, dscp) && map[dscp] == dscp >> 3) continue;
    if (++count > kListedDscpEntries) continue;
    exceptions += " " + dscp_entry(map, mapped, dscp);
  }
  if (count == 0) return "d>>3";
  if (count > kListedDscpEntries) {
    exceptions += " +" + std::to_string(count - kListedDscpEntries) + " more";
  }
  return "d>>3 except" + exceptions;
}

std::pair<std::string, std::string> dscp_map_diff(const std::array<uint8_t, 64>& now,
                                                  uint64_t now_mapped,
                                                  const std::array<uint8_t, 64>& wanted,
                                                  bool now_empty) {
  const auto differs = [&](size_t dscp) {
    return !is_mapped(now_mapped, dscp) || now[dscp] != wanted[dscp];
  };
  int differing = 0;
  for (size_t dscp = 0; dscp < now.size(); ++dscp) differing += differs(dscp);
  // Many entries apart (a port without a map, or a different scheme): whole maps read better.
  if (now_empty || differing > kListedDscpEntries) {
    return {now_empty ? "none" : dscp_map(now, now_mapped), dscp_map(wanted)};
  }
  std::string now_text;
  std::string wanted_text;
  for (size_t dscp = 0; dscp < now.size(); ++dscp) {
    if (!differs(dscp)) continue;
    const std::string sep = now_text.empty() ? "" : " ";
    now_text += sep + dscp_entry(now, now_mapped, dscp);
    wanted_text += sep + std::to_string(dscp) + "->" + std::to_string(wanted[dscp]);
  }
  return {now_text, wanted_text};
}

std::string ets(const EtsText& ets, bool show_prio_tc, bool show_tcs) {
  std::string out;
  if (show_prio_tc) {
    out = "prio_tc " + join(ets.prio_tc, [](uint8_t tc) { return std::to_string(tc); });
  }
  if (show_tcs) {
    std::array<std::string, 8> tcs;
    for (size_t tc = 0; tc < tcs.size(); ++tc) {
      tcs[tc] = ets.tsa[tc] == dcb::Tsa::Ets ? std::to_string(ets.bandwidth[tc])
                                             : dcb::tsa_name(ets.tsa[tc]);
    }
    const bool all_same =
        std::all_of(tcs.begin(), tcs.end(), [&](const std::string& t) { return t == tcs[0]; });
    if (!out.empty()) out += ' ';
    out += "tc " + (all_same ? "all " + tcs[0] : join(tcs, [](const std::string& t) { return t; }));
  }
  return out;
}

std::string buffers(const std::array<uint8_t, 8>& prio2buffer,
                    const std::array<uint32_t, 8>& size) {
  std::string out =
      "prio2buffer " + join(prio2buffer, [](uint8_t buffer) { return std::to_string(buffer); });
  out += " size";
  bool any = false;
  for (size_t buffer = 0; buffer < size.size(); ++buffer) {
    if (size[buffer] == 0) continue;
    any = true;
    out += " " + std::to_string(buffer) + ":" + std::to_string(size[buffer]);
  }
  if (!any) out += " none";
  return out;
}

std::string maxrate(const std::array<uint64_t, 8>& tc_kbps) {
  std::string out;
  for (size_t tc = 0; tc < tc_kbps.size(); ++tc) {
    const uint64_t kbps = tc_kbps[tc];
    if (kbps == 0) continue;
    // iproute2 dcb's units: whole Gbit when exact, else Mbit (mlx5 steps are 100 Mbit/s).
    const std::string rate = kbps % 1000000 == 0 ? std::to_string(kbps / 1000000) + "Gbit"
                             : kbps % 1000 == 0  ? std::to_string(kbps / 1000) + "Mbit"
                                                 : std::to_string(kbps) + "Kbit";
    out += (out.empty() ? "tc " : " ") + std::to_string(tc) + ":" + rate;
  }
  return out.empty() ? "no caps" : out;
}

}  // namespace roced::settings::describe
