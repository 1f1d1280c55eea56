// SPDX-License-Identifier: Apache-2.0
#pragma once
// The DCB settings (one IEEE_GET read; the DCBX mode has its own): DCBX mode, trust and the DSCP
// map (the APP table), ETS, TC rate limits, PFC priorities and cable length (one setpfc), buffers.
// Their writes, one netlink message per feature (DcbClient checks the status byte of each).
#include <array>
#include <cstdint>
#include <string>

#include "daemon/settings/describe.hpp"
#include "daemon/settings/spec.hpp"

namespace roced::settings {

template <>
struct Spec<Setting::Dcbx> {
  static constexpr auto in = [](auto& p) -> auto& { return p.dcbx; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  struct Value {
    bool host = false;  // mlx5: any mode with the HOST bit is host-controlled
    uint8_t raw = 0;    // display only: "firmware (cee ieee)"
  };
  static constexpr auto field = &PortStatus::dcbx;
  static constexpr std::string_view read_what = "DCBX";
  static constexpr std::string_view label = "the DCBX mode";
  static Reading<Value> project(const Ctx&, uint8_t mode) {
    return Value{(mode & dcb::kDcbxHost) != 0, mode};
  }
  static Value wanted(const Ctx& c, const Value&) {
    return Value{c.want.dcbx == DcbxMode::Host, 0};
  }
  static bool same(const Value& a, const Value& b) { return a.host == b.host; }
  static std::pair<std::string, std::string> describe(const Ctx& c, const Value& now,
                                                      const Value&) {
    return {settings::describe::dcbx(now.raw), settings::describe::dcbx(c.want.dcbx)};
  }
};

template <>
struct Spec<Setting::Trust> {
  static constexpr auto in = [](auto& p) -> auto& { return p.trust; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  using Value = dcb::Trust;  // mlx5: DSCP APP entries present = DSCP trust
  static constexpr auto field = &PortStatus::trust;
  static constexpr std::string_view read_what = "DCB";
  static constexpr std::string_view label = "the APP table";
  static Reading<Value> project(const Ctx&, dcb::Trust trust) { return trust; }
  static Value wanted(const Ctx& c, const Value&) { return c.want.trust; }
  static bool same(const Value& a, const Value& b) { return a == b; }
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    return {settings::describe::trust(now), settings::describe::trust(wanted)};
  }
};

template <>
struct Spec<Setting::DscpMap> {
  static constexpr auto in = [](auto& p) -> auto& { return p.dscp_map; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  struct Value {
    std::array<uint8_t, 64> map{};  // the APP entries' priorities; 0 where there is none
    // DSCPs with an APP entry. mlx5 maps the others by the firmware's table, which dcbnl does
    // not show: d>>3 from driver load, 0 for a DSCP deleted since (mlx5e_dcbnl_ieee_delapp).
    uint64_t mapped = 0;
    bool empty = false;  // display only: no DSCP entries at all reads "none"
    bool operator==(const Value&) const = default;
  };
  static constexpr auto field = &PortStatus::dscp_apps;
  static constexpr std::string_view read_what = "DCB";
  static constexpr std::string_view label = "the APP table";
  // Under PCP trust the map is unused, and wanting PCP means wanting no DSCP entries (Trust's).
  static bool manages(const Profile& p) { return p.trust == dcb::Trust::Dscp; }
  static Reading<Value> project(const Ctx&, const std::vector<dcb::AppEntry>& apps) {
    return Value{dcb::dscp_map_from_apps(apps), dcb::dscp_mapped(apps), apps.empty()};
  }
  // Every DSCP with its own entry: a DSCP left to the firmware's table is one roced cannot read
  // back.
  static Value wanted(const Ctx& c, const Value&) {
    return Value{c.want.dscp_map, describe::kAllDscps, false};
  }
  static bool same(const Value& a, const Value& b) {
    return a.map == b.map && a.mapped == b.mapped;
  }
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    return settings::describe::dscp_map_diff(now.map, now.mapped, wanted.map, now.empty);
  }
};

template <>
struct Spec<Setting::Ets> {
  static constexpr auto in = [](auto& p) -> auto& { return p.ets; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  // Canonical: a TC's bandwidth counts only when it is an ETS TC (mlx5 reports 100 or 0 for the
  // others), so operator== is the one comparison both the plan and the undo check need.
  struct Value {
    std::array<uint8_t, 8> prio_tc{};
    std::array<dcb::Tsa, 8> tsa{};
    std::array<uint8_t, 8> bandwidth{};
    bool operator==(const Value&) const = default;
  };
  static Value canonical(const std::array<uint8_t, 8>& prio_tc, const std::array<dcb::Tsa, 8>& tsa,
                         const std::array<uint8_t, 8>& bandwidth) {
    Value v{prio_tc, tsa, {}};
    for (size_t tc = 0; tc < tsa.size(); ++tc) {
      if (tsa[tc] == dcb::Tsa::Ets) v.bandwidth[tc] = bandwidth[tc];
    }
    return v;
  }
  static constexpr auto field = &PortStatus::ets;
  static constexpr std::string_view read_what = "DCB";
  static constexpr std::string_view label = "ETS";
  static Reading<Value> project(const Ctx&, const dcb::Ets& ets) {
    return canonical(ets.prio_tc, ets.tc_tsa, ets.tc_tx_bw);
  }
  static Value wanted(const Ctx& c, const Value&) {
    return canonical(c.want.ets.prio_tc, c.want.ets.tsa, c.want.ets.bandwidth);
  }
  static bool same(const Value& a, const Value& b) { return a == b; }
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    const bool prio_tc_differs = now.prio_tc != wanted.prio_tc;
    const bool tcs_differ = now.tsa != wanted.tsa || now.bandwidth != wanted.bandwidth;
    return {
        settings::describe::ets({now.prio_tc, now.tsa, now.bandwidth}, prio_tc_differs, tcs_differ),
        settings::describe::ets({wanted.prio_tc, wanted.tsa, wanted.bandwidth}, prio_tc_differs,
                                tcs_differ)};
  }
};

template <>
struct Spec<Setting::Maxrate> {
  static constexpr auto in = [](auto& p) -> auto& { return p.maxrate_mbps; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  using Value = std::array<uint64_t, 8>;  // kbit/s per TC (ieee_maxrate), 0 = no cap
  static constexpr auto field = &PortStatus::maxrate;
  static constexpr std::string_view read_what = "DCB";
  static constexpr std::string_view label = "the TC rate limits";
  static bool manages(const Profile& p) { return p.maxrate_mbps.has_value(); }
  static Reading<Value> project(const Ctx&, const dcb::Maxrate& m) { return m.tc_kbps; }
  static Value wanted(const Ctx& c, const Value&) {
    Value kbps{};
    for (size_t tc = 0; tc < kbps.size(); ++tc)
      kbps[tc] = uint64_t{(*c.want.maxrate_mbps)[tc]} * 1000;
    return kbps;
  }
  static bool same(const Value& a, const Value& b) { return a == b; }
  // mlx5e_dcbnl_ieee_setmaxrate counts in a u8 that wraps (MLNX_OFED, older kernels: 300 Gbit/s
  // is programmed as 44), a u8 that refuses above 255 Gbit/s, or a u16: a cap the port's tree
  // would not program as asked is refused before anything is written (driver::maxrate_problem).
  static std::optional<NotHere> refuse(const Ctx& c, const Value&, const Value& wanted) {
    const driver::Maxrate encoding = driver_traits(c.have).maxrate;
    for (size_t tc = 0; tc < wanted.size(); ++tc) {
      if (auto problem = driver::maxrate_problem(encoding, wanted[tc])) {
        return NotHere{Lacking::OutOfRange, "TC " + std::to_string(tc) + ": " + *problem};
      }
    }
    return std::nullopt;
  }
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    return {settings::describe::maxrate(now), settings::describe::maxrate(wanted)};
  }
};

template <>
struct Spec<Setting::PfcPriorities> {
  static constexpr auto in = [](auto& p) -> auto& { return p.pfc_priorities; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  using Value = uint8_t;  // bit p = PFC on priority p
  static constexpr auto field = &PortStatus::pfc;
  static constexpr std::string_view read_what = "DCB";
  static constexpr std::string_view label = "the PFC priorities";
  static Reading<Value> project(const Ctx&, const dcb::Pfc& pfc) { return pfc.enabled_mask; }
  static Value wanted(const Ctx& c, const Value&) { return c.want.pfc_priorities; }
  static bool same(Value a, Value b) { return a == b; }
  static std::pair<std::string, std::string> describe(const Ctx&, Value now, Value wanted) {
    return {settings::describe::priorities(now), settings::describe::priorities(wanted)};
  }
  static std::optional<std::string_view> disruption(const Ctx& c) {
    // With manual buffers the applier then waits for the carrier and has mlx5 recompute Xoff
    // (the driver computed it with the link down): see daemon/apply/applier.cpp settle_headroom.
    if (host_sizes_buffers(c.want, c.have)) {
      return "mlx5 flaps the link when the PFC mask changes (mlx5_toggle_port_link); roced then "
             "waits for the carrier and has the headroom recomputed at link speed";
    }
    return "mlx5 flaps the link when the PFC mask changes (mlx5_toggle_port_link)";
  }
};

template <>
struct Spec<Setting::CableLength> {
  static constexpr auto in = [](auto& p) -> auto& { return p.cable_length_m; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  using Value = uint16_t;  // ieee_pfc.delay: mlx5 takes it as metres
  static constexpr auto field = &PortStatus::pfc;
  static constexpr std::string_view read_what = "DCB";
  static constexpr std::string_view label = "the cable length";
  // mlx5e_dcbnl_ieee_getpfc (en_dcbnl.c) reports the cable length only when the port has buffer
  // commands (MLX5_BUFFER_SUPPORTED), and setpfc never stores 0: a delay of 0 is a port without
  // them, where the value is used nowhere and never reads back.
  static Reading<Value> project(const Ctx&, const dcb::Pfc& pfc) {
    if (pfc.delay == 0) {
      return NotHere{Lacking::Device,
                     "this port has no buffer commands: mlx5 reads the cable length back as 0 and "
                     "uses it nowhere"};
    }
    return pfc.delay;
  }
  static Value wanted(const Ctx& c, const Value&) { return c.want.cable_length_m; }
  static bool same(Value a, Value b) { return a == b; }
  // The cable length rides in the same PFC message; with the mask unchanged the link stays up.
  // Mainline mlx5 hands it to the NIC only in manual-buffer mode (en_dcbnl.c
  // mlx5e_dcbnl_ieee_setpfc calls mlx5e_port_manual_buffer_config only then): with the
  // firmware's buffers it is stored and read back, and does nothing.
  // NVIDIA's driver writes it to the firmware, which sizes its own buffers with it, where the
  // firmware has the PCAM cable_length feature (en/port_buffer.c mlx5e_port_set_cable_len).
  static std::pair<std::string, std::string> describe(const Ctx& c, Value now, Value wanted) {
    std::string after = std::to_string(wanted) + " m";
    switch (driver_traits(c.have).cable_length) {
      case driver::CableLength::Firmware:
        after +=
            " (the firmware sizes the headroom with it, where it has the cable-length feature)";
        break;
      case driver::CableLength::Driver:
        if (!c.want.buffers) after += " (no effect unless roced manages the buffers)";
        break;
      case driver::CableLength::Unknown:
        after += " (what this driver does with it: roced cannot tell)";
        break;
    }
    return {std::to_string(now) + " m", after};
  }
};

template <>
struct Spec<Setting::Buffers> {
  static constexpr auto in = [](auto& p) -> auto& { return p.buffers; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  struct Value {
    std::array<uint8_t, 8> prio2buffer{};
    std::array<uint32_t, 8> size{};
    bool operator==(const Value&) const = default;
  };
  static constexpr auto field = &PortStatus::buffer;
  static constexpr std::string_view read_what = "DCB";
  static constexpr std::string_view label = "the buffers";
  static bool manages(const Profile& p) { return p.buffers.has_value(); }  // else the driver's
  // NVIDIA's driver resizes host-owned buffers itself: a PFC change that flips a buffer, or a
  // cable length change, gives every lossless buffer its own computed size
  // (en/port_buffer.c update_xoffs_threshold), it never resizes a lossy one from setbuffer
  // (update_xoff_threshold), and with the link retraining after a PFC change it cannot compute
  // at all, so that setpfc fails (mlx5e_calculate_buf_sz_and_thresholds has no 40 Gb/s
  // fallback). Owning the buffers there would break PFC changes, the storm watchdog's included.
  static Reading<Value> project(const Ctx& c, const dcb::Buffer& b) {
    const driver::Traits traits = driver_traits(c.have);
    if (traits.cable_length == driver::CableLength::Firmware) {
      return NotHere{Lacking::DriverManaged,
                     "NVIDIA's nic-kernel mlx5 resizes host-owned buffers on every PFC or "
                     "cable-length change and fails PFC changes while the link retrains; roced "
                     "leaves the buffers to the firmware, which sizes them from the cable length"};
    }
    if (!driver_leaves_buffers_to_host(traits)) {
      return NotHere{Lacking::DriverManaged,
                     "roced cannot tell this port's mlx5 driver tree, so not what it does to "
                     "host-set buffers after a PFC change; it leaves them to the driver and the "
                     "firmware"};
    }
    return Value{b.prio2buffer, b.buffer_size};
  }
  static Value wanted(const Ctx& c, const Value&) {
    return Value{c.want.buffers->prio2buffer, c.want.buffers->buffer_size};
  }
  static bool same(const Value& a, const Value& b) { return a == b; }
  // mlx5 computes Xoff at the link's speed when the buffers are set: a lossless buffer that the
  // config's 40 Gbit/s check let through can still be refused (-ENOMEM) at 400 Gbit/s.
  static std::optional<NotHere> refuse(const Ctx& c, const Value&, const Value& wanted);
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    return {settings::describe::buffers(now.prio2buffer, now.size),
            settings::describe::buffers(wanted.prio2buffer, wanted.size)};
  }
};

template <>
struct FeatureSpec<Feature::DcbxMode> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};
// Trust and the DSCP map: the DSCP entries of the APP table.
template <>
struct FeatureSpec<Feature::AppTable> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::Ets> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::Maxrate> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};
// PFC priorities and cable length: one setpfc with both, from the profile.
template <>
struct FeatureSpec<Feature::Pfc> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::Buffer> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};

}  // namespace roced::settings
