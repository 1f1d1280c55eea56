// SPDX-License-Identifier: Apache-2.0
#include "driver/traits.hpp"

#include <algorithm>

namespace roced::driver {

namespace {

// The traits as read in each tree (docs/driver-matrix.md has each cell's source and quote).
// Debian's packages as of 2026-12: bookworm 6.1.192-3, trixie 6.12.117-1; detect.cpp refines a
// port's traits by the exact package version it runs.
constexpr std::array<FlavourRow, 5> kFlavours = {{
    {Flavour::Debian61,
     "debian-6.1",
     "mainline 6.1 as Debian bookworm ships it (linux-source-6.1)",
     // en_dcbnl.c mlx5e_dcbnl_ieee_setpfc: priv->dcbx.manual_buffer; the cable length kept in
     // priv->dcbx.cable_len; mlx5e_dcbnl_ieee_setmaxrate refuses above 255 Gbit/s since 6.1.159.
     {BufferRecompute::ManualFlag, CableLength::Driver, Maxrate::U8Checked, EcnKnobs::Debugfs,
      CnpPriorityMode::Written}},
    {Flavour::Debian612,
     "debian-6.12",
     "mainline 6.12 as Debian trixie ships it (linux-source-6.12, the 6.12 stable series)",
     // port.c mlx5_query_port_buffer_ownership since 6.12.44 ("net/mlx5e: Query FW for buffer
     // ownership", Debian 6.12.48-1); maxrate checked since 6.12.63.
     {BufferRecompute::FirmwareOwnership, CableLength::Driver, Maxrate::U8Checked,
      EcnKnobs::Debugfs, CnpPriorityMode::Written}},
    {Flavour::MlnxOfed,
     "mlnx-ofed",
     "MLNX_OFED / DOCA-OFED 24.04-25.10 (mlnx-ofa_kernel)",
     // en_dcbnl.c: manual_buffer, no ownership bit in its mlx5_ifc.h; the u8 maxrate with `<`
     // against 26 Gbit/s and no upper bound; en_sysfs.c ecn/; en_ecn.c cnp_802p_prio writes the
     // priority field only.
     {BufferRecompute::ManualFlag, CableLength::Driver, Maxrate::U8Wrapping, EcnKnobs::OfedSysfs,
      CnpPriorityMode::NotWritten}},
    {Flavour::NicKernel,
     "nic-kernel",
     "NVIDIA's nic-kernel tree (Mellanox/nic-kernel)",
     // en_dcbnl.c with the ownership query; en/port_buffer.c mlx5e_port_set_cable_len hands the
     // cable length to PCAM cable_length firmware; maxrate a u16 where the firmware has QCAM
     // qetcr_qshr_max_bw_val_msb (net-next, 2026-02), a checked u8 where not: the host cannot
     // read which.
     {BufferRecompute::FirmwareOwnership, CableLength::Firmware, Maxrate::Unknown,
      EcnKnobs::Debugfs, CnpPriorityMode::Written}},
    {Flavour::Unknown,
     "unknown",
     "a driver roced has not read: it assumes nothing it cannot read back",
     {}},
}};

constexpr uint64_t k100Mbps = 100'000;  // kbit/s
constexpr uint64_t k1Gbps = 1'000'000;

std::string gbps(uint64_t kbps) {
  const uint64_t tenths = kbps / k100Mbps;
  return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") +
         " Gbit/s";
}

}  // namespace

std::span<const FlavourRow> flavours() { return kFlavours; }

const FlavourRow& flavour_row(Flavour flavour) {
  const auto it = std::find_if(kFlavours.begin(), kFlavours.end(),
                               [&](const FlavourRow& row) { return row.flavour == flavour; });
  return it == kFlavours.end() ? kFlavours.back() : *it;
}

std::optional<Flavour> flavour_named(std::string_view name) {
  for (const FlavourRow& row : kFlavours) {
    if (row.name == name) return row.flavour;
  }
  return std::nullopt;
}

std::optional<std::string> maxrate_problem(Maxrate encoding, uint64_t kbps) {
  if (kbps == 0) return std::nullopt;  // no cap
  switch (encoding) {
    case Maxrate::U16:
      // A u16 count of 1 Gbit/s units at most (QCAM qetcr_qshr_max_bw_val_msb).
      if (kbps <= uint64_t{UINT16_MAX} * k1Gbps) return std::nullopt;
      return gbps(kbps) + " is above the 65535 Gbit/s a u16 count holds";
    case Maxrate::U8Wrapping:
      // Below 26 Gbit/s in 100 Mbit/s units, above in 1 Gbit/s units, into a u8 without a check:
      // 25.6 Gbit/s is programmed as 0.1, 300 Gbit/s as 44.
      if (kbps < 26 * k1Gbps ? kbps / k100Mbps <= 255 : kbps / k1Gbps <= 255) return std::nullopt;
      return gbps(kbps) +
             " does not fit this driver's u8 count of units and would be programmed "
             "as another rate (mlx5e_dcbnl_ieee_setmaxrate wraps it)";
    case Maxrate::U8Checked:
      if (kbps <= 255 * k1Gbps) return std::nullopt;
      return gbps(kbps) +
             " is above the 255 Gbit/s this driver takes (mlx5e_dcbnl_ieee_setmaxrate "
             "refuses it)";
    case Maxrate::Unknown:
      break;
  }
  // Not knowing the encoding: only what every u8 driver programs as asked.
  if (kbps <= 255 * k1Gbps && (kbps >= 26 * k1Gbps || kbps / k100Mbps <= 255)) return std::nullopt;
  return gbps(kbps) +
         " may not be programmed as asked by a driver roced has not read (a u8 count "
         "of units wraps or refuses it)";
}

}  // namespace roced::driver
