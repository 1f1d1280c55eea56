// SPDX-License-Identifier: Apache-2.0
#include "dcb/types.hpp"

#include <algorithm>
#include <cstdio>

namespace roced::dcb {

namespace {
constexpr uint8_t kDscpSelector = static_cast<uint8_t>(AppSelector::Dscp);
}

// mlx5e_dcbnl_ieee_setapp: the first DSCP entry switches the port to DSCP trust, deleting the
// last one switches it back to PCP.
Trust trust_from_apps(const std::vector<AppEntry>& apps) {
  for (const AppEntry& entry : apps) {
    if (entry.selector == kDscpSelector && entry.protocol < 64) return Trust::Dscp;
  }
  return Trust::Pcp;
}

uint32_t mlx5_lossless_minimum(uint32_t speed_mbps, uint32_t cable_m, uint32_t mtu,
                               uint32_t max_mtu) {
  const uint64_t speed = std::max<uint64_t>(speed_mbps, 40000);
  const uint64_t xoff =
      (301 + 216 * uint64_t{cable_m} / 100) * speed / 1000 + 272 * uint64_t{mtu} / 100;
  const uint64_t frame = std::max<uint64_t>(max_mtu, 9216);
  return static_cast<uint32_t>(xoff + frame + kMlx5BufferCell);
}

uint64_t dscp_mapped(const std::vector<AppEntry>& apps) {
  uint64_t mapped = 0;
  for (const AppEntry& entry : apps) {
    if (entry.selector == kDscpSelector && entry.protocol < 64)
      mapped |= uint64_t{1} << entry.protocol;
  }
  return mapped;
}

std::array<uint8_t, 64> dscp_map_from_apps(const std::vector<AppEntry>& apps) {
  // 0 where a DSCP has no entry: what the NIC does with it is the firmware's table (d>>3 from
  // driver load, 0 once deleted: mlx5e_dcbnl_ieee_delapp), which dcbnl does not show.
  std::array<uint8_t, 64> map{};
  for (const AppEntry& entry : apps) {
    if (entry.selector == kDscpSelector && entry.protocol < 64)
      map[entry.protocol] = entry.priority;
  }
  return map;
}

std::string tsa_name(Tsa tsa) {
  if (kTsaNames.names(tsa)) return std::string(kTsaNames.name(tsa));
  return "tsa " + std::to_string(static_cast<unsigned>(tsa));
}

// DCB_CAP_DCBX_* bits; mode 0 on mlx5 means the firmware agent (mlx5e_dcbnl_setdcbx).
std::string dcbx_mode_name(uint8_t mode) {
  if (mode == 0) return "firmware (auto)";
  std::string name;
  auto add = [&name](const char* part) {
    if (!name.empty()) name += ' ';
    name += part;
  };
  if (mode & kDcbxHost) add("host");
  if (mode & kDcbxLldManaged) add("lld-managed");
  if (mode & kDcbxVerCee) add("cee");
  if (mode & kDcbxVerIeee) add("ieee");
  if (mode & kDcbxStatic) add("static");
  if (const unsigned unknown = mode & 0xe0u; unknown != 0) {
    char hex[8];
    std::snprintf(hex, sizeof(hex), "0x%02x", unknown);
    add(hex);
  }
  return name;
}

std::vector<uint8_t> dcbx_writes_to_restore(uint8_t observed) {
  const auto mode = static_cast<uint8_t>(observed & ~kDcbxLldManaged);
  if ((mode & kDcbxHost) != 0) return {mode};
  if (mode == 0) return {0};
  return {static_cast<uint8_t>(mode | kDcbxHost), 0};
}

}  // namespace roced::dcb
