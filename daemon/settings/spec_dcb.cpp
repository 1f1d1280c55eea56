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

Error not_read(const std::string& what) {
  return Error{ENODATA, what + " was not read before the change: nothing to restore"};
}

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

std::vector<AppEntry> missing_from(const std::vector<AppEntry>& entries,
                                   const std::vector<AppEntry>& table) {
  std::vector<AppEntry> out;
  for (const auto& entry : entries) {
    if (std::find(table.begin(), table.end(), entry) == table.end()) out.push_back(entry);
  }
  return out;
}

// Makes the DSCP entries of the APP table exactly `target`. Adds first, deletes after: on mlx5 the
// DSCP entries are the trust state, and deleting the last one flips the port to PCP trust, so a
// port that keeps DSCP trust never passes through PCP. mlx5 replaces a DSCP's entry on add; what is
// left over is deleted under the priority it now shows (mlx5 wants that one).
Result<void> write_app_table(Writer& w, const std::vector<AppEntry>& target) {
  PortDevice& device = w.device();
  auto table = w.read<std::vector<AppEntry>>([&] { return device.dscp_apps(); });
  if (!table) return table.error();
  const auto to_add = missing_from(target, *table);
  if (!to_add.empty()) {
    if (auto added = w.write([&] { return device.add_apps(to_add); }, true); !added) return added;
    table = w.read<std::vector<AppEntry>>([&] { return device.dscp_apps(); });
    if (!table) return table.error();
  }
  const auto to_delete = missing_from(*table, target);
  if (to_delete.empty()) return ok();
  return w.write([&] { return device.delete_apps(to_delete); }, true);
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
  const uint8_t wanted = c.want.dcbx == DcbxMode::Host ? dcb::kDcbxHost | dcb::kDcbxVerIeee : 0;
  const auto observed = c.observed.dcbx.value;
  return Writes{
      [wanted](Writer& w) { return w.write([&] { return w.device().set_dcbx(wanted); }); },
      [observed](Writer& w) -> Result<void> {
        if (!observed) return not_read("the DCBX mode");
        for (const uint8_t mode : dcb::dcbx_writes_to_restore(*observed)) {
          if (auto set = w.write([&] { return w.device().set_dcbx(mode); }); !set) return set;
        }
        return ok();
      }};
}

std::optional<Writes> FeatureSpec<Feature::AppTable>::writes(const WriteCtx& c) {
  const auto observed = c.observed.dscp_apps.value;
  return Writes{[target = wanted_apps(c.want)](Writer& w) { return write_app_table(w, target); },
                [observed](Writer& w) -> Result<void> {
                  if (!observed) return not_read("the APP table");
                  return write_app_table(w, *observed);
                }};
}

std::optional<Writes> FeatureSpec<Feature::Ets>::writes(const WriteCtx& c) {
  const auto observed = c.observed.ets.value;
  // willing, cbs, rx_bw and the recommendation are ignored by mlx5: keep what was read.
  dcb::Ets wanted = observed.value_or(dcb::Ets{});
  wanted.prio_tc = c.want.ets.prio_tc;
  wanted.tc_tsa = c.want.ets.tsa;
  wanted.tc_tx_bw = c.want.ets.bandwidth;
  return Writes{[wanted](Writer& w) { return w.write([&] { return w.device().set_ets(wanted); }); },
                [observed](Writer& w) -> Result<void> {
                  if (!observed) return not_read("ETS");
                  return w.write([&] { return w.device().set_ets(*observed); });
                }};
}

std::optional<Writes> FeatureSpec<Feature::Maxrate>::writes(const WriteCtx& c) {
  if (!c.want.maxrate_mbps) return std::nullopt;
  dcb::Maxrate wanted;
  for (size_t tc = 0; tc < wanted.tc_kbps.size(); ++tc) {
    wanted.tc_kbps[tc] = uint64_t{(*c.want.maxrate_mbps)[tc]} * 1000;
  }
  const auto observed = c.observed.maxrate.value;
  return Writes{
      [wanted](Writer& w) { return w.write([&] { return w.device().set_maxrate(wanted); }); },
      [observed](Writer& w) -> Result<void> {
        if (!observed) return not_read("the TC rate limits");
        return w.write([&] { return w.device().set_maxrate(*observed); });
      }};
}

std::optional<Writes> FeatureSpec<Feature::Pfc>::writes(const WriteCtx& c) {
  const auto observed = c.observed.pfc.value;
  // Mask and delay both come from the profile: the one not being changed already reads so.
  dcb::Pfc wanted = observed.value_or(dcb::Pfc{});
  wanted.enabled_mask = c.want.pfc_priorities;
  wanted.delay = c.want.cable_length_m;
  // A port without buffer commands reads delay 0, which is no cable length: mainline ignores a
  // 0 in setpfc, NVIDIA's own tree refuses it (-EINVAL). The undo sends what it wrote instead.
  std::optional<dcb::Pfc> restore = observed;
  if (restore && restore->delay == 0) restore->delay = wanted.delay;
  // mlx5 sets the mask and flaps the link before the steps that can still fail (the cable
  // length, the buffers: en_dcbnl.c mlx5e_dcbnl_ieee_setpfc), so a failed setpfc may have changed
  // the port and is undone like one that succeeded.
  constexpr bool kMayApplyInPart = true;
  return Writes{[wanted](Writer& w) {
                  return w.write([&] { return w.device().set_pfc(wanted); }, kMayApplyInPart);
                },
                [restore](Writer& w) -> Result<void> {
                  if (!restore) return not_read("PFC");
                  return w.write([&] { return w.device().set_pfc(*restore); }, kMayApplyInPart);
                }};
}

std::optional<Writes> FeatureSpec<Feature::Buffer>::writes(const WriteCtx& c) {
  if (!c.want.buffers) return std::nullopt;
  const auto observed = c.observed.buffer.value;
  dcb::Buffer wanted = observed.value_or(dcb::Buffer{});
  wanted.prio2buffer = c.want.buffers->prio2buffer;
  wanted.buffer_size = c.want.buffers->buffer_size;
  return Writes{
      [wanted](Writer& w) { return w.write([&] { return w.device().set_buffer(wanted); }); },
      // mlx5 stays in manual-buffer mode after any buffer SET: the sizes come back, the driver's
      // automatic layout does not.
      [observed](Writer& w) -> Result<void> {
        if (!observed) return not_read("the buffer configuration");
        return w.write([&] { return w.device().set_buffer(*observed); });
      }};
}

}  // namespace roced::settings
