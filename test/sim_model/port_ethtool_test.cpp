// SPDX-License-Identifier: Apache-2.0
// ethtool view of the simulated port: stat names and their order (en_stats.c), drvinfo and the
// stall prevention tunable (en_ethtool.c).
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <map>

#include "sim/model/port.hpp"
#include "test/sim_model/test_ports.hpp"

namespace roce_sim {
namespace {

TEST(PortStats, PerPriorityTrafficCountersAreAlwaysThere) {
  Port port(test::cx7_port());
  const auto names = port.stat_names();
  for (int p = 0; p < 8; ++p) {
    const std::string prio = std::to_string(p);
    for (const std::string& name : {"rx_prio" + prio + "_bytes", "rx_prio" + prio + "_packets",
                                    "rx_prio" + prio + "_discards", "tx_prio" + prio + "_bytes",
                                    "tx_prio" + prio + "_packets"})
      EXPECT_TRUE(test::has(names, name)) << name;
  }
  for (const char* name :
       {"rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "rx_discards_phy", "tx_discards_phy",
        "rx_pause_ctrl_phy", "tx_pause_ctrl_phy", "rx_buffer_passed_thres_phy", "rx_out_of_buffer",
        "outbound_pci_stalled_rd", "outbound_pci_stalled_wr"})
    EXPECT_TRUE(test::has(names, name)) << name;
  EXPECT_EQ(test::position(names, "rx_packets"), 0);
}

TEST(PortStats, PauseCountersOnlyForPfcEnabledPrioritiesAndGoneAgain) {
  auto spec = test::cx7_port();
  spec.firmware_global_pause = GlobalPause{false, false};  // no global pause names to lose
  Port port(spec);
  const auto before = port.stat_names();
  EXPECT_FALSE(test::has(before, "rx_prio3_pause"));
  test::set_pfc(port, 0x08);
  const auto with_pfc = port.stat_names();
  for (const char* name : {"rx_prio3_pause", "rx_prio3_pause_duration", "rx_prio3_pause_transition",
                           "tx_prio3_pause", "tx_prio3_pause_duration"})
    EXPECT_TRUE(test::has(with_pfc, name)) << name;
  EXPECT_FALSE(test::has(with_pfc, "tx_prio3_pause_transition"));
  EXPECT_FALSE(test::has(with_pfc, "rx_prio0_pause"));
  EXPECT_FALSE(test::has(with_pfc, "rx_prio4_pause"));
  EXPECT_EQ(with_pfc.size(), before.size() + 5);
  // mlx5e_grp_per_prio_pfc_fill_strings order, after all traffic counters.
  EXPECT_EQ(test::position(with_pfc, "rx_prio3_pause"),
            test::position(with_pfc, "tx_prio7_packets") + 1);
  EXPECT_LT(test::position(with_pfc, "tx_prio3_pause_duration"),
            test::position(with_pfc, "rx_prio3_pause_transition"));
  test::set_pfc(port, 0x00);
  EXPECT_EQ(port.stat_names(), before);
}

TEST(PortStats, ValuesFollowTheNamesIncludingPauseCounters) {
  Port port(test::cx7_port());
  test::set_pfc(port, 0x48);
  port.counters().prio[3].rx_pause = 5;
  port.counters().prio[6].tx_pause_duration_us = 1234;
  port.counters().prio[3].rx_bytes = 42;
  port.counters().rx_discards_phy = 9;
  const auto names = port.stat_names();
  const auto values = port.stat_values();
  ASSERT_EQ(names.size(), values.size());
  std::map<std::string, uint64_t> by_name;
  for (size_t i = 0; i < names.size(); ++i) by_name[names[i]] = values[i];
  EXPECT_EQ(by_name.size(), names.size()) << "duplicate names";
  EXPECT_EQ(by_name["rx_prio3_pause"], 5u);
  EXPECT_EQ(by_name["tx_prio6_pause_duration"], 1234u);
  EXPECT_EQ(by_name["rx_prio3_bytes"], 42u);
  EXPECT_EQ(by_name["rx_discards_phy"], 9u);
  for (const auto& name : names) EXPECT_LT(name.size(), 32u) << name;  // ETH_GSTRING_LEN
}

TEST(PortStats, CountersStartOffsetsEveryValueModulo2To64) {
  auto spec = test::cx7_port();
  spec.counters_start = 18'446'744'073'709'551'611u;  // 2^64 - 5
  Port port(spec);
  test::set_pfc(port, 0x08);
  port.counters().prio[3].rx_pause_duration_us = 4;
  port.counters().prio[3].tx_bytes = 5;  // wraps to 0
  port.counters().rx_pause_ctrl_phy = 1000;
  const auto names = port.stat_names();
  const auto values = port.stat_values();
  ASSERT_EQ(names.size(), values.size());
  Port plain(test::cx7_port());
  test::set_pfc(plain, 0x08);
  EXPECT_EQ(names, plain.stat_names());  // the names do not change
  std::map<std::string, uint64_t> by_name;
  for (size_t i = 0; i < names.size(); ++i) by_name[names[i]] = values[i];
  EXPECT_EQ(by_name["rx_prio3_pause_duration"], 18'446'744'073'709'551'615u);
  EXPECT_EQ(by_name["tx_prio3_bytes"], 0u);
  EXPECT_EQ(by_name["rx_pause_ctrl_phy"], 995u);
  // Counters the model keeps at zero read as counters_start: every ethtool statistic is offset.
  EXPECT_EQ(by_name["tx_tso_packets"], spec.counters_start);
  EXPECT_EQ(by_name["rx_prio0_packets"], spec.counters_start);
  EXPECT_EQ(by_name["tx_pause_storm_error_events"], spec.counters_start);
  // ... modulo 2^32 where the firmware's counter is 32-bit.
  EXPECT_EQ(by_name["outbound_pci_stalled_wr_events"], 4'294'967'291u);  // 2^32 - 5
  // ... but a gauge (the share of the last second stalled) reads as the firmware has it.
  EXPECT_EQ(by_name["outbound_pci_stalled_wr"], 0u);
  EXPECT_EQ(by_name["outbound_pci_buffer_overflow"], spec.counters_start);
  // Only the ethtool view: the model's counters and the DCB PFC statistics are untouched.
  EXPECT_EQ(port.counters().prio[3].tx_bytes, 5u);
  ieee_pfc pfc{};
  ASSERT_EQ(port.ieee_getpfc(pfc), 0);
  EXPECT_EQ(pfc.indications[3], 0u);
}

// en_stats.c reads the Q counters (q_stats_desc, drop_rq_stats_desc: MLX5E_READ_CTR32_CPU), two
// vport environment counters and MPCNT's PCIe group (MLX5E_READ_CTR32_BE) from 32-bit firmware
// fields: past 2^32 they start again from 0. outbound_pci_buffer_overflow is read as 64-bit
// (pcie_perf_stats_desc64), as are the port and priority counters.
TEST(PortStats, ThirtyTwoBitFirmwareCountersWrapAt2To32) {
  Port port(test::cx7_port());
  constexpr uint64_t kTwoTo32 = uint64_t{1} << 32;
  port.counters().rx_out_of_buffer = kTwoTo32 - 3;
  port.counters().outbound_pci_stalled_wr_events = kTwoTo32 + 7;
  port.counters().tx_pci_signal_integrity = kTwoTo32 - 1;
  port.counters().rx_discards_phy = kTwoTo32 + 7;
  port.counters().rx_packets = kTwoTo32 + 7;
  std::map<std::string, uint64_t> by_name;
  for (const auto& [name, value] : port.stats()) by_name[name] = value;
  EXPECT_EQ(by_name["rx_out_of_buffer"], kTwoTo32 - 3);
  EXPECT_EQ(by_name["outbound_pci_stalled_wr_events"], 7u);
  EXPECT_EQ(by_name["tx_pci_signal_integrity"], kTwoTo32 - 1);
  EXPECT_EQ(by_name["rx_discards_phy"], kTwoTo32 + 7);
  EXPECT_EQ(by_name["rx_packets"], kTwoTo32 + 7);
  port.counters().rx_out_of_buffer += 10;  // passes 2^32
  for (const auto& [name, value] : port.stats()) by_name[name] = value;
  EXPECT_EQ(by_name["rx_out_of_buffer"], 7u);
}

TEST(PortStats, StormAndPrioDiscardCountersDependOnCapabilities) {
  Port full(test::cx7_port());
  const auto names = full.stat_names();
  EXPECT_TRUE(test::has(names, "tx_pause_storm_warning_events"));
  EXPECT_TRUE(test::has(names, "tx_pause_storm_error_events"));
  EXPECT_TRUE(test::has(names, "rx_prio5_buf_discard"));
  EXPECT_TRUE(test::has(names, "rx_prio5_cong_discard"));
  EXPECT_TRUE(test::has(names, "rx_prio5_marked"));
  EXPECT_EQ(test::position(names, "rx_prio0_cong_discard"),
            test::position(names, "rx_prio0_buf_discard") + 1);

  auto spec = test::cx7_port();
  spec.caps.stall_prevention = false;
  spec.caps.prio_discard_counters = false;
  Port bare(spec);
  const auto bare_names = bare.stat_names();
  EXPECT_FALSE(test::has(bare_names, "tx_pause_storm_warning_events"));
  EXPECT_FALSE(test::has(bare_names, "rx_prio5_buf_discard"));
  EXPECT_FALSE(test::has(bare_names, "rx_prio5_marked"));
}

TEST(PortStats, OrderMatchesARealMlx5Capture) {
  // Names from fixtures/ethtool/mlx5_lore_20240619_kernel-6.5_xdp.ethtool-S.txt in capture order
  // (zero counters were dropped by its author, so only the relative order is comparable).
  const std::vector<std::string> capture = {"rx_packets",
                                            "rx_bytes",
                                            "tx_packets",
                                            "tx_bytes",
                                            "rx_csum_unnecessary",
                                            "rx_xdp_drop",
                                            "rx_xdp_redirect",
                                            "ch_events",
                                            "ch_poll",
                                            "rx_out_of_buffer",
                                            "rx_if_down_packets",
                                            "rx_steer_missed_packets",
                                            "rx_vport_unicast_packets",
                                            "rx_vport_unicast_bytes",
                                            "tx_vport_unicast_packets",
                                            "tx_vport_unicast_bytes",
                                            "tx_packets_phy",
                                            "rx_packets_phy",
                                            "tx_bytes_phy",
                                            "rx_bytes_phy",
                                            "tx_mac_control_phy",
                                            "tx_pause_ctrl_phy",
                                            "rx_discards_phy",
                                            "rx_64_bytes_phy",
                                            "rx_65_to_127_bytes_phy",
                                            "rx_8192_to_10239_bytes_phy",
                                            "rx_buffer_passed_thres_phy",
                                            "rx_prio0_bytes",
                                            "rx_prio0_packets",
                                            "rx_prio0_discards",
                                            "tx_prio0_bytes",
                                            "tx_prio0_packets",
                                            "tx_global_pause",
                                            "tx_global_pause_duration",
                                            "ch0_events",
                                            "ch0_poll",
                                            "ch0_arm",
                                            "rx0_packets",
                                            "rx0_bytes",
                                            "rx0_csum_complete",
                                            "rx0_xdp_drop"};
  Port port(test::cx7_port());
  const auto names = port.stat_names();
  ptrdiff_t last = -1;
  for (const auto& name : capture) {
    const ptrdiff_t at = test::position(names, name);
    ASSERT_LT(at, static_cast<ptrdiff_t>(names.size())) << name << " missing";
    EXPECT_GT(at, last) << name << " out of order";
    last = at;
  }
}

TEST(PortDrvinfo, ReportsMlx5CoreFirmwareWithPsidAndBusInfo) {
  Port port(test::cx7_port());
  const DriverInfo info = port.drvinfo();
  EXPECT_EQ(info.driver, "mlx5_core");
  EXPECT_EQ(info.version, "6.1.0-27-amd64");
  EXPECT_EQ(info.firmware, "28.39.1002 (MT_0000000838)");
  EXPECT_EQ(info.bus_info, "0000:17:00.0");
}

TEST(PortStallPrevention, TunableRangeAutoAndOff) {
  Port port(test::cx7_port());
  uint16_t ms = 0;
  ASSERT_EQ(port.get_pfc_prevention_tout(ms), 0);
  EXPECT_EQ(ms, Port::kStallTimeoutDefaultMs);
  EXPECT_EQ(port.set_pfc_prevention_tout(79), -EINVAL);
  EXPECT_EQ(port.set_pfc_prevention_tout(8001), -EINVAL);
  ASSERT_EQ(port.set_pfc_prevention_tout(0xffff), 0);  // auto is stored as 100 ms
  ASSERT_EQ(port.get_pfc_prevention_tout(ms), 0);
  EXPECT_EQ(ms, 100);
  EXPECT_EQ(port.stall_minor_watermark_ms(), 85);
  ASSERT_EQ(port.set_pfc_prevention_tout(80), 0);
  EXPECT_EQ(port.stall_minor_watermark_ms(), 80);  // max(80, 85 %)
  ASSERT_EQ(port.set_pfc_prevention_tout(8000), 0);
  ASSERT_EQ(port.set_pfc_prevention_tout(0), 0);
  ASSERT_EQ(port.get_pfc_prevention_tout(ms), 0);
  EXPECT_EQ(ms, 0);
}

TEST(PortStallPrevention, NotSupportedWithoutCapability) {
  auto spec = test::cx7_port();
  spec.caps.stall_prevention = false;
  Port port(spec);
  uint16_t ms = 0;
  EXPECT_EQ(port.get_pfc_prevention_tout(ms), -EOPNOTSUPP);
  EXPECT_EQ(port.set_pfc_prevention_tout(100), -EOPNOTSUPP);
}

}  // namespace
}  // namespace roce_sim
