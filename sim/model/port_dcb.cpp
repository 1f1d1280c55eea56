// SPDX-License-Identifier: Apache-2.0
// DCB ops of a port, following drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c,
// en/port_buffer.c and the generic APP bookkeeping of net/dcb/dcbnl.c.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "sim/model/port.hpp"

namespace roce_sim {
namespace {

constexpr uint8_t kMaxBwAlloc = 100;        // MLX5E_MAX_BW_ALLOC
constexpr uint8_t kVendorTcGroup = 7;       // MLX5E_VENDOR_TC_GROUP_NUM
constexpr uint8_t kLowestPrioGroup = 0;     // MLX5E_LOWEST_PRIO_GROUP
constexpr int kMaxTc = 7;                   // mlx5_max_tc() on ConnectX-7
constexpr uint32_t kMaxCableLength = 1000;  // MLX5E_MAX_CABLE_LENGTH
constexpr uint64_t k100Mb = 100000;         // MLX5E_100MB, in kbit/s
constexpr uint64_t k1Gb = 1000000;          // MLX5E_1GB
constexpr uint32_t kMinimumMaxMtu = 9216;   // MINIMUM_MAX_MTU
constexpr uint32_t kAutoLossyBytes = 262144;
constexpr uint32_t kAutoLosslessBytes = 262144;

enum BwUnit : uint8_t { kBwNoLimit = 0, k100MbpsUnit = 3, kGbpsUnit = 4 };  // MLX5_*_UNIT

uint32_t round_down_cells(uint64_t bytes) {
  return static_cast<uint32_t>(bytes / Port::kBufferCellBytes * Port::kBufferCellBytes);
}

}  // namespace

// update_buffer_lossy (en/port_buffer.c), both trees: a buffer is lossless when at least one PFC
// priority maps to it; true when a bit changed.
bool Port::set_lossy_bits(uint8_t pfc_en, const uint8_t* prio2buffer, std::array<bool, 8>& lossy) {
  bool changed = false;
  for (size_t i = 0; i < 8; ++i) {
    int prio_count = 0, lossy_count = 0;
    for (int prio = 0; prio < 8; ++prio) {
      if (prio2buffer[prio] != i) continue;
      ++prio_count;
      lossy_count += !(pfc_en & (1 << prio));
    }
    const bool now_lossy = lossy_count == prio_count;
    if (now_lossy != lossy[i]) {
      lossy[i] = now_lossy;
      changed = true;
    }
  }
  return changed;
}

// ---- ETS ----

void Port::setets_core(const ieee_ets& ets) {
  // mlx5e_build_tc_group
  bool any_tc_mapped_to_ets = false, ets_zero_bw = false;
  for (int i = 0; i <= kMaxTc; ++i) {
    if (ets.tc_tsa[i] == IEEE_8021QAZ_TSA_ETS) {
      any_tc_mapped_to_ets = true;
      if (!ets.tc_tx_bw[i]) ets_zero_bw = true;
    }
  }
  uint8_t strict_group = kLowestPrioGroup;
  if (any_tc_mapped_to_ets) ++strict_group;
  if (ets_zero_bw) ++strict_group;
  std::array<uint8_t, 8> group{};
  for (int i = 0; i <= kMaxTc; ++i) {
    switch (ets.tc_tsa[i]) {
      case IEEE_8021QAZ_TSA_VENDOR:
        group[i] = kVendorTcGroup;
        break;
      case IEEE_8021QAZ_TSA_STRICT:
        group[i] = strict_group++;
        break;
      case IEEE_8021QAZ_TSA_ETS:
        group[i] = (ets.tc_tx_bw[i] && ets_zero_bw) ? kLowestPrioGroup + 1 : kLowestPrioGroup;
        break;
      default:
        group[i] = fw_tc_group_[i];
        break;  // other TSAs: the driver leaves it unset
    }
  }
  // mlx5e_build_tc_tx_bw: zero-bandwidth ETS TCs share 100 % between them.
  int num_ets_zero_bw = 0, last_ets_zero_bw_tc = -1;
  for (int i = 0; i <= kMaxTc; ++i) {
    if (ets.tc_tsa[i] == IEEE_8021QAZ_TSA_ETS && !ets.tc_tx_bw[i]) {
      ++num_ets_zero_bw;
      last_ets_zero_bw_tc = i;
    }
  }
  const int bw_for_zero = num_ets_zero_bw ? kMaxBwAlloc / num_ets_zero_bw : 0;
  std::array<uint8_t, 8> bw{};
  for (int i = 0; i <= kMaxTc; ++i) {
    switch (ets.tc_tsa[i]) {
      case IEEE_8021QAZ_TSA_ETS:
        bw[i] = ets.tc_tx_bw[i] ? ets.tc_tx_bw[i] : static_cast<uint8_t>(bw_for_zero);
        break;
      default:
        bw[i] = kMaxBwAlloc;
        break;
    }
  }
  if (last_ets_zero_bw_tc != -1)
    bw[last_ets_zero_bw_tc] =
        static_cast<uint8_t>(bw[last_ets_zero_bw_tc] + kMaxBwAlloc % num_ets_zero_bw);

  for (int i = 0; i < 8; ++i) fw_prio_tc_[i] = ets.prio_tc[i];
  fw_tc_group_ = group;
  fw_tc_bw_ = bw;
  std::memcpy(ets_.tc_tsa, ets.tc_tsa, sizeof ets_.tc_tsa);  // priv->dcbx.tc_tsa
}

int Port::ieee_getets(ieee_ets& out) const {
  // mlx5e_dcbnl_ieee_getets: rebuilt from the firmware's prio_tc, tc_group and bw registers.
  out = ieee_ets{};
  out.ets_cap = kMaxTc + 1;
  bool is_tc_group_6_exist = false, is_zero_bw_ets_tc = false;
  for (int i = 0; i < out.ets_cap; ++i) {
    out.prio_tc[i] = fw_prio_tc_[i];
    out.tc_tx_bw[i] = fw_tc_bw_[i];
    if (fw_tc_bw_[i] < kMaxBwAlloc && fw_tc_group_[i] == kLowestPrioGroup + 1)
      is_zero_bw_ets_tc = true;
    if (fw_tc_group_[i] == kVendorTcGroup - 1) is_tc_group_6_exist = true;
  }
  if (is_zero_bw_ets_tc)
    for (int i = 0; i < out.ets_cap; ++i)
      if (fw_tc_group_[i] == kLowestPrioGroup) out.tc_tx_bw[i] = 0;
  uint8_t tsa[8];
  std::memcpy(tsa, ets_.tc_tsa, sizeof tsa);
  for (int i = 0; i < out.ets_cap; ++i) {
    if (out.tc_tx_bw[i] < kMaxBwAlloc)
      tsa[i] = IEEE_8021QAZ_TSA_ETS;
    else if (fw_tc_group_[i] == kVendorTcGroup && !is_tc_group_6_exist)
      tsa[i] = IEEE_8021QAZ_TSA_VENDOR;
  }
  std::memcpy(out.tc_tsa, tsa, sizeof tsa);
  return 0;
}

int Port::ieee_setets(const ieee_ets& in) {
  // mlx5e_dbcnl_validate_ets(zero_sum_allowed = false): every prio_tc < 8; when any TC is ETS,
  // the ETS bandwidths must sum to exactly 100. Strict and vendor TCs do not count.
  for (int i = 0; i < 8; ++i)
    if (in.prio_tc[i] >= 8) return -EINVAL;
  bool have_ets_tc = false;
  int bw_sum = 0;
  for (int i = 0; i < 8; ++i) {
    if (in.tc_tsa[i] == IEEE_8021QAZ_TSA_ETS) {
      have_ets_tc = true;
      bw_sum += in.tc_tx_bw[i];
    }
  }
  if (have_ets_tc && bw_sum != 100) return -EINVAL;
  setets_core(in);  // willing, cbs, tc_rx_bw, tc_reco_*: ignored
  return 0;
}

// ---- PFC ----

int Port::ieee_getpfc(ieee_pfc& out) const {
  // mlx5e_dcbnl_ieee_getpfc
  out = ieee_pfc{};
  out.pfc_cap = kMaxTc + 1;
  // Every priority's, PFC or not, from priv->stats.pport as the last ETHTOOL_GSTATS left it.
  for (size_t i = 0; i < 8; ++i) {
    out.requests[i] = cached_pause_[i].tx;
    out.indications[i] = cached_pause_[i].rx;
  }
  if (spec_.caps.buffers) out.delay = static_cast<uint16_t>(cable_len_);
  out.pfc_en = pfc_en_;
  return 0;
}

void Port::set_port_pfc(uint8_t mask) {
  // port.c mlx5_set_port_pfc(tx = rx = mask): PFCC written from a zeroed buffer with only
  // pfctx/pfcrx and their prio masks set, so pptx and pprx (pptx_mask_n and pprx_mask_n 0) are
  // written as 0 too: 802.3x global pause goes off in both directions. Both driver trees call it
  // only when the mask differs from the firmware's (mlx5e_dcbnl_ieee_setpfc), so a write of the
  // unchanged mask leaves global pause as it was.
  pfc_en_ = mask;
  pause_rx_ = false;
  pause_tx_ = false;
}

int Port::ieee_setpfc(const ieee_pfc& in) {
  if (spec_.traits.cable_length == CableLengthHome::Firmware) return nvidia_setpfc(in);
  // mlx5e_dcbnl_ieee_setpfc (Debian 6.1, MLNX_OFED; Debian 6.12 asks the firmware who owns the
  // buffers instead of keeping a flag)
  const uint32_t old_cable_len = cable_len_;
  uint32_t changed = 0;
  const uint8_t curr_pfc_en = pfc_en_;
  if (in.pfc_en != curr_pfc_en) {
    set_port_pfc(in.pfc_en);
    toggle_link();
    changed |= kChangePfc;
  }
  if (in.delay && in.delay < kMaxCableLength && in.delay != cable_len_) {
    cable_len_ = in.delay;
    changed |= kChangeCableLen;
  }
  int ret = 0;
  if (spec_.caps.buffers) {
    const uint8_t pfc_new = (changed & kChangePfc) ? in.pfc_en : curr_pfc_en;
    if (host_recomputes_buffers())
      ret = manual_buffer_config(changed, pfc_new, nullptr, nullptr);
    else if (!buffers_manual_)
      auto_buffer_layout();
    if (ret && (changed & kChangeCableLen)) cable_len_ = old_cable_len;
  }
  return ret;
}

// ---- maxrate ----

int Port::ieee_getmaxrate(ieee_maxrate& out) const {
  // mlx5e_dcbnl_ieee_getmaxrate
  out = ieee_maxrate{};
  for (int i = 0; i <= kMaxTc; ++i) {
    switch (max_bw_unit_[i]) {
      case k100MbpsUnit:
        out.tc_maxrate[i] = max_bw_value_[i] * k100Mb;
        break;
      case kGbpsUnit:
        out.tc_maxrate[i] = max_bw_value_[i] * k1Gb;
        break;
      default:
        break;
    }
  }
  return 0;
}

bool Port::host_recomputes_buffers() const {
  if (spec_.traits.buffer_recompute == BufferRecompute::ManualFlag) return buffers_manual_;
  // port.c mlx5_query_port_buffer_ownership: unknown without PCAM buffer_ownership, which is never
  // MLX5_BUF_OWNERSHIP_SW_OWNED; with it, the firmware reports the buffers host-owned once a PBMC
  // write succeeded.
  return spec_.caps.buffer_ownership && buffers_manual_;
}

int Port::ieee_setmaxrate(const ieee_maxrate& in) {
  if (spec_.traits.maxrate == MaxrateEncoding::U8Checked) return checked_setmaxrate(in);
  if (spec_.traits.maxrate == MaxrateEncoding::U16) {
    // NVIDIA's tree with the QCAM qetcr_qshr_max_bw_val_msb feature: a u16 count of 100 Mbit/s
    // units up to 6553.5 Gbit/s, of 1 Gbit/s units up to 65535 Gbit/s, -EINVAL above.
    const uint64_t upper_100mbps = uint64_t{UINT16_MAX} * k100Mb;
    const uint64_t upper_gbps = uint64_t{UINT16_MAX} * k1Gb;
    std::array<uint16_t, 8> value{};
    std::array<uint8_t, 8> unit{};
    for (int i = 0; i <= kMaxTc; ++i) {
      const uint64_t rate = in.tc_maxrate[i];
      if (!rate) {
        unit[i] = kBwNoLimit;
      } else if (rate <= upper_100mbps) {
        value[i] = static_cast<uint16_t>(std::max<uint64_t>(rate / k100Mb, 1));
        unit[i] = k100MbpsUnit;
      } else if (rate <= upper_gbps) {
        value[i] = static_cast<uint16_t>(rate / k1Gb);
        unit[i] = kGbpsUnit;
      } else {
        return -EINVAL;
      }
    }
    max_bw_value_ = value;
    max_bw_unit_ = unit;
    return 0;
  }
  // mlx5e_dcbnl_ieee_setmaxrate (Debian 6.1.115, MLNX_OFED 24.04-25.10): below roundup(255 * 100
  // Mb, 1 Gb) = 26 Gb/s in 100 Mb/s units, at least one; above in whole Gb/s. The value register is
  // a u8 and the driver does not clamp: 25.6..25.9 Gb/s and >= 256 Gb/s wrap modulo 256 units,
  // exactly as on real hardware.
  const uint64_t upper_limit = (255 * k100Mb + k1Gb - 1) / k1Gb * k1Gb;
  for (int i = 0; i <= kMaxTc; ++i) {
    const uint64_t rate = in.tc_maxrate[i];
    if (!rate) {
      max_bw_value_[i] = 0;
      max_bw_unit_[i] = kBwNoLimit;
    } else if (rate < upper_limit) {
      max_bw_value_[i] = static_cast<uint8_t>(rate / k100Mb);
      if (!max_bw_value_[i]) max_bw_value_[i] = 1;
      max_bw_unit_[i] = k100MbpsUnit;
    } else {
      max_bw_value_[i] = static_cast<uint8_t>(rate / k1Gb);
      max_bw_unit_[i] = kGbpsUnit;
    }
  }
  return 0;
}

int Port::checked_setmaxrate(const ieee_maxrate& in) {
  // mlx5e_dcbnl_ieee_setmaxrate after "Fix maxrate wraparound in threshold between units" and
  // "... above 255 Gbps" (Debian 6.1.159, 6.12.63): up to 25.5 Gb/s in 100 Mb/s units, up to
  // 255 Gb/s in whole Gb/s, -EINVAL above, before anything is written.
  const uint64_t upper_limit_mbps = 255 * k100Mb;
  const uint64_t upper_limit_gbps = 255 * k1Gb;
  std::array<uint8_t, 8> value{};
  std::array<uint8_t, 8> unit{};
  for (int i = 0; i <= kMaxTc; ++i) {
    const uint64_t rate = in.tc_maxrate[i];
    if (!rate) {
      unit[i] = kBwNoLimit;
    } else if (rate <= upper_limit_mbps) {
      value[i] = static_cast<uint8_t>(std::max<uint64_t>(rate / k100Mb, 1));
      unit[i] = k100MbpsUnit;
    } else if (rate <= upper_limit_gbps) {
      value[i] = static_cast<uint8_t>(rate / k1Gb);
      unit[i] = kGbpsUnit;
    } else {
      return -EINVAL;
    }
  }
  std::copy(value.begin(), value.end(), max_bw_value_.begin());
  max_bw_unit_ = unit;
  return 0;
}

// ---- buffers ----

uint32_t Port::calculate_xoff() const {
  // calculate_xoff (en/port_buffer.c): with the link down (training after a toggle)
  // mlx5e_port_linkspeed fails and 40 Gb/s is used.
  return xoff_at(carrier() ? spec_.speed_mbps : 40000);
}

uint32_t Port::xoff_at(uint64_t speed_mbps) const { return xoff_at(speed_mbps, cable_len_); }

uint32_t Port::xoff_at(uint64_t speed_mbps, uint32_t cable_m) const {
  // xoff = (301 + 2.16 * len[m]) * speed[Gb/s] + 2.72 * MTU, speed >= 40 Gb/s.
  const uint64_t speed = std::max<uint64_t>(speed_mbps, 40000);
  const uint64_t xoff =
      (301 + 216 * uint64_t{cable_m} / 100) * speed / 1000 + 272 * uint64_t{mtu_} / 100;
  return static_cast<uint32_t>(xoff);
}

void Port::auto_buffer_layout() {
  // Not in manual mode the firmware owns the buffers: PFC priorities on a lossless buffer 1,
  // everything else on lossy buffer 0 (a plausible ConnectX-7 layout; not in the kernel source).
  const uint32_t max_mtu_eff = std::max(spec_.max_mtu, kMinimumMaxMtu);
  // The firmware knows its own link, but not the host's cable length: mainline mlx5 never sends
  // it with firmware-owned buffers (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc), so the layout is the
  // same whatever getpfc echoes.
  // NVIDIA's tree writes it to the firmware (PFCC) where the firmware has the PCAM cable_length
  // feature (en/port_buffer.c mlx5e_port_set_cable_len), and the firmware then sizes with it.
  const bool firmware_knows_cable =
      spec_.traits.cable_length == CableLengthHome::Firmware && spec_.caps.cable_length;
  const uint32_t xoff =
      xoff_at(spec_.speed_mbps, firmware_knows_cable ? cable_len_ : kFirmwareCableMetres);
  buffer_ = dcbnl_buffer{};
  buf_xoff_.fill(0);
  buf_xon_.fill(0);
  buf_lossy_.fill(true);
  for (int prio = 0; prio < 8; ++prio) buffer_.prio2buffer[prio] = (pfc_en_ >> prio) & 1 ? 1 : 0;
  buffer_.buffer_size[0] = kAutoLossyBytes;
  if (pfc_en_) {
    const uint64_t needed = uint64_t{xoff} + max_mtu_eff + kBufferCellBytes;
    const uint64_t rounded = (needed + kBufferCellBytes - 1) / kBufferCellBytes * kBufferCellBytes;
    buffer_.buffer_size[1] = static_cast<uint32_t>(std::max<uint64_t>(kAutoLosslessBytes, rounded));
    buf_lossy_[1] = false;
    buf_xoff_[1] = round_down_cells(buffer_.buffer_size[1] - xoff);
    buf_xon_[1] = round_down_cells(buffer_.buffer_size[1] - xoff - max_mtu_eff);
  }
  buffer_.total_size = kPortBufferBytes;
}

int Port::manual_buffer_config(uint32_t change, uint8_t pfc_en, const uint32_t* sizes,
                               const uint8_t* prio2buffer) {
  // mlx5e_port_manual_buffer_config on a copy of the firmware state; applied only on success.
  const uint32_t max_mtu_eff = std::max(spec_.max_mtu, kMinimumMaxMtu);
  const uint32_t xoff = calculate_xoff();
  std::array<uint32_t, 8> size{};
  std::array<bool, 8> lossy = buf_lossy_;
  std::array<uint32_t, 8> new_xoff = buf_xoff_, new_xon = buf_xon_;
  for (size_t i = 0; i < 8; ++i) size[i] = buffer_.buffer_size[i];
  uint32_t headroom = 0;
  for (uint32_t s : size) headroom += s;

  // update_xoff_threshold
  auto update_xoff_threshold = [&]() -> int {
    for (size_t i = 0; i < 8; ++i) {
      if (lossy[i]) {
        new_xoff[i] = new_xon[i] = 0;
        continue;
      }
      if (uint64_t{size[i]} < uint64_t{xoff} + max_mtu_eff + kBufferCellBytes) return -ENOMEM;
      new_xoff[i] = size[i] - xoff;
      new_xon[i] = new_xoff[i] - max_mtu_eff;
    }
    return 0;
  };
  bool update_buffer = false;
  // update_buffer_lossy: a buffer is lossless when at least one PFC priority maps to it.
  auto update_buffer_lossy = [&](uint8_t pfc, const uint8_t* map) -> int {
    if (set_lossy_bits(pfc, map, lossy)) {
      if (int err = update_xoff_threshold()) return err;
      update_buffer = true;
    }
    return 0;
  };

  if (change & kChangeCableLen) {
    update_buffer = true;
    if (int err = update_xoff_threshold()) return err;
  }
  if (change & kChangePfc) {
    if (int err = update_buffer_lossy(pfc_en, buffer_.prio2buffer)) return err;
  }
  if (change & kChangePrio2Buffer) {
    if (int err = update_buffer_lossy(pfc_en_, prio2buffer)) return err;  // fill_pfc_en: current
  }
  if (change & kChangeSize) {
    uint64_t total_used = 0;
    for (size_t i = 0; i < 8; ++i) {
      if (!lossy[i] && !sizes[i]) return -EINVAL;  // lossless buffer size cannot be zero
      size[i] = sizes[i];
      total_used += sizes[i];
    }
    const uint64_t spare = kPortBufferBytes - headroom;  // no internal buffers modelled
    if (total_used > headroom && total_used - headroom > spare) return -EINVAL;
    update_buffer = true;
    if (int err = update_xoff_threshold()) return err;
  }
  if (!update_buffer && xoff != cached_xoff_) {
    update_buffer = true;
    if (int err = update_xoff_threshold()) return err;
  }
  cached_xoff_ = xoff;

  if (update_buffer) {
    // port_set_buffer: sizes and thresholds go to the register in cells (rounded down), and
    // port_update_shared_buffer needs at least 4 cells left for the shared pools.
    uint64_t new_headroom_cells = 0;
    for (uint32_t s : size) new_headroom_cells += s / kBufferCellBytes;
    if (kPortBufferBytes / kBufferCellBytes < new_headroom_cells + 4) return -EINVAL;
    for (size_t i = 0; i < 8; ++i) {
      buffer_.buffer_size[i] = round_down_cells(size[i]);
      buf_xoff_[i] = round_down_cells(new_xoff[i]);
      buf_xon_[i] = round_down_cells(new_xon[i]);
    }
    buf_lossy_ = lossy;
  }
  if (change & kChangePrio2Buffer)
    for (size_t i = 0; i < 8; ++i) buffer_.prio2buffer[i] = prio2buffer[i];
  return 0;
}

int Port::dcbnl_getbuffer(dcbnl_buffer& out) const {
  if (!spec_.caps.buffers) return -EOPNOTSUPP;
  out = buffer_;
  return 0;
}

int Port::dcbnl_setbuffer(const dcbnl_buffer& in) {
  if (!spec_.caps.buffers) return -EOPNOTSUPP;
  // dcbnl_ieee_set rejects a priority mapped beyond DCBX_MAX_BUFFERS before the driver runs.
  for (uint8_t buffer : in.prio2buffer)
    if (buffer >= DCBX_MAX_BUFFERS) return -EINVAL;
  // mlx5e_dcbnl_setbuffer: only what differs from the current layout counts as a change.
  uint32_t changed = 0;
  if (!std::equal(std::begin(in.prio2buffer), std::end(in.prio2buffer),
                  std::begin(buffer_.prio2buffer)))
    changed |= kChangePrio2Buffer;
  if (!std::equal(std::begin(in.buffer_size), std::end(in.buffer_size),
                  std::begin(buffer_.buffer_size)))
    changed |= kChangeSize;
  if (!changed) return 0;
  if (spec_.traits.cable_length == CableLengthHome::Firmware)
    return nvidia_buffer_config(changed, pfc_en_, in.buffer_size, in.prio2buffer);
  buffers_manual_ = true;  // set before the config is tried, so a failed set still leaves it on
  return manual_buffer_config(changed, pfc_en_, in.buffer_size, in.prio2buffer);
}

// ---- APP table and trust ----

int Port::ieee_setapp(const dcb_app& app) {
  // mlx5e_dcbnl_ieee_setapp
  if (app.selector != IEEE_8021QAZ_APP_SEL_DSCP || app.protocol >= 64) return -EINVAL;
  const dcb_app old{IEEE_8021QAZ_APP_SEL_DSCP, dscp2prio_[app.protocol], app.protocol};
  if (!dscp_app_cnt_) trust_dscp_ = true;  // the first DSCP entry switches trust to DSCP
  dscp2prio_[app.protocol] = app.priority;
  // dcb_ieee_delapp(old): the entry as it was mapped; absent means this DSCP is new.
  const auto same = [](const dcb_app& a, const dcb_app& b) {
    return a.selector == b.selector && a.protocol == b.protocol && a.priority == b.priority;
  };
  const auto it = std::find_if(app_list_.begin(), app_list_.end(),
                               [&](const dcb_app& entry) { return same(entry, old); });
  const bool is_new = it == app_list_.end();
  if (!is_new) app_list_.erase(it);
  // dcb_ieee_setapp: -EEXIST for an identical entry, else list_add at the head.
  if (std::any_of(app_list_.begin(), app_list_.end(),
                  [&](const dcb_app& entry) { return same(entry, app); }))
    return -EEXIST;
  app_list_.insert(app_list_.begin(), app);
  if (is_new) ++dscp_app_cnt_;
  return 0;
}

int Port::ieee_delapp(const dcb_app& app) {
  // mlx5e_dcbnl_ieee_delapp
  if (app.selector != IEEE_8021QAZ_APP_SEL_DSCP || app.protocol >= 64) return -EINVAL;
  if (!dscp_app_cnt_) return -ENOENT;
  if (app.priority != dscp2prio_[app.protocol]) return -ENOENT;
  const auto it = std::find_if(app_list_.begin(), app_list_.end(), [&](const dcb_app& entry) {
    return entry.selector == app.selector && entry.protocol == app.protocol &&
           entry.priority == app.priority;
  });
  if (it == app_list_.end()) return -ENOENT;  // dcb_ieee_delapp
  app_list_.erase(it);
  dscp2prio_[app.protocol] = 0;                   // the DSCP goes back to priority 0
  if (--dscp_app_cnt_ == 0) trust_dscp_ = false;  // last one: back to PCP trust
  return 0;
}

int Port::dcbnl_setapptrust(const uint8_t* /*selectors*/, int /*nselectors*/) {
  // mlx5e_dcbnl_ops has no dcbnl_setapptrust: dcbnl_ieee_set answers -EOPNOTSUPP.
  return -EOPNOTSUPP;
}

std::vector<dcb_app> Port::app_table() const { return app_list_; }

// ---- DCBX ----

uint8_t Port::getdcbx() const { return dcbx_cap_; }

uint8_t Port::setdcbx(uint8_t mode) {
  // mlx5e_dcbnl_setdcbx
  if (mode & DCB_CAP_DCBX_LLD_MANAGED) return 1;
  if (!mode) {
    // Back to the firmware agent (AUTO, willing).
    dcbx_host_ = false;
    dcbx_cap_ = static_cast<uint8_t>(dcbx_cap_ & ~DCB_CAP_DCBX_HOST);
    return 0;
  }
  if (!(mode & DCB_CAP_DCBX_HOST)) return 1;
  dcbx_host_ = true;  // mlx5e_dcbnl_switch_to_host_mode
  dcbx_cap_ = mode;
  return 0;
}

bool Port::apply_peer_dcbx(const ieee_ets* ets, const ieee_pfc* pfc) {
  if (dcbx_host_) return false;  // host mode: the firmware agent does not touch the port
  bool changed = false;
  if (ets) {
    ieee_ets before{};
    ieee_getets(before);
    setets_core(*ets);
    ieee_ets after{};
    ieee_getets(after);
    changed = std::memcmp(&before, &after, sizeof before) != 0;
  }
  if (pfc && pfc->pfc_en != pfc_en_) {
    pfc_en_ = pfc->pfc_en;
    if (!buffers_manual_) auto_buffer_layout();
    changed = true;
  }
  return changed;
}

}  // namespace roce_sim
