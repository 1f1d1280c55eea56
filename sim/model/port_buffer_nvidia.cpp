// SPDX-License-Identifier: Apache-2.0
// PFC, cable length and receive buffers as NVIDIA's own mlx5 tree handles them (the OFED
// flavour), following Mellanox/nic-kernel drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c
// (mlx5e_dcbnl_ieee_setpfc), en/port_buffer.c (mlx5e_port_manual_buffer_config and its helpers)
// and port.c (mlx5_query_port_buffer_ownership). Where mainline keeps the cable length and a
// "manual buffer" flag in the driver, this tree asks the firmware for both, sizes every lossless
// buffer itself, and fails rather than assume 40 Gb/s when the link speed is unknown.
#include <array>
#include <cerrno>
#include <iterator>

#include "sim/model/port.hpp"

namespace roce_sim {
namespace {

constexpr uint32_t kNvidiaMaxCableLength =
    1000;                                   // MLX5_MAX_CABLE_LENGTH, taken as mainline's value
constexpr uint32_t kCableFactor = 1262;     // MLX5E_CABLE_FACTOR
constexpr uint32_t kCableAccuracy = 1000;   // CABLE_DELAY_CALC_ACCURACY_FACTOR
constexpr uint32_t kAccurateFactor = 100;   // MLX5E_ACCURATE_FACTOR
constexpr uint32_t kMinFrameAndGap = 84;    // MINIMAL_PACKET_SIZE + MLX5E_INTER_PACKET_GAP
constexpr uint32_t kPauseQuantaBytes = 64;  // MLX5E_PAUSE_QUANTA_SIZE_BYTES
// en.h MLX5E_SW2HW_MTU: the port's (oper) MTU counts the Ethernet header, a VLAN tag and the FCS.
constexpr uint32_t kHardHeaderBytes = 14 + 4 + 4;

// mlx5e_get_mac_response_time_bytes over mlx5e_pause_quanta_tbl.
uint32_t mac_response_bytes(uint32_t speed_mbps) {
  struct Quanta {
    uint32_t speed_mbps, quantas;
  };
  static constexpr Quanta kTable[] = {{25000, 80},   {40000, 118},   {100000, 394},  {200000, 453},
                                      {400000, 905}, {800000, 1810}, {1600000, 3620}};
  size_t i = 0;
  for (; i + 1 < std::size(kTable); ++i)
    if (speed_mbps <= kTable[i].speed_mbps) break;
  return kTable[i].quantas * kPauseQuantaBytes;
}

uint32_t cells_up(uint64_t bytes) {  // port_set_buffer: DIV_ROUND_UP(bytes, cell size)
  return static_cast<uint32_t>((bytes + Port::kBufferCellBytes - 1) / Port::kBufferCellBytes);
}

}  // namespace

int Port::nvidia_setpfc(const ieee_pfc& in) {
  // mlx5e_dcbnl_ieee_setpfc
  uint32_t changed = 0;
  const uint8_t curr_pfc_en = pfc_en_;
  if (in.pfc_en != curr_pfc_en) {
    set_port_pfc(in.pfc_en);
    toggle_link();
    changed |= kChangePfc;
  }
  // mlx5_query_port_buffer_ownership: unknown without the PCAM feature, which never matches
  // SW-owned below.
  const bool host_owned = spec_.caps.buffer_ownership && buffers_manual_;
  const uint32_t old_cable_len = cable_len_;  // mlx5e_port_get_cable_len
  if (in.delay != old_cable_len) {
    // mlx5e_port_set_cable_len: to the firmware with PCAM cable_length, else kept by the driver,
    // which refuses 0.
    if (in.delay > kNvidiaMaxCableLength) return -EINVAL;
    if (!spec_.caps.cable_length && in.delay == 0) return -EINVAL;
    cable_len_ = in.delay;
    if (!spec_.caps.cable_length)
      changed = kChangeCableLen;  // as the source has it: this drops the PFC bit
    else if (host_owned)
      changed |= kChangeCableLen;
  }
  int ret = 0;
  if (spec_.caps.buffers) {
    const uint8_t pfc_new = (changed & kChangePfc) ? in.pfc_en : curr_pfc_en;
    if (changed && host_owned) ret = nvidia_buffer_config(changed, pfc_new, nullptr, nullptr);
    if (ret && (changed & kChangeCableLen)) cable_len_ = old_cable_len;
  }
  // The firmware lays out buffers it owns itself; host-written ones it leaves alone.
  if (!buffers_manual_) auto_buffer_layout();
  return ret;
}

int Port::nvidia_buffer_config(uint32_t change, uint8_t pfc_en, const uint32_t* sizes,
                               const uint8_t* prio2buffer) {
  // mlx5e_port_manual_buffer_config on a copy of the firmware state; applied only on success.
  // mlx5e_calculate_buf_sz_and_thresholds: mlx5e_port_linkspeed finds no operational protocol
  // while the link trains (mlx5_port_ptys2info gives NULL) and the whole call fails.
  if (!carrier()) return -EINVAL;
  const uint32_t speed = spec_.speed_mbps;
  const uint32_t oper_mtu = mtu_ + kHardHeaderBytes;  // mlx5_query_port_oper_mtu
  const uint32_t max_mtu = oper_mtu;                  // the same query, in this tree
  const uint32_t cable_bytes = cable_len_ * (speed / 1000) * kCableFactor / kCableAccuracy;
  const uint32_t cell_factor = kBufferCellBytes * kAccurateFactor / kMinFrameAndGap;
  const uint32_t buffer_minus_xoff =
      (cable_bytes + 2 * mac_response_bytes(speed) + oper_mtu) * cell_factor / kAccurateFactor +
      oper_mtu;
  const uint32_t xon = buffer_minus_xoff - oper_mtu + speed / 8;
  const uint32_t xoff = xon + 2 * max_mtu;
  const uint32_t lossless_size = buffer_minus_xoff + xoff;
  const uint32_t min_buffer_size = xoff + max_mtu + kBufferCellBytes;

  std::array<uint32_t, 8> size{};
  for (size_t i = 0; i < 8; ++i) size[i] = buffer_.buffer_size[i];
  std::array<bool, 8> lossy = buf_lossy_;
  std::array<uint32_t, 8> new_xoff = buf_xoff_, new_xon = buf_xon_;
  uint32_t headroom = 0;
  for (uint32_t s : size) headroom += s;

  // update_xoff_threshold: a lossless buffer gets the absolute thresholds and `wanted` as its
  // size, capped by get_buffer_max_cell_size (which mixes cells and bytes, as the source does).
  auto update_xoff_threshold = [&](size_t i, uint32_t wanted) -> int {
    uint32_t max_cells = kPortBufferBytes / kBufferCellBytes;
    int lossy_count = 0;
    for (size_t j = 0; j < 8; ++j) {
      if (!lossy[j]) continue;
      max_cells -= size[j];
      ++lossy_count;
    }
    max_cells = lossy_count < 8 ? max_cells / static_cast<uint32_t>(8 - lossy_count) : 0;
    if (lossy[i]) {
      new_xoff[i] = new_xon[i] = 0;
      return 0;
    }
    if (size[i] < min_buffer_size) return -ENOMEM;  // the size it has now, before this update
    uint32_t buffer_xoff = xoff, buffer_xon = xon;
    if (wanted > max_cells * kBufferCellBytes) {
      wanted = max_cells;
      buffer_xoff = wanted / 2;
      buffer_xon = buffer_xoff > max_mtu / 2 ? buffer_xoff - 2 * max_mtu : 0;
    }
    new_xoff[i] = buffer_xoff;
    new_xon[i] = buffer_xon;
    size[i] = wanted;
    return 0;
  };
  auto update_xoffs_threshold = [&]() -> int {
    for (size_t i = 0; i < 8; ++i)
      if (int err = update_xoff_threshold(i, lossless_size)) return err;
    return 0;
  };
  bool update_buffer = false;
  // update_buffer_lossy: lossless when at least one PFC priority maps to the buffer; any flip
  // resizes every lossless buffer to the driver's own size.
  auto update_buffer_lossy = [&](uint8_t pfc, const uint8_t* map) -> int {
    if (!set_lossy_bits(pfc, map, lossy)) return 0;
    update_buffer = true;
    return update_xoffs_threshold();
  };

  if (change & kChangeCableLen) {
    update_buffer = true;
    if (int err = update_xoffs_threshold()) return err;
  }
  if (change & kChangePfc) {
    if (int err = update_buffer_lossy(pfc_en, buffer_.prio2buffer)) return err;
  }
  if (change & kChangePrio2Buffer) {
    if (int err = update_buffer_lossy(pfc_en_, prio2buffer)) return err;  // fill_pfc_en
  }
  if (change & kChangeSize) {
    uint64_t total_used = 0;
    for (size_t i = 0; i < 8; ++i) {
      if (!lossy[i] && !sizes[i]) return -EINVAL;
      if (!lossy[i] && sizes[i] < min_buffer_size) return -ENOMEM;
      total_used += sizes[i];
    }
    const uint64_t spare = kPortBufferBytes - headroom;  // no internal buffers modelled
    if (total_used > headroom && total_used - headroom > spare) return -EINVAL;
    update_buffer = true;
    // A lossy buffer keeps the size it has: update_xoff_threshold returns before taking it.
    for (size_t i = 0; i < 8; ++i)
      if (int err = update_xoff_threshold(i, sizes[i])) return err;
  }
  if (!update_buffer && xoff != cached_xoff_) {
    update_buffer = true;
    if (int err = update_xoffs_threshold()) return err;
  }

  if (update_buffer) {
    // port_set_buffer: sizes and thresholds in cells, rounded up; port_update_shared_buffer
    // needs at least 4 cells left for the shared pools.
    uint64_t new_headroom_cells = 0;
    for (uint32_t s : size) new_headroom_cells += cells_up(s);
    if (kPortBufferBytes / kBufferCellBytes < new_headroom_cells + 4) return -EINVAL;
    for (size_t i = 0; i < 8; ++i) {
      buffer_.buffer_size[i] = cells_up(size[i]) * kBufferCellBytes;
      buf_xoff_[i] = cells_up(new_xoff[i]) * kBufferCellBytes;
      buf_xon_[i] = cells_up(new_xon[i]) * kBufferCellBytes;
    }
    buf_lossy_ = lossy;
    buffers_manual_ = true;  // the firmware now reports the buffers SW-owned
  }
  cached_xoff_ = xoff;
  if (change & kChangePrio2Buffer)
    for (size_t i = 0; i < 8; ++i) buffer_.prio2buffer[i] = prio2buffer[i];
  return 0;
}

}  // namespace roce_sim
