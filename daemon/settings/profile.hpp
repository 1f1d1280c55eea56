// SPDX-License-Identifier: Apache-2.0
#pragma once
// The lossless profile as typed values: what roced.yaml's `profile:` section and each override
// ask of a port. Each field is a setting's wanted value (setting.hpp's rows say which key reads
// it); daemon/config reads the file into it, the planner compares it with the port.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "dcb/types.hpp"
#include "util/enum_names.hpp"

namespace roced::settings {

enum class DcbxMode { Host, Firmware };
inline constexpr auto kDcbxModeNames =
    enum_names<DcbxMode>({{DcbxMode::Host, "host"}, {DcbxMode::Firmware, "firmware"}});
static_assert(kDcbxModeNames.covers<DcbxMode::Firmware>(), "name every DcbxMode");

struct EtsProfile {
  std::array<uint8_t, 8> prio_tc{0, 1, 2, 3, 4, 5, 6, 7};  // priority -> traffic class
  std::array<dcb::Tsa, 8> tsa{};                           // per traffic class
  std::array<uint8_t, 8> bandwidth{};  // per TC, percent; the ETS TCs sum to 100
  bool operator==(const EtsProfile&) const = default;
};

// ETHTOOL_PFC_PREVENTION_TOUT as the user writes it: off | auto | 80-8000 (ms).
struct StallPreventionProfile {
  enum class Mode { Off, Auto, Manual } mode = Mode::Auto;
  uint16_t timeout_ms = 0;         // Manual only
  uint16_t tunable_value() const;  // 0, 0xffff or timeout_ms
  bool operator==(const StallPreventionProfile&) const = default;
};

struct EcnProfile {
  // Priorities on which ECN marking/reaction is enabled (bit p = priority p). Only NVIDIA's
  // out-of-tree driver can set this per priority; the inbox driver reports it unsupported.
  std::optional<uint8_t> enabled_priorities;
  uint8_t cnp_dscp = 48;
  uint8_t cnp_priority = 6;
  // DCQCN thresholds and timers by their upstream cc_params name ("rp_ai_rate",
  // "np_min_time_between_cnps"); rdma/ecn maps them to the OFED driver's names. Only the knobs
  // named here are managed.
  std::map<std::string, uint64_t> dcqcn;
  bool operator==(const EcnProfile&) const = default;
};

struct RoceProfile {
  std::string rdma_cm_mode = "RoCE v2";  // configfs default_roce_mode: "RoCE v2" | "IB/RoCE v1"
  uint8_t tos = 106;                     // configfs default_roce_tos: the whole ToS byte
  std::string gid_family = "ipv4";       // the RoCE v2 GID jobs use: "ipv4" | "ipv6"
  std::optional<int> gid_index;          // the index jobs hard-code (NCCL_IB_GID_INDEX), if any
  bool operator==(const RoceProfile&) const = default;
};

struct BufferProfile {
  std::array<uint8_t, 8> prio2buffer{};
  std::array<uint32_t, 8> buffer_size{};  // bytes
  bool operator==(const BufferProfile&) const = default;
};

// The lossless profile for one port. Defaults are the common recipe (docs/config.md).
struct Profile {
  DcbxMode dcbx = DcbxMode::Host;
  dcb::Trust trust = dcb::Trust::Dscp;
  std::array<uint8_t, 64> dscp_map{};  // DSCP -> priority; default d >> 3 with 26->3, 48->6
  uint8_t pfc_priorities = 1u << 3;    // bit p = PFC on priority p
  uint16_t cable_length_m = 7;         // ieee_pfc.delay for mlx5
  EtsProfile ets;
  uint32_t mtu = 9000;
  // 802.3x pause in both directions: off, as PFC needs (the two exclude each other, and mlx5
  // turns it off on every PFC mask change anyway); left alone when absent.
  std::optional<bool> global_pause = false;
  EcnProfile ecn;
  StallPreventionProfile stall_prevention;
  RoceProfile roce;
  std::optional<BufferProfile> buffers;  // left to the driver when absent
  // Per-TC transmit rate caps in Mbit/s, 0 = none (ieee_maxrate); left alone when absent.
  std::optional<std::array<uint32_t, 8>> maxrate_mbps;
  bool operator==(const Profile&) const = default;
};
Profile default_profile();  // the recipe, with ETS: TC0..5 ETS sharing 100, TC6 strict (CNPs)

}  // namespace roced::settings
