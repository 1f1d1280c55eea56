// SPDX-License-Identifier: Apache-2.0
#include "sim/server/ethtool_service.hpp"

#include <linux/ethtool.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "roce_sim.h"
#include "sim/model/firmware_commands.hpp"

namespace roce_sim::server {

namespace {

template <typename T>
bool read_struct(ByteView in, T& out) {
  if (in.size() < sizeof(T)) return false;
  std::memcpy(&out, in.data(), sizeof(T));
  return true;
}

template <typename T>
void append(Bytes& out, const T& value) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

void copy_string(char* dst, size_t size, const std::string& src) {  // strscpy
  std::memset(dst, 0, size);
  std::memcpy(dst, src.data(), std::min(size - 1, src.size()));
}

constexpr uint32_t kStringSetStats = ETH_SS_STATS;

// The ioctl commands that change state (linux/ethtool.h): what the write counter counts.
bool is_set_command(uint32_t cmd) {
  switch (cmd) {
    case ETHTOOL_SSET:
    case ETHTOOL_SWOL:
    case ETHTOOL_SMSGLVL:
    case ETHTOOL_NWAY_RST:
    case ETHTOOL_SEEPROM:
    case ETHTOOL_SCOALESCE:
    case ETHTOOL_SRINGPARAM:
    case ETHTOOL_SPAUSEPARAM:
    case ETHTOOL_SRXCSUM:
    case ETHTOOL_STXCSUM:
    case ETHTOOL_SSG:
    case ETHTOOL_STSO:
    case ETHTOOL_SGSO:
    case ETHTOOL_SGRO:
    case ETHTOOL_SFLAGS:
    case ETHTOOL_SPFLAGS:
    case ETHTOOL_SRXFH:
    case ETHTOOL_SRXCLSRLDEL:
    case ETHTOOL_SRXCLSRLINS:
    case ETHTOOL_FLASHDEV:
    case ETHTOOL_RESET:
    case ETHTOOL_SRXNTUPLE:
    case ETHTOOL_SRXFHINDIR:
    case ETHTOOL_SFEATURES:
    case ETHTOOL_SCHANNELS:
    case ETHTOOL_SET_DUMP:
    case ETHTOOL_SEEE:
    case ETHTOOL_SRSSH:
    case ETHTOOL_STUNABLE:
    case ETHTOOL_PHY_STUNABLE:
    case ETHTOOL_SLINKSETTINGS:
    case ETHTOOL_SFECPARAM:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<std::string> EthtoolService::take_request_log() {
  std::vector<std::string> log;
  log.swap(request_log_);
  return log;
}

Bytes EthtoolService::handle(ByteView datagram, bool net_admin) {
  roce_sim_ethtool_req request{};
  Bytes payload;
  int error = 0;
  if (!read_struct(datagram, request) || datagram.size() - sizeof request < request.len) {
    error = -EFAULT;  // a short copy_from_user
  } else {
    const std::string ifname(request.ifname, strnlen(request.ifname, sizeof request.ifname));
    request_log_.push_back("ethtool cmd 0x" + [&] {
      char hex[16];
      std::snprintf(hex, sizeof hex, "%x", request.cmd);
      return std::string(hex);
    }() + " " + ifname);
    if (writes_ && is_set_command(request.cmd)) writes_->count(ifname);
    Port* port = node_.find(ifname);
    if (request.cmd == ROCE_SIM_ETHTOOL_SYNC_FILES) {
      error = 0;  // the server took the file writes before this request: nothing left to do
    } else if (!port) {
      error = -ENODEV;  // dev_ioctl: __dev_get_by_name failed
    } else if (!net_admin && is_set_command(request.cmd)) {
      error = -EPERM;  // __dev_ethtool (net/ethtool/ioctl.c): ns_capable(CAP_NET_ADMIN)
    } else {
      error = dispatch(*port, request.cmd, datagram.subspan(sizeof request, request.len), payload);
    }
  }
  if (error != 0) payload.clear();
  roce_sim_ethtool_rep reply{};
  reply.error = error;
  reply.len = static_cast<uint32_t>(payload.size());
  Bytes out;
  append(out, reply);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// The legacy flat image (ethtool_get_any_eeprom checks the range against get_module_info's
// length): bytes 0-255 are page 00h, then the upper halves of pages 01h-03h, 128 bytes each
// (port.c mlx5_qsfp_eeprom_params_set), read in MCIA chunks that do not cross a page.
int EthtoolService::get_module_eeprom(Port& port, ByteView in, Bytes& out) {
  ethtool_eeprom request{};
  if (!read_struct(in, request)) return -EFAULT;
  Transceiver* module = port.transceiver();
  if (port.empty_cage()) {
    port.issue("ACCESS_REG", 2);
    return -EIO;  // ethtool_get_any_eeprom asks get_module_info first, which fails
  }
  if (module == nullptr) return -EOPNOTSUPP;
  if (module->form() != ModuleForm::qsfp28) return -EINVAL;  // get_module_info refuses it
  if (request.offset + request.len <= request.offset) return -EINVAL;
  if (request.offset + request.len > Transceiver::kLegacyLength) return -EINVAL;
  port.issue("ACCESS_REG", 2);  // ethtool_get_any_eeprom asks get_module_info first
  std::vector<uint8_t> data;
  for (uint32_t at = request.offset; at < request.offset + request.len;) {
    const uint8_t page = at < 256 ? 0 : static_cast<uint8_t>(1 + (at - 256) / 128);
    const uint32_t offset = page == 0 ? at : at - page * 128;
    const uint32_t size =
        std::min({request.offset + request.len - at, firmware::kMciaMaxBytes, 256 - offset});
    port.issue("ACCESS_REG", firmware::kLegacyEepromChunkAccessRegs);
    const std::vector<uint8_t> chunk = module->read(page, offset, size);
    data.insert(data.end(), chunk.begin(), chunk.end());
    at += size;
  }
  append(out, request);
  out.insert(out.end(), data.begin(), data.end());
  return 0;
}

// __dev_ethtool: the commands mlx5e_ethtool_ops answer that roced and the tools use.
int EthtoolService::dispatch(Port& port, uint32_t cmd, ByteView in, Bytes& out) {
  switch (cmd) {
    case ETHTOOL_GDRVINFO: {  // ethtool_get_drvinfo + mlx5e_ethtool_get_drvinfo
      const DriverInfo info = port.drvinfo();
      ethtool_drvinfo drv{};
      drv.cmd = ETHTOOL_GDRVINFO;
      copy_string(drv.driver, sizeof drv.driver, info.driver);
      copy_string(drv.version, sizeof drv.version, info.version);
      copy_string(drv.fw_version, sizeof drv.fw_version, info.firmware);
      copy_string(drv.bus_info, sizeof drv.bus_info, info.bus_info);
      // ethtool_get_drvinfo: n_stats from get_sset_count, which a stacked netdev has not.
      drv.n_stats = port.spec().is_stacked() ? 0 : static_cast<uint32_t>(port.stat_count());
      append(out, drv);
      return 0;
    }
    case ETHTOOL_GSSET_INFO: {  // ethtool_get_sset_info: only the string sets the model has
      ethtool_sset_info info{};
      if (!read_struct(in, info)) return -EFAULT;
      const uint64_t requested = info.sset_mask;
      info.sset_mask = 0;
      std::vector<uint32_t> counts;
      for (uint32_t set = 0; set < 64; ++set) {
        if (!(requested & (uint64_t{1} << set))) continue;
        // A bond, VLAN or macvlan has no get_sset_count (bond_ethtool_ops, vlan_ethtool_ops,
        // macvlan_ethtool_ops): no string set at all.
        if (set == kStringSetStats && !port.spec().is_stacked()) {
          info.sset_mask |= uint64_t{1} << set;
          counts.push_back(static_cast<uint32_t>(port.stat_count()));
        }
      }
      append(out, info);
      for (uint32_t count : counts) append(out, count);
      return 0;
    }
    case ETHTOOL_GSTRINGS: {  // ethtool_get_strings
      ethtool_gstrings strings{};
      if (!read_struct(in, strings)) return -EFAULT;
      if (strings.string_set != kStringSetStats) return -EOPNOTSUPP;  // mlx5e_get_sset_count
      if (port.spec().is_stacked()) return -EOPNOTSUPP;  // __ethtool_get_sset_count: no op
      const auto names = port.stat_names();
      // ethtool_get_strings, on a kernel that checks the count: a caller's nonzero len that is
      // not the set's gets len 0 and no strings.
      if (node_.kernel().checks_stats_count() && strings.len != 0 &&
          strings.len != names.size()) {
        strings.len = 0;
        append(out, strings);
        return 0;
      }
      strings.len = static_cast<uint32_t>(names.size());
      append(out, strings);
      for (const std::string& name : names) {
        char slot[ETH_GSTRING_LEN] = {};
        std::memcpy(slot, name.data(), std::min(name.size(), sizeof slot - 1));
        out.insert(out.end(), slot, slot + sizeof slot);
      }
      return 0;
    }
    case ETHTOOL_GSTATS: {  // ethtool_get_stats
      ethtool_stats stats{};
      if (!read_struct(in, stats)) return -EFAULT;
      // net/ethtool/ioctl.c ethtool_get_stats: no get_ethtool_stats (a bond's, VLAN's or
      // macvlan's ops) is EOPNOTSUPP.
      if (port.spec().is_stacked()) return -EOPNOTSUPP;
      // ethtool_get_stats, on a kernel that checks the count: a caller's nonzero n_stats that is
      // not get_sset_count's answers n_stats 0 and no values, without the driver's read.
      if (node_.kernel().checks_stats_count() && stats.n_stats != 0 &&
          stats.n_stats != port.stat_count()) {
        stats.n_stats = 0;
        append(out, stats);
        return 0;
      }
      // mlx5e_stats_update: every group's counters from the firmware first.
      port.issue("ACCESS_REG", firmware::kStatsAccessRegs + (port.spec().caps.prio_discard_counters
                                                                 ? firmware::kStatsCongestAccessRegs
                                                                 : 0));
      for (const firmware::Commands& query : firmware::kStatsQueries) {
        port.issue(query.name, query.count);
      }
      port.update_stats();
      const auto values = port.stat_values();
      stats.n_stats = static_cast<uint32_t>(values.size());
      append(out, stats);
      for (uint64_t value : values) append(out, value);
      return 0;
    }
    case ETHTOOL_GMODULEINFO: {  // ethtool_get_module_info + mlx5e_get_module_info
      ethtool_modinfo info{};
      if (!read_struct(in, info)) return -EFAULT;
      if (port.transceiver() == nullptr && !port.empty_cage()) return -EOPNOTSUPP;  // no cage
      port.issue("ACCESS_REG", 2);         // PMLP, then MCIA for the identifier and revision
      if (port.empty_cage()) return -EIO;  // fewer than 2 bytes read
      // Only SFP, the QSFPs and DSFP (0x1b) have a legacy layout here; QSFP-DD and OSFP are
      // "not supported" (-EINVAL) and readable through the netlink by-page op only.
      if (port.transceiver()->form() != ModuleForm::qsfp28) return -EINVAL;
      info.type = ETH_MODULE_SFF_8636;
      info.eeprom_len = Transceiver::kLegacyLength;
      append(out, info);
      return 0;
    }
    case ETHTOOL_GMODULEEEPROM:  // ethtool_get_any_eeprom + mlx5e_get_module_eeprom
      return get_module_eeprom(port, in, out);
    case ETHTOOL_GTUNABLE:
    case ETHTOOL_STUNABLE: {  // ethtool_get_tunable / ethtool_set_tunable + ethtool_tunable_valid
      ethtool_tunable tunable{};
      if (!read_struct(in, tunable)) return -EFAULT;
      if (tunable.id != ETHTOOL_PFC_PREVENTION_TOUT) {
        // ethtool_tunable_valid accepts the other ids; mlx5e_{get,set}_tunable refuses them.
        return -EINVAL;
      }
      if (tunable.len != sizeof(uint16_t) || tunable.type_id != ETHTOOL_TUNABLE_U16) return -EINVAL;
      port.issue("ACCESS_REG", firmware::kStallTunable);  // PFCC
      if (cmd == ETHTOOL_GTUNABLE) {
        uint16_t ms = 0;
        if (const int err = port.get_pfc_prevention_tout(ms); err != 0) return err > 0 ? -err : err;
        append(out, tunable);
        append(out, ms);
        return 0;
      }
      uint16_t ms = 0;
      if (in.size() < sizeof tunable + sizeof ms) return -EFAULT;
      std::memcpy(&ms, in.data() + sizeof tunable, sizeof ms);
      if (const int injected = node_.take_injected_error(port.netdev(), SetOp::StallPrevention);
          injected != 0) {
        return injected > 0 ? -injected : injected;
      }
      const int err = port.set_pfc_prevention_tout(ms);
      return err > 0 ? -err : err;
    }
    case ETHTOOL_GPAUSEPARAM: {  // ethtool_get_pauseparam + mlx5e_ethtool_get_pauseparam
      PauseParam pause;
      if (const int err = port.get_pauseparam(pause); err != 0) return err;
      ethtool_pauseparam param{};
      param.cmd = ETHTOOL_GPAUSEPARAM;
      param.autoneg = pause.autoneg ? 1 : 0;
      param.rx_pause = pause.rx ? 1 : 0;
      param.tx_pause = pause.tx ? 1 : 0;
      append(out, param);
      return 0;
    }
    case ETHTOOL_SPAUSEPARAM: {  // ethtool_set_pauseparam + mlx5e_ethtool_set_pauseparam
      ethtool_pauseparam param{};
      if (!read_struct(in, param)) return -EFAULT;
      if (const int injected = node_.take_injected_error(port.netdev(), SetOp::GlobalPause);
          injected != 0) {
        return injected > 0 ? -injected : injected;
      }
      // The driver reads each field as a flag (`rx_pause ? 1 : 0`), as ethtool(8) writes them.
      return port.set_pauseparam(
          PauseParam{param.autoneg != 0, param.rx_pause != 0, param.tx_pause != 0});
    }
    case ETHTOOL_GCHANNELS: {  // ethtool_get_channels + mlx5e_ethtool_get_channels
      ethtool_channels channels{};
      channels.cmd = ETHTOOL_GCHANNELS;
      channels.max_combined = kMaxChannels;
      channels.combined_count = port.channels();
      append(out, channels);
      return 0;
    }
    case ETHTOOL_SCHANNELS: {  // ethtool_set_channels + mlx5e_ethtool_set_channels
      ethtool_channels channels{};
      if (!read_struct(in, channels)) return -EFAULT;
      if (channels.combined_count == port.channels() && !channels.rx_count && !channels.tx_count &&
          !channels.other_count) {
        return 0;  // the same counts: the core does not call the driver
      }
      // The core: within the maxima the driver reports (no separate rx/tx/other channels), and
      // some channel left; mlx5 then wants combined channels only.
      if (channels.combined_count > kMaxChannels || channels.rx_count || channels.tx_count ||
          channels.other_count || !channels.combined_count) {
        return -EINVAL;
      }
      return port.set_channels(channels.combined_count);
    }
    case ETHTOOL_GLINK: {  // ethtool_get_link: netif_running && carrier
      ethtool_value value{};
      value.cmd = ETHTOOL_GLINK;
      value.data = port.carrier() ? 1 : 0;
      append(out, value);
      return 0;
    }
    case ETHTOOL_GSET: {  // ethtool_get_settings: link ksettings in the legacy struct
      ethtool_cmd settings{};
      settings.cmd = ETHTOOL_GSET;
      const uint32_t speed = port.carrier() ? port.speed_mbps() : SPEED_UNKNOWN;
      settings.speed = static_cast<uint16_t>(speed & 0xffff);
      settings.speed_hi = static_cast<uint16_t>(speed >> 16);
      settings.duplex = port.carrier() ? DUPLEX_FULL : DUPLEX_UNKNOWN;
      settings.port = PORT_DA;
      settings.transceiver = XCVR_INTERNAL;
      settings.autoneg = AUTONEG_ENABLE;
      settings.supported = SUPPORTED_Autoneg | SUPPORTED_FIBRE | SUPPORTED_Pause;
      settings.advertising = ADVERTISED_Autoneg | ADVERTISED_FIBRE | ADVERTISED_Pause;
      append(out, settings);
      return 0;
    }
    default:
      return -EOPNOTSUPP;
  }
}

}  // namespace roce_sim::server
