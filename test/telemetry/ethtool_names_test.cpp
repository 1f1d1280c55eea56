// SPDX-License-Identifier: Apache-2.0
// parse_ethtool_name on the real mlx5 `ethtool -S` captures (fixtures/SOURCES.md) and on the
// per-priority PFC names those captures lack (PFC was off there; names from en_stats.c).
#include "ethtool/ethtool_names.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "test/support/build_paths.hpp"

namespace roced::telemetry {
namespace {

// "     name: value" lines after the "NIC statistics:" header -> name -> value.
std::map<std::string, uint64_t> read_capture(const std::string& file) {
  std::ifstream in(std::string(ROCED_ETHTOOL_FIXTURES) + "/" + file);
  EXPECT_TRUE(in.good()) << file;
  std::map<std::string, uint64_t> counters;
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(": ");
    if (colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(' ');
    counters[line.substr(start, colon - start)] = std::stoull(line.substr(colon + 2));
  }
  return counters;
}

std::set<std::string> parsed_names(const std::map<std::string, uint64_t>& counters) {
  std::set<std::string> names;
  for (const auto& [name, value] : counters) {
    if (parse_ethtool_name(name)) names.insert(name);
  }
  return names;
}

EthtoolCounterName expect(std::string metric, std::optional<int> priority, Direction direction,
                          CounterUnit unit = CounterUnit::count) {
  return EthtoolCounterName{std::move(metric), priority, direction, unit};
}

TEST(EthtoolNames, Kernel515CaptureParsesExactly) {
  const auto counters = read_capture("mlx5_lore_20240619_kernel-5.15_xdp.ethtool-S.txt");
  ASSERT_EQ(counters.size(), 101u);  // 102 lines minus the header

  EXPECT_EQ(parse_ethtool_name("rx_prio0_bytes"),
            expect("bytes", 0, Direction::rx, CounterUnit::bytes));
  EXPECT_EQ(counters.at("rx_prio0_bytes"), 6211318150440u);
  EXPECT_EQ(parse_ethtool_name("rx_prio0_discards"), expect("discards", 0, Direction::rx));
  EXPECT_EQ(counters.at("rx_prio0_discards"), 58591314012u);
  EXPECT_EQ(parse_ethtool_name("tx_prio0_packets"), expect("packets", 0, Direction::tx));
  EXPECT_EQ(counters.at("tx_prio0_packets"), 5582625883u);
  EXPECT_EQ(parse_ethtool_name("rx_discards_phy"),
            expect("discards_phy", std::nullopt, Direction::rx));
  EXPECT_EQ(counters.at("rx_discards_phy"), 58591428329u);
  EXPECT_EQ(
      parse_ethtool_name("tx_global_pause_duration"),
      expect("global_pause_duration", std::nullopt, Direction::tx, CounterUnit::microseconds));
  EXPECT_EQ(counters.at("tx_global_pause_duration"), 771103810u);

  // Every other name in the capture (software, per-channel, size histogram) is ignored; the Q
  // counter rx_out_of_buffer is in it.
  const std::set<std::string> want = {
      "rx_discards_phy",   "rx_out_of_buffer", "rx_prio0_bytes",  "rx_prio0_discards",
      "rx_prio0_packets",  "tx_discards_phy",  "tx_global_pause", "tx_global_pause_duration",
      "tx_pause_ctrl_phy", "tx_prio0_bytes",   "tx_prio0_packets"};
  EXPECT_EQ(parsed_names(counters), want);
}

TEST(EthtoolNames, Kernel65CaptureParsesExactly) {
  const auto counters = read_capture("mlx5_lore_20240619_kernel-6.5_xdp.ethtool-S.txt");
  EXPECT_EQ(parse_ethtool_name("tx_pause_ctrl_phy"),
            expect("pause_ctrl_phy", std::nullopt, Direction::tx));
  EXPECT_EQ(counters.at("tx_pause_ctrl_phy"), 44414017u);
  EXPECT_EQ(parse_ethtool_name("tx_prio0_bytes"),
            expect("bytes", 0, Direction::tx, CounterUnit::bytes));
  EXPECT_EQ(counters.at("tx_prio0_bytes"), 3005212971574u);

  // tx_discards_phy is zero there and was dropped by the poster: absent, so not parsed.
  const std::set<std::string> want = {
      "rx_discards_phy",  "rx_out_of_buffer", "rx_prio0_bytes",           "rx_prio0_discards",
      "rx_prio0_packets", "tx_global_pause",  "tx_global_pause_duration", "tx_pause_ctrl_phy",
      "tx_prio0_bytes",   "tx_prio0_packets"};
  EXPECT_EQ(parsed_names(counters), want);
}

// en_stats.c pport_per_prio_pfc_stats_desc with "global" for the priority: the five names mlx5
// lists while 802.3x global pause is on, which no priority owns (they read priority 0's slot).
TEST(EthtoolNames, GlobalPauseNamesArePortLevelInBothDirections) {
  EXPECT_EQ(parse_ethtool_name("rx_global_pause"),
            expect("global_pause", std::nullopt, Direction::rx));
  EXPECT_EQ(
      parse_ethtool_name("rx_global_pause_duration"),
      expect("global_pause_duration", std::nullopt, Direction::rx, CounterUnit::microseconds));
  EXPECT_EQ(parse_ethtool_name("tx_global_pause"),
            expect("global_pause", std::nullopt, Direction::tx));
  EXPECT_EQ(
      parse_ethtool_name("tx_global_pause_duration"),
      expect("global_pause_duration", std::nullopt, Direction::tx, CounterUnit::microseconds));
  EXPECT_EQ(parse_ethtool_name("rx_global_pause_transition"),
            expect("global_pause_transition", std::nullopt, Direction::rx));
}

TEST(EthtoolNames, PerPriorityPfcNames) {
  EXPECT_EQ(parse_ethtool_name("rx_prio3_pause"), expect("pause", 3, Direction::rx));
  EXPECT_EQ(parse_ethtool_name("tx_prio3_pause"), expect("pause", 3, Direction::tx));
  EXPECT_EQ(parse_ethtool_name("tx_prio3_pause_duration"),
            expect("pause_duration", 3, Direction::tx, CounterUnit::microseconds));
  EXPECT_EQ(parse_ethtool_name("rx_prio3_pause_transition"),
            expect("pause_transition", 3, Direction::rx));
  EXPECT_EQ(parse_ethtool_name("rx_prio3_packets"), expect("packets", 3, Direction::rx));
  EXPECT_EQ(parse_ethtool_name("rx_prio7_discards"), expect("discards", 7, Direction::rx));
  EXPECT_EQ(parse_ethtool_name("rx_prio5_marked"), expect("marked", 5, Direction::rx));
  EXPECT_EQ(parse_ethtool_name("tx_pause_storm_warning_events"),
            expect("pause_storm_warning_events", std::nullopt, Direction::tx));
  EXPECT_EQ(parse_ethtool_name("tx_pause_storm_error_events"),
            expect("pause_storm_error_events", std::nullopt, Direction::tx));
}

TEST(EthtoolNames, UnknownAndMalformedNamesAreIgnored) {
  for (const char* name :
       {"", "rx_", "rx_packets", "rx0_packets", "ch0_events", "rx_xdp_drop", "rx_prio8_pause",
        "rx_prio03_pause", "rx_prio3_", "rx_prio3", "rx_prio3_pausex", "prio3_pause",
        "xx_prio3_pause", "rx_prio3_pause_duration_us", "rx_64_bytes_phy", "RX_PRIO3_PAUSE"}) {
    EXPECT_EQ(parse_ethtool_name(name), std::nullopt) << name;
  }
}

}  // namespace
}  // namespace roced::telemetry

namespace roced {
namespace {

// en_stats.c: the Q counters, two vport environment counters and MPCNT's PCIe group are read
// from 32-bit fields (MLX5E_READ_CTR32_*); outbound_pci_buffer_overflow and the port, priority
// and software counters are 64-bit.
TEST(EthtoolNames, CounterWidthsFollowEnStats) {
  for (const char* narrow :
       {"rx_out_of_buffer", "rx_if_down_packets", "dev_internal_queue_oob",
        "rx_oversize_pkts_buffer", "rx_pci_signal_integrity", "tx_pci_signal_integrity",
        "outbound_pci_stalled_rd_events", "outbound_pci_stalled_wr_events"}) {
    EXPECT_EQ(ethtool_counter_width(narrow), CounterWidth::bits32) << narrow;
  }
  // counters.rst: the share of the last second stalled, which goes down as often as up.
  for (const char* gauge : {"outbound_pci_stalled_rd", "outbound_pci_stalled_wr"}) {
    EXPECT_EQ(ethtool_counter_width(gauge), CounterWidth::gauge) << gauge;
  }
  for (const char* wide : {"outbound_pci_buffer_overflow", "rx_steer_missed_packets",
                           "rx_prio3_pause", "rx_discards_phy", "rx_packets"}) {
    EXPECT_EQ(ethtool_counter_width(wide), CounterWidth::bits64) << wide;
  }
}

}  // namespace
}  // namespace roced
