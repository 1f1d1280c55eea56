// SPDX-License-Identifier: Apache-2.0
#pragma once
// The DCB model as roced sees it: IEEE 802.1Qaz objects, one struct per object (as iproute2 dcb/).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/enum_names.hpp"

namespace roced::dcb {

constexpr int kPriorities = 8;
constexpr int kTrafficClasses = 8;

enum class Tsa : uint8_t { Strict = 0, Cbs = 1, Ets = 2, Vendor = 255 };  // IEEE_8021QAZ_TSA_*
// As iproute2's `dcb ets` prints and reads them. Sparse values: unique, not covers<>-checked.
inline constexpr auto kTsaNames = enum_names<Tsa>(
    {{Tsa::Strict, "strict"}, {Tsa::Cbs, "cbs"}, {Tsa::Ets, "ets"}, {Tsa::Vendor, "vendor"}});

struct Pfc {
  uint8_t cap = 0;
  uint8_t enabled_mask = 0;  // bit p = PFC on priority p
  uint8_t mbc = 0;
  uint16_t delay = 0;  // mlx5: cable length in metres
  std::array<uint64_t, 8> requests{};
  std::array<uint64_t, 8> indications{};
  bool operator==(const Pfc&) const = default;
};

struct Ets {
  bool willing = false;
  uint8_t ets_cap = 0;
  bool cbs = false;
  std::array<uint8_t, 8> tc_tx_bw{};
  std::array<uint8_t, 8> tc_rx_bw{};
  std::array<Tsa, 8> tc_tsa{};
  std::array<uint8_t, 8> prio_tc{};
  std::array<uint8_t, 8> tc_reco_bw{};
  std::array<Tsa, 8> tc_reco_tsa{};
  std::array<uint8_t, 8> reco_prio_tc{};
  bool operator==(const Ets&) const = default;
};

// Selector values of struct dcb_app (IEEE_8021QAZ_APP_SEL_*).
enum class AppSelector : uint8_t { Ethertype = 1, Stream = 2, Dgram = 3, Any = 4, Dscp = 5 };

struct AppEntry {
  uint8_t selector = 0;
  uint8_t priority = 0;
  uint16_t protocol = 0;  // the DSCP value for selector 5
  bool operator==(const AppEntry&) const = default;
};

// mlx5 keeps buffer sizes in cells of this many bytes (en/port_buffer.c: sizes go to the PBMC
// register divided by port_buff_cell_sz, rounded down; 1 << MLX5E_BUFFER_CELL_SHIFT unless SBCAM
// says otherwise): a size that is no multiple of it reads back smaller.
inline constexpr uint32_t kMlx5BufferCell = 128;
// The smallest lossless buffer mlx5 accepts (en/port_buffer.c update_xoff_threshold, -ENOMEM
// below it): Xoff (calculate_xoff: (301 + 2.16 * cable_m) * max(speed, 40 Gb/s) + 2.72 * MTU),
// one frame of max(max_mtu, 9216) (MINIMUM_MAX_MTU) and one cell. speed_mbps 0: 40 Gb/s, what
// the driver uses when the link is down.
uint32_t mlx5_lossless_minimum(uint32_t speed_mbps, uint32_t cable_m, uint32_t mtu,
                               uint32_t max_mtu);

struct Buffer {
  std::array<uint8_t, 8> prio2buffer{};
  std::array<uint32_t, 8> buffer_size{};  // bytes
  uint32_t total_size = 0;
  bool operator==(const Buffer&) const = default;
};

struct Maxrate {
  std::array<uint64_t, 8> tc_kbps{};  // 0 = unlimited
  bool operator==(const Maxrate&) const = default;
};

// DCBX capability bits (DCB_CAP_DCBX_*).
constexpr uint8_t kDcbxHost = 0x01;
constexpr uint8_t kDcbxLldManaged = 0x02;
constexpr uint8_t kDcbxVerCee = 0x04;
constexpr uint8_t kDcbxVerIeee = 0x08;
constexpr uint8_t kDcbxStatic = 0x10;

// What DCB_CMD_IEEE_GET returns; a feature the driver does not report is empty.
struct IeeeState {
  std::optional<Ets> ets;
  std::optional<Pfc> pfc;
  std::optional<Maxrate> maxrate;
  std::optional<Buffer> buffer;
  std::vector<AppEntry> apps;
  std::optional<uint8_t> dcbx;  // DCB_ATTR_DCBX after the IEEE nest, when the driver has getdcbx
};

enum class Trust { Pcp, Dscp };
inline constexpr auto kTrustNames = enum_names<Trust>({{Trust::Dscp, "dscp"}, {Trust::Pcp, "pcp"}});
static_assert(kTrustNames.covers<Trust::Dscp>(), "name every Trust");
// mlx5 has no trust op: any DSCP APP entry means DSCP trust.
Trust trust_from_apps(const std::vector<AppEntry>& apps);
// DSCP -> priority from the APP table; 0 for a DSCP without an entry, which is a placeholder:
// the NIC maps such a DSCP by its firmware table, which dcbnl does not show (types.cpp).
std::array<uint8_t, 64> dscp_map_from_apps(const std::vector<AppEntry>& apps);
// Bit d set when DSCP d has an APP entry.
uint64_t dscp_mapped(const std::vector<AppEntry>& apps);

std::string tsa_name(Tsa tsa);             // "strict", "cbs", "ets", "vendor"
std::string dcbx_mode_name(uint8_t mode);  // "host ieee", "firmware (auto)", ...

// mlx5e_dcbnl_setdcbx: a mode with the HOST bit is host mode and becomes the reported mode; 0 hands
// the port back to the firmware agent and only clears the HOST bit; anything else (the firmware's
// "cee ieee" without HOST) is refused, as is LLD_MANAGED. So a firmware mode goes back in two
// writes: its version bits with HOST, then 0.
std::vector<uint8_t> dcbx_writes_to_restore(uint8_t observed);

}  // namespace roced::dcb
