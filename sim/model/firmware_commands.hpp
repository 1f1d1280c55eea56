// SPDX-License-Identifier: Apache-2.0
#pragma once
// The firmware commands mlx5 (mainline 6.1) issues for what a host asks of a port, so that the
// model can charge their time and count them as the driver's debugfs commands/<NAME>/{n,average}
// do. Register accesses (PPCNT, PFCC, QETCR, ...) are all ACCESS_REG commands.

#include <cstdint>

namespace roce_sim::firmware {

struct Commands {
  const char* name;  // as mlx5_command_str names it
  uint32_t count;
};

// ETHTOOL_GSTATS: mlx5e_stats_update runs each group's update_stats (en_stats.c): PPCNT for
// 802_3, 2863, 2819, phy and its statistical group, eth_ext; MPCNT for pcie; one PPCNT per
// priority for per_prio; with SBCAM, one per TC and one per priority for per_port_buff_congest;
// and a vport counter, a q counter and the vnic environment query.
inline constexpr uint32_t kStatsAccessRegs = 7 + 8;
inline constexpr uint32_t kStatsCongestAccessRegs = 16;
inline constexpr Commands kStatsQueries[] = {
    {"QUERY_VPORT_COUNTER", 1}, {"QUERY_Q_COUNTER", 1}, {"QUERY_VNIC_ENV", 1}};

// ETHTOOL_MSG_STATS_GET (net/ethtool/stats.c stats_prepare_data) runs the driver op of each group
// asked for; mlx5's eth-phy, eth-mac and eth-ctrl ops each query the IEEE 802.3 PPCNT group once
// (en_stats.c mlx5e_stats_get_ieee, from mlx5e_stats_eth_{phy,mac,ctrl}_get), rmon the RFC 2819
// group (mlx5e_stats_rmon_get): one ACCESS_REG per group, against a GSTATS' 30-odd.
inline constexpr uint32_t kStatsGroupAccessRegs = 1;

// ETHTOOL_MSG_FEC_GET: get_fecparam queries PPLM (en/port.c mlx5e_get_fec_mode); with
// ETHTOOL_FLAG_STATS mlx5e_stats_fec_get reads the corrected bits (PPCNT statistical group), the
// active mode again (fec_active_mode: PPLM) and the codeword counters (PPCNT physical layer).
inline constexpr uint32_t kFecParamAccessRegs = 1;
inline constexpr uint32_t kFecStatsAccessRegs = 3;

// A module EEPROM read (port.c mlx5_query_module_eeprom_by_page): per MCIA access of at most 48
// bytes (mlx5_mcia_max_bytes without the mcia_32dwords capability), a PMLP query for the module
// number first. The legacy ioctl's reads (mlx5_query_module_eeprom) query the module id too.
inline constexpr uint32_t kMciaMaxBytes = 48;
inline constexpr uint32_t kEepromChunkAccessRegs = 2;
inline constexpr uint32_t kLegacyEepromChunkAccessRegs = 3;

// A port's RDMA counters, read afresh on every RDMA_NLDEV_CMD_STAT_GET (hw/mlx5/counters.c
// do_get_hw_stats): the q counters, the extended PPCNT group (rx_icrc_encapsulated_counter) and
// the congestion counters (cc_query_allowed).
inline constexpr Commands kRdmaStatsQueries[] = {
    {"QUERY_Q_COUNTER", 1}, {"ACCESS_REG", 1}, {"QUERY_CONG_STATISTICS", 1}};

// DCB (en_dcbnl.c): getets queries prio_tc, tc_group and bw_alloc per TC (QTCT, QETCR: 3 x 8);
// getmaxrate and getpfc one register each (QETCR, PFCC), getbuffer two (PPTB, PBMC).
inline constexpr uint32_t kGetEts = 24;
inline constexpr uint32_t kGetMaxrate = 1;
inline constexpr uint32_t kGetPfc = 1;
inline constexpr uint32_t kGetBuffer = 2;
// setets: QTCT per priority, then QETCR read-modify-write for the groups and the bandwidths.
inline constexpr uint32_t kSetEts = 8 + 2 + 2;
inline constexpr uint32_t kSetMaxrate = 2;  // QETCR read-modify-write
// setpfc: PFCC query and write; a new mask also toggles the link (PAOS query, down, up).
inline constexpr uint32_t kSetPfc = 2;
inline constexpr uint32_t kLinkToggle = 3;
inline constexpr uint32_t kSetBuffer = 4;     // PPTB and PBMC, read and write
inline constexpr uint32_t kSetApp = 2;        // QPDPM read-modify-write (QPTS too on a switch)
inline constexpr uint32_t kSetDcbx = 1;       // DCBX_PARAM
inline constexpr uint32_t kStallTunable = 1;  // PFCC (get or set)
// 802.3x global pause (en_ethtool.c mlx5e_ethtool_get/set_pauseparam): one PFCC query
// (port.c mlx5_query_port_pause) or one PFCC write (mlx5_set_port_pause).
inline constexpr uint32_t kGetPause = 1;
inline constexpr uint32_t kSetPause = 1;

}  // namespace roce_sim::firmware
