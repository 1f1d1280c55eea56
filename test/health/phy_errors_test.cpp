// SPDX-License-Identifier: Apache-2.0
// The PHY counters picked from a reading by name, the symbol error window's rate and hour, and
// the findings judged from them.
#include "health/phy_errors.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace roced::health {
namespace {

using namespace std::chrono_literals;
using TimePoint = CounterWindow::TimePoint;

TEST(PhyCounters, ThePcsCounterWinsAndThe8023OneStandsInWithoutIt) {
  const std::vector<std::string> names = {"rx_symbol_err_phy", "link_down_events_phy",
                                          "rx_pcs_symbol_err_phy", "rx_corrected_bits_phy"};
  const std::vector<uint64_t> values = {7, 2, 5, 900};
  const PhyCounters all = phy_counters(names, values);
  EXPECT_EQ(all.symbol_errors, 5u);
  EXPECT_EQ(all.corrected_bits, 900u);
  EXPECT_EQ(all.link_down_events, 2u);
  // Firmware without the physical layer statistical group (no PCAM ppcnt_statistical_group).
  const std::vector<std::string> older = {"rx_symbol_err_phy", "link_down_events_phy"};
  const PhyCounters some = phy_counters(older, std::vector<uint64_t>{7, 2});
  EXPECT_EQ(some.symbol_errors, 7u);
  EXPECT_FALSE(some.corrected_bits);
  // A short answer never reads past its values.
  EXPECT_FALSE(phy_counters(names, std::vector<uint64_t>{}).symbol_errors);
}

// mlx5's per-lane counters (pport_phy_statistical_err_lanes_stats_desc) are corrected bits,
// lane 0 to 3; a name past them, or not quite theirs, is not a lane.
TEST(PhyCounters, TheLanesCorrectedBitsAreReadByTheirNames) {
  const std::vector<std::string> names = {"rx_err_lane_0_phy", "rx_err_lane_3_phy",
                                          "rx_err_lane_4_phy", "rx_err_lane_1_phyx"};
  const PhyCounters counters = phy_counters(names, std::vector<uint64_t>{6, 17722623, 9, 9});
  EXPECT_EQ(counters.lane_corrected_bits[0], 6u);
  EXPECT_FALSE(counters.lane_corrected_bits[1]);
  EXPECT_FALSE(counters.lane_corrected_bits[2]);
  EXPECT_EQ(counters.lane_corrected_bits[3], 17722623u);
}

// The kernel's standard count stands in for ethtool -S's where the driver gives one, and says so.
TEST(PhyCounters, TheStandardCountWinsWhereTheDriverGivesOne) {
  const std::vector<std::string> names = {"rx_symbol_err_phy", "rx_pcs_symbol_err_phy"};
  PhyCounters counters = phy_counters(names, std::vector<uint64_t>{7, 5});
  EXPECT_EQ(counters.symbol_errors_from, SymbolErrorSource::ethtool_stats);
  prefer_standard(counters, std::nullopt);  // not read, or not set by the driver
  EXPECT_EQ(counters.symbol_errors, 5u);
  prefer_standard(counters, 9u);
  EXPECT_EQ(counters.symbol_errors, 9u);
  EXPECT_EQ(counters.symbol_errors_from, SymbolErrorSource::standard);
  PhyCounters none = phy_counters({}, {});
  EXPECT_EQ(none.symbol_errors_from, SymbolErrorSource::none);
}

// Another counter of the same events (the other interface to it) follows: its first reading is
// a new start, not a step, and what was counted stays, with the span it covers.
TEST(CounterWindow, ARebasedWindowKeepsItsStepsAndCountsTheNewCounterFromItsNextReading) {
  CounterWindow window = symbol_error_window();
  const TimePoint t0{};
  window.add(t0, 100);
  window.add(t0 + 10s, 110);
  window.rebase();
  window.add(t0 + 20s, 5);  // lower, but no restart: another counter
  EXPECT_EQ(window.total(), 10u);
  EXPECT_FALSE(window.last_rate());
  window.add(t0 + 30s, 8);
  EXPECT_EQ(window.total(), 13u);
  EXPECT_EQ(window.covered(), 30s);
}

TEST(CounterWindow, TheRateIsTheLastIntervalsAndAResetCountsFromZero) {
  CounterWindow window = symbol_error_window();
  const TimePoint t0{};
  window.add(t0, 1000);
  EXPECT_FALSE(window.last_rate());
  EXPECT_EQ(window.total(), 0u);
  window.add(t0 + 10s, 1100);
  EXPECT_DOUBLE_EQ(*window.last_rate(), 10.0);
  window.add(t0 + 20s, 30);  // went down: the counter restarted (a driver reload) and counted 30
  EXPECT_DOUBLE_EQ(*window.last_rate(), 3.0);
  EXPECT_EQ(window.total(), 130u);
  EXPECT_EQ(window.covered(), 20s);
  window.add(t0 + 20s, 40);  // no time passed: nothing to divide by, nothing counted
  EXPECT_EQ(window.total(), 130u);
}

TEST(JudgePhy, AtTheThresholdsIsHealthyAboveThemIsFound) {
  CounterWindow window = symbol_error_window();
  const TimePoint t0{};
  window.add(t0, 0);
  window.add(t0 + 12s, 120);  // 10 a second, 120 in the hour: at both, above neither
  EXPECT_TRUE(judge_phy("lan2", true, window).empty());
  window.add(t0 + 13s, 131);
  const auto found = judge_phy("lan2", true, window);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].id, "phy_symbol_error_rate");
  EXPECT_EQ(found[0].found, "above 10/s");
  EXPECT_NE(found[0].text.find("11.0 uncorrectable symbol errors a second"), std::string::npos)
      << found[0].text;
  EXPECT_EQ(found[1].id, "phy_symbol_errors_per_hour");
  EXPECT_EQ(found[1].severity, finding::Severity::Critical);
  EXPECT_EQ(found[1].found, "above 120 an hour");
  EXPECT_NE(found[1].text.find("131 uncorrectable"), std::string::npos) << found[1].text;
  // Thresholds are the configuration's.
  HealthSettings settings;
  settings.symbol_errors_per_second = 20;
  settings.symbol_errors_per_hour = 1000;
  EXPECT_EQ(judge_phy("lan2", true, window, settings).size(), 0u);
}

TEST(JudgePhy, NoCounterCannotTell) {
  const auto found = judge_phy("lan2", false, symbol_error_window());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].verdict, finding::Verdict::CannotTell);
  EXPECT_TRUE(found[0].found.empty());
}

// A 32-bit counter passing 2^32 is a wrap; roced's own steps never count; the window forgets what
// is older than its span.
TEST(CounterWindow, AThirtyTwoBitWrapCountsAndOwnStepsStayApart) {
  CounterWindow window = link_down_window();
  const TimePoint t0{};
  window.add(t0, 0xffff'fffeu);
  window.add(t0 + 10s, 1, /*own=*/true);  // wrapped: 3, roced's
  EXPECT_EQ(window.total(), 0u);
  EXPECT_EQ(window.own_total(), 3u);
  EXPECT_DOUBLE_EQ(*window.last_rate(), 0.0);
  window.add(t0 + 20s, 3);
  EXPECT_EQ(window.total(), 2u);
  window.add(t0 + 20s + 10min, 3);
  EXPECT_EQ(window.total(), 0u) << "older than 10 minutes";
  EXPECT_EQ(window.own_total(), 0u);
}

TEST(JudgeLinkFlaps, MoreThanTwoDownsNotRocedsWithinTenMinutesAreFound) {
  CounterWindow window = link_down_window();
  const TimePoint t0{};
  window.add(t0, 10);
  window.add(t0 + 10s, 15, /*own=*/true);  // roced's applies: never a flap
  window.add(t0 + 20s, 17);
  EXPECT_FALSE(judge_link_flaps("lan3", true, window));
  window.add(t0 + 30s, 18);
  const auto found = judge_link_flaps("lan3", true, window);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, "link_flapping");
  EXPECT_EQ(found->found, "above 2 in 10 min");
  EXPECT_NE(found->text.find("3 link-down events"), std::string::npos) << found->text;
  EXPECT_NE(found->text.find("not counting 5 while roced applied"), std::string::npos)
      << found->text;
  EXPECT_EQ(judge_link_flaps("lan3", false, window)->verdict, finding::Verdict::CannotTell);
}

}  // namespace
}  // namespace roced::health
