// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where the mlx5 driver trees a fleet runs behave differently for the same request: one trait per
// behaviour, each value with the tree, file and function it was read in, and the named flavours
// (the trees as a fleet gets them) as compositions of traits. A value of Unknown is what roced
// assumes where it cannot tell: it claims nothing it cannot read back and refuses what it cannot
// be sure the driver encodes as asked. docs/driver-matrix.md is this table for people.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "util/enum_names.hpp"

namespace roced::driver {

// After a PFC (or cable length) change, does the driver size the receive buffers again?
enum class BufferRecompute : uint8_t {
  // Once the host has set buffers (dcbnl setbuffer), every PFC or cable-length change recomputes
  // them, Xoff at 40 Gbit/s while the link retrains (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc with
  // priv->dcbx.manual_buffer; en/port_buffer.c calculate_xoff).
  ManualFlag,
  // Only when the firmware says the host owns the buffers (port.c
  // mlx5_query_port_buffer_ownership, PCAM buffer_ownership); firmware without that bit answers
  // unknown, and then nothing is ever recomputed.
  FirmwareOwnership,
  Unknown,
};

// Where the cable length (ieee_pfc.delay) goes.
enum class CableLength : uint8_t {
  // Kept in the driver, 1..999 m taken and anything else ignored without an error; used only
  // when the driver recomputes buffers (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc, calculate_xoff).
  Driver,
  // Handed to the firmware where it has PCAM cable_length (en/port_buffer.c
  // mlx5e_port_set_cable_len), which sizes its own headroom with it.
  Firmware,
  Unknown,
};

// How a TC rate cap (ieee_maxrate) is encoded (en_dcbnl.c mlx5e_dcbnl_ieee_setmaxrate).
enum class Maxrate : uint8_t {
  U8Wrapping,  // a u8 count of 100 Mbit/s or 1 Gbit/s units, no upper bound: 300 Gbit/s is 44
  U8Checked,   // the same u8, but above 255 Gbit/s refused (-EINVAL)
  U16,         // a u16 count where the firmware has QCAM qetcr_qshr_max_bw_val_msb
  Unknown,
};

// Where the DCQCN knobs are.
enum class EcnKnobs : uint8_t {
  Debugfs,    // mlx5_ib's cc_params debugfs (drivers/infiniband/hw/mlx5/cong.c)
  OfedSysfs,  // /sys/class/net/<if>/ecn/ (MLNX_OFED en_sysfs.c, en_ecn.c)
  Unknown,
};

// Whether a CNP priority write also sets the mode that makes the firmware use it.
enum class CnpPriorityMode : uint8_t {
  Written,     // cc_params np_cnp_prio_mode is its own knob, written with np_cnp_prio
  NotWritten,  // OFED's ecn/roce_np/cnp_802p_prio sets the priority only (en_ecn.c)
  Unknown,
};

struct Traits {
  BufferRecompute buffer_recompute = BufferRecompute::Unknown;
  CableLength cable_length = CableLength::Unknown;
  Maxrate maxrate = Maxrate::Unknown;
  EcnKnobs ecn_knobs = EcnKnobs::Unknown;
  CnpPriorityMode cnp_priority_mode = CnpPriorityMode::Unknown;
  bool operator==(const Traits&) const = default;
};

enum class Flavour : uint8_t {
  Debian61,   // mainline 6.1 as Debian bookworm ships it
  Debian612,  // mainline 6.12 as Debian trixie ships it (the 6.12 stable series)
  MlnxOfed,   // MLNX_OFED / DOCA-OFED 24.x-25.x (mlnx-ofa_kernel)
  NicKernel,  // NVIDIA's nic-kernel tree
  Unknown,
};

struct FlavourRow {
  Flavour flavour;
  std::string_view name;         // "debian-6.1": what status, metrics and node files say
  std::string_view description;  // for people
  Traits traits;
};

std::span<const FlavourRow> flavours();
const FlavourRow& flavour_row(Flavour flavour);
std::optional<Flavour> flavour_named(std::string_view name);

// For status lines, JSON and node files.
inline constexpr auto kBufferRecomputeNames =
    enum_names<BufferRecompute>({{BufferRecompute::ManualFlag, "manual-flag"},
                                 {BufferRecompute::FirmwareOwnership, "firmware-ownership"},
                                 {BufferRecompute::Unknown, "unknown"}});
inline constexpr auto kCableLengthNames =
    enum_names<CableLength>({{CableLength::Driver, "driver"},
                             {CableLength::Firmware, "firmware"},
                             {CableLength::Unknown, "unknown"}});
inline constexpr auto kMaxrateNames = enum_names<Maxrate>({{Maxrate::U8Wrapping, "u8-wrapping"},
                                                           {Maxrate::U8Checked, "u8-checked"},
                                                           {Maxrate::U16, "u16"},
                                                           {Maxrate::Unknown, "unknown"}});
inline constexpr auto kEcnKnobsNames = enum_names<EcnKnobs>({{EcnKnobs::Debugfs, "debugfs"},
                                                             {EcnKnobs::OfedSysfs, "ofed-sysfs"},
                                                             {EcnKnobs::Unknown, "unknown"}});
inline constexpr auto kCnpPriorityModeNames =
    enum_names<CnpPriorityMode>({{CnpPriorityMode::Written, "written"},
                                 {CnpPriorityMode::NotWritten, "not-written"},
                                 {CnpPriorityMode::Unknown, "unknown"}});

// Why a TC rate cap of `kbps` would not be programmed as asked under `encoding` (wrapped, or
// refused); nullopt when it would be. Unknown is judged as the strictest u8.
std::optional<std::string> maxrate_problem(Maxrate encoding, uint64_t kbps);

}  // namespace roced::driver
