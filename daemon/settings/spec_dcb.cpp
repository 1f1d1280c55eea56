// SPDX-License-Identifier: Apache-2.0
// The DCB writes: DCBX mode, the APP table (trust and DSCP map), ETS, TC rate limits, PFC
// (priorities and cable length in one message), buffers. One DCB feature per netlink message;
// DcbClient checks the status byte of each.
#include "daemon/settings/spec_dcb.hpp"

#include <algorithm>
#include <cerrno>

namespace roced::settings {

namespace {

using dcb::AppEntry;

// The DSCP APP entries the profile wants: all 64 under DSCP trust (as `mlnx_qos --trust dscp`
// writes them), none under PCP trust.
std::vector<AppEntry> wanted_apps(const Profile& want) {
  std::vector<AppEntry> out;
  if (want.trust != dcb::Trust::Dscp) return out;
  for (uint16_t dscp = 0; dscp < want.dscp_map.size(); ++dscp) {
    out.push_back({static_cast<uint8_t>(dcb::AppSelector::Dscp), want.dscp_map[dscp], dscp});
  }
  return out;
}

}  // namespace

std::optional<NotHere> Spec<Setting::Buffers>::refuse(const Ctx& c, const Value&,
                                                      const Value& wanted) {
  if (!c.have.speed_mbps) return std::nullopt;  // no carrier: the driver uses 40 Gbit/s
  const uint32_t max_mtu = c.have.link.ok() ? c.have.link.value->max_mtu : 0;
  const uint32_t minimum =
      dcb::mlx5_lossless_minimum(*c.have.speed_mbps, c.want.cable_length_m, c.want.mtu, max_mtu);
  for (size_t buffer = 0; buffer < wanted.size.size(); ++buffer) {
    bool lossless = false;
    for (size_t priority = 0; priority < 8; ++priority) {
      lossless |=
          wanted.prio2buffer[priority] == buffer && ((c.want.pfc_priorities >> priority) & 1);
    }
    if (!lossless || wanted.size[buffer] >= minimum) continue;
    return NotHere{Lacking::OutOfRange,
                   "buffer " + std::to_string(buffer) + " holds a PFC priority but is " +
                       std::to_string(wanted.size[buffer]) + " bytes; at " +
                       std::to_string(*c.have.speed_mbps / 1000) + " Gbit/s with " +
                       std::to_string(c.want.cable_length_m) + " m of cable and MTU " +
                       std::to_string(c.want.mtu) + " mlx5 needs at least " +
                       std::to_string(minimum) +
                       " (en/port_buffer.c update_xoff_threshold) and would refuse it (-ENOMEM)"};
  }
  return std::nullopt;
}

std::optional<Writes> FeatureSpec<Feature::DcbxMode>::writes(const WriteCtx& c) {
  const write::DcbxMode wanted{
      static_cast<uint8_t>(c.want.dcbx == DcbxMode::Host ? dcb::kDcbxHost | dcb::kDcbxVerIeee : 0)};
  const auto observed = c.observed.dcbx.value;
  return Writes{[wanted](Writer& w) { return w.write(wanted); },
                observed ? wanted.undo(*observed) : not_read("the DCBX mode")};
}

// The table is written by write::set_dscp_apps (adds, then deletes), and put back the same way.
std::optional<Writes> FeatureSpec<Feature::AppTable>::writes(const WriteCtx& c) {
  const auto observed = c.observed.dscp_apps.value;
  return Writes{
      [target = wanted_apps(c.want)](Writer& w) { return write::set_dscp_apps(w, target); },
      observed ? write::AppAdd{}.undo(*observed) : not_read("the APP table")};
}

std::optional<Writes> FeatureSpec<Feature::Ets>::writes(const WriteCtx& c) {
  const auto observed = c.observed.ets.value;
  // willing, cbs, rx_bw and the recommendation are ignored by mlx5: keep what was read.
  write::Ets wanted{observed.value_or(dcb::Ets{})};
  wanted.ets.prio_tc = c.want.ets.prio_tc;
  wanted.ets.tc_tsa = c.want.ets.tsa;
  wanted.ets.tc_tx_bw = c.want.ets.bandwidth;
  return Writes{[wanted](Writer& w) { return w.write(wanted); },
                observed ? wanted.undo(*observed) : not_read("ETS")};
}

std::optional<Writes> FeatureSpec<Feature::Maxrate>::writes(const WriteCtx& c) {
  if (!c.want.maxrate_mbps) return std::nullopt;
  write::Maxrate wanted;
  for (size_t tc = 0; tc < wanted.maxrate.tc_kbps.size(); ++tc) {
    wanted.maxrate.tc_kbps[tc] = uint64_t{(*c.want.maxrate_mbps)[tc]} * 1000;
  }
  const auto observed = c.observed.maxrate.value;
  return Writes{[wanted](Writer& w) { return w.write(wanted); },
                observed ? wanted.undo(*observed) : not_read("the TC rate limits")};
}

// mlx5 sets the mask and flaps the link before the steps that can still fail (en_dcbnl.c
// mlx5e_dcbnl_ieee_setpfc), so a failed setpfc may have changed the port and is undone like one
// that succeeded (write::Pfc::may_apply_in_part).
std::optional<Writes> FeatureSpec<Feature::Pfc>::writes(const WriteCtx& c) {
  const auto observed = c.observed.pfc.value;
  // Mask and delay both come from the profile: the one not being changed already reads so.
  write::Pfc wanted{observed.value_or(dcb::Pfc{})};
  wanted.pfc.enabled_mask = c.want.pfc_priorities;
  wanted.pfc.delay = c.want.cable_length_m;
  return Writes{[wanted](Writer& w) { return w.write(wanted); },
                observed ? wanted.undo(*observed) : not_read("PFC")};
}

std::optional<Writes> FeatureSpec<Feature::Buffer>::writes(const WriteCtx& c) {
  if (!c.want.buffers) return std::nullopt;
  const auto observed = c.observed.buffer.value;
  write::Buffer wanted{observed.value_or(dcb::Buffer{})};
  wanted.buffer.prio2buffer = c.want.buffers->prio2buffer;
  wanted.buffer.buffer_size = c.want.buffers->buffer_size;
  return Writes{[wanted](Writer& w) { return w.write(wanted); },
                observed ? wanted.undo(*observed) : not_read("the buffer configuration")};
}

}  // namespace roced::settings
