// SPDX-License-Identifier: Apache-2.0
// read_storm_evidence: the per-poll verdict and deltas from two samples, on hand-built counters.
#include "watchdog/storm_signal.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <ostream>
#include <vector>

#include "sample_series.hpp"

namespace roced::watchdog {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using test::SampleSeries;

// A port with PFC on priority 3 and the firmware's storm events; every counter starts well above
// zero so that a reset shows as a decrease.
SampleSeries pfc_port() {
  SampleSeries series;
  for (const char* name :
       {"rx_prio3_pause", "rx_prio3_pause_duration", "tx_prio3_pause", "tx_prio3_pause_duration",
        "rx_prio3_packets", "tx_prio3_packets", "rx_pause_ctrl_phy", "tx_pause_ctrl_phy",
        "tx_pause_storm_warning_events", "tx_pause_storm_error_events"}) {
    series.set(name, 1'000'000);
  }
  return series;
}

struct SignalCase {
  std::string name;
  Direction direction;
  int64_t interval_us;                    // measured: between the two samples' `at`
  std::map<std::string, int64_t> deltas;  // negative = the counter went backwards
  std::vector<std::string> absent;        // missing from both samples
  PollVerdict verdict;
  UnknownReason reason = UnknownReason::none;
  std::string unknown_counter = "";
};

std::vector<SignalCase> signal_cases() {
  return {
      {"rx_storm_full_interval",
       Direction::rx,
       10'000,
       {{"rx_prio3_pause_duration", 10'000}, {"rx_prio3_pause", 60}, {"rx_pause_ctrl_phy", 60}},
       {},
       PollVerdict::stormed},
      {"rx_storm_exactly_99_percent",
       Direction::rx,
       10'000,
       {{"rx_prio3_pause_duration", 9'900}},
       {},
       PollVerdict::stormed},
      {"rx_just_under_99_percent",
       Direction::rx,
       10'000,
       {{"rx_prio3_pause_duration", 9'899}},
       {},
       PollVerdict::healthy},
      {"rx_congestion_95_percent_still_sending",
       Direction::rx,
       10'000,
       {{"rx_prio3_pause_duration", 9'500}, {"rx_prio3_pause", 950}, {"tx_prio3_packets", 120}},
       {},
       PollVerdict::healthy},
      {"rx_fully_paused_but_one_packet_sent",
       Direction::rx,
       10'000,
       {{"rx_prio3_pause_duration", 10'000}, {"tx_prio3_packets", 1}},
       {},
       PollVerdict::healthy},
      // The nominal poll is 10 ms, but 12 ms passed: 10 ms of pause is 83 % of the real interval.
      {"rx_late_poll_judged_on_measured_interval",
       Direction::rx,
       12'000,
       {{"rx_prio3_pause_duration", 10'000}},
       {},
       PollVerdict::healthy},
      // A storm on the receive side does not make the transmit direction stormed.
      {"tx_direction_ignores_rx_pausing",
       Direction::tx,
       10'000,
       {{"rx_prio3_pause_duration", 10'000}},
       {},
       PollVerdict::healthy},
      {"tx_storm",
       Direction::tx,
       10'000,
       {{"tx_prio3_pause_duration", 10'000},
        {"tx_prio3_pause", 60},
        {"tx_pause_ctrl_phy", 60},
        {"tx_pause_storm_warning_events", 1}},
       {},
       PollVerdict::stormed},
      {"tx_storm_without_firmware_storm_events",
       Direction::tx,
       10'000,
       {{"tx_prio3_pause_duration", 10'000}},
       {"tx_pause_storm_warning_events", "tx_pause_storm_error_events"},
       PollVerdict::stormed},
      // Storm events alone are not sufficient: half paused is not a storm.
      {"tx_storm_events_without_the_duration",
       Direction::tx,
       10'000,
       {{"tx_prio3_pause_duration", 5'000},
        {"tx_pause_storm_warning_events", 1},
        {"tx_pause_storm_error_events", 1}},
       {},
       PollVerdict::healthy},
      {"tx_stalled_but_packets_arriving",
       Direction::tx,
       10'000,
       {{"tx_prio3_pause_duration", 10'000}, {"rx_prio3_packets", 500}},
       {},
       PollVerdict::healthy},
      // PFC off on the priority: mlx5 lists no pause counters, though the MAC still counts frames.
      {"rx_pause_counters_absent",
       Direction::rx,
       10'000,
       {{"rx_pause_ctrl_phy", 60}},
       {"rx_prio3_pause", "rx_prio3_pause_duration", "tx_prio3_pause", "tx_prio3_pause_duration"},
       PollVerdict::unknown,
       UnknownReason::missing_counter,
       "rx_prio3_pause_duration"},
      {"rx_opposite_packets_absent",
       Direction::rx,
       10'000,
       {{"rx_prio3_pause_duration", 10'000}},
       {"tx_prio3_packets"},
       PollVerdict::unknown,
       UnknownReason::missing_counter,
       "tx_prio3_packets"},
      {"rx_duration_went_backwards",
       Direction::rx,
       10'000,
       {{"rx_prio3_pause_duration", -990'000}},
       {},
       PollVerdict::unknown,
       UnknownReason::counter_reset,
       "rx_prio3_pause_duration"},
      {"rx_port_frames_went_backwards",
       Direction::rx,
       10'000,
       {{"rx_prio3_pause_duration", 10'000}, {"rx_pause_ctrl_phy", -1}},
       {},
       PollVerdict::unknown,
       UnknownReason::counter_reset,
       "rx_pause_ctrl_phy"},
      {"tx_storm_events_went_backwards",
       Direction::tx,
       10'000,
       {{"tx_prio3_pause_duration", 10'000}, {"tx_pause_storm_error_events", -5}},
       {},
       PollVerdict::unknown,
       UnknownReason::counter_reset,
       "tx_pause_storm_error_events"},
      {"zero_interval",
       Direction::rx,
       0,
       {{"rx_prio3_pause_duration", 10'000}},
       {},
       PollVerdict::unknown,
       UnknownReason::bad_interval},
      {"negative_interval",
       Direction::rx,
       -10'000,
       {{"rx_prio3_pause_duration", 10'000}},
       {},
       PollVerdict::unknown,
       UnknownReason::bad_interval},
  };
}

// gtest prints a failing case by its name, not its bytes.
void PrintTo(const SignalCase& c, std::ostream* os) { *os << c.name; }

class SignalTable : public ::testing::TestWithParam<SignalCase> {};

TEST_P(SignalTable, VerdictAndReason) {
  const SignalCase& c = GetParam();
  SampleSeries series = pfc_port();
  for (const auto& name : c.absent) series.erase(name);
  const auto earlier = series.take(milliseconds(0));
  for (const auto& [name, delta] : c.deltas) {
    series.set(name, static_cast<uint64_t>(static_cast<int64_t>(series.value(name)) + delta));
  }
  const auto later = series.take(microseconds(c.interval_us));

  const StormEvidence evidence = read_storm_evidence(earlier, later, 3, c.direction);
  EXPECT_EQ(verdict_name(evidence.verdict), verdict_name(c.verdict));
  EXPECT_EQ(reason_name(evidence.unknown_reason), reason_name(c.reason));
  EXPECT_EQ(evidence.unknown_counter, c.unknown_counter);
  EXPECT_EQ(evidence.interval, microseconds(c.interval_us));
  EXPECT_EQ(evidence.at, later.at);
  EXPECT_EQ(evidence.priority, 3);
}

INSTANTIATE_TEST_SUITE_P(Watchdog, SignalTable, ::testing::ValuesIn(signal_cases()),
                         [](const auto& test_case) { return test_case.param.name; });

TEST(StormSignal, RxDeltasAreReportedAsMeasured) {
  SampleSeries series = pfc_port();
  const auto earlier = series.take(milliseconds(0));
  series.add("rx_prio3_pause_duration", 9'950);
  series.add("rx_prio3_pause", 59);
  series.add("rx_pause_ctrl_phy", 61);
  series.add("rx_prio3_packets", 7);  // the other direction's traffic does not matter for rx
  series.add("tx_pause_storm_warning_events", 1);
  const auto later = series.take(milliseconds(10));

  const StormEvidence evidence = read_storm_evidence(earlier, later, 3, Direction::rx);
  EXPECT_EQ(evidence.verdict, PollVerdict::stormed);
  EXPECT_EQ(evidence.pause_duration_us, 9'950u);
  EXPECT_EQ(evidence.pause_frames, 59u);
  EXPECT_EQ(evidence.port_pause_frames, 61u);
  EXPECT_EQ(evidence.opposite_packets, 0u);
  // The storm events are the NIC's TX-side stall prevention: not reported for an RX storm.
  EXPECT_FALSE(evidence.storm_warning_events.has_value());
  EXPECT_FALSE(evidence.storm_error_events.has_value());
}

TEST(StormSignal, TxStormReportsTheFirmwareStormEvents) {
  SampleSeries series = pfc_port();
  const auto earlier = series.take(milliseconds(0));
  series.add("tx_prio3_pause_duration", 20'000);
  series.add("tx_prio3_pause", 120);
  series.add("tx_pause_storm_warning_events", 1);
  series.add("tx_pause_storm_error_events", 2);
  const auto later = series.take(milliseconds(20));

  const StormEvidence evidence = read_storm_evidence(earlier, later, 3, Direction::tx);
  EXPECT_EQ(evidence.verdict, PollVerdict::stormed);
  EXPECT_EQ(evidence.pause_duration_us, 20'000u);
  EXPECT_EQ(evidence.pause_frames, 120u);
  EXPECT_EQ(evidence.storm_warning_events, 1u);
  EXPECT_EQ(evidence.storm_error_events, 2u);
}

TEST(StormSignal, OtherPortsSamplesAreUnknown) {
  SampleSeries lan3 = pfc_port();
  SampleSeries lan4("lan4");
  for (const char* name : {"rx_prio3_pause_duration", "tx_prio3_packets"}) lan4.set(name, 0);
  const auto earlier = lan3.take(milliseconds(0));
  lan4.set("rx_prio3_pause_duration", 2'000'000);
  const auto later = lan4.take(milliseconds(10));  // lan4's clock starts at the same origin
  const StormEvidence evidence = read_storm_evidence(earlier, later, 3, Direction::rx);
  EXPECT_EQ(evidence.verdict, PollVerdict::unknown);
  EXPECT_EQ(evidence.unknown_reason, UnknownReason::other_port);
}

TEST(StormSignal, NoCarrierAtEitherReadingIsUnknownAndNoFrameCount) {
  SampleSeries series = pfc_port();
  auto first = series.take(milliseconds(0));
  series.add("tx_prio3_packets", 100);  // even with traffic counted: the link went down
  auto second = series.take(milliseconds(10));
  second.carrier = false;
  StormEvidence evidence = read_storm_evidence(first, second, 3, Direction::rx);
  EXPECT_EQ(evidence.verdict, PollVerdict::unknown);
  EXPECT_EQ(evidence.unknown_reason, UnknownReason::link_down);
  EXPECT_EQ(restoration_pause_frames(evidence), std::nullopt);
  first.carrier = false;
  second.carrier = true;
  EXPECT_EQ(read_storm_evidence(first, second, 3, Direction::rx).unknown_reason,
            UnknownReason::link_down);
  first.carrier.reset();  // not readable: the counters decide
  EXPECT_EQ(read_storm_evidence(first, second, 3, Direction::rx).verdict, PollVerdict::healthy);
}

TEST(StormSignal, RestorationFramesPreferThePrioritysOwnCounter) {
  SampleSeries series = pfc_port();
  const auto first = series.take(milliseconds(0));
  series.add("rx_prio3_pause", 0);
  series.add("rx_pause_ctrl_phy", 40);  // another priority's pauses
  const auto second = series.take(milliseconds(10));
  EXPECT_EQ(restoration_pause_frames(read_storm_evidence(first, second, 3, Direction::rx)), 0u);

  // PFC turned off on priority 3 (disable-pfc): the MAC count is all that is left.
  series.erase("rx_prio3_pause");
  series.erase("rx_prio3_pause_duration");
  series.add("rx_pause_ctrl_phy", 25);
  const auto third = series.take(milliseconds(10));
  const StormEvidence off = read_storm_evidence(second, third, 3, Direction::rx);
  EXPECT_EQ(off.verdict, PollVerdict::unknown);
  EXPECT_EQ(restoration_pause_frames(off), 25u);

  // A reset proves nothing about the frames.
  series.reset_all();
  const auto fourth = series.take(milliseconds(10));
  EXPECT_FALSE(restoration_pause_frames(read_storm_evidence(third, fourth, 3, Direction::rx)));
}

// With PFC off on the priority, dcbnl getpfc still counts its own frames: the MAC's count of
// every priority's frames (another priority paused) does not hold it.
TEST(StormSignal, WithoutPfcThePrioritysGetpfcCountOutranksTheMac) {
  SampleSeries series = pfc_port();
  series.erase("rx_prio3_pause");
  series.erase("rx_prio3_pause_duration");
  series.add_dcb(Direction::rx, 3, 0);
  const auto first = series.take(milliseconds(0));
  series.add("rx_pause_ctrl_phy", 60);  // priority 4's storm
  series.add_dcb(Direction::rx, 4, 60);
  const auto second = series.take(milliseconds(10));
  const StormEvidence quiet = read_storm_evidence(first, second, 3, Direction::rx);
  EXPECT_EQ(quiet.dcb_pause_frames, 0u);
  EXPECT_EQ(restoration_pause_frames(quiet), 0u);
  EXPECT_EQ(storm_without_pfc(quiet), WithoutPfc::stopped);

  series.add("rx_pause_ctrl_phy", 90);  // both now
  series.add_dcb(Direction::rx, 4, 60);
  series.add_dcb(Direction::rx, 3, 30);
  const auto third = series.take(milliseconds(10));
  const StormEvidence paused = read_storm_evidence(second, third, 3, Direction::rx);
  EXPECT_EQ(restoration_pause_frames(paused), 30u);
  // Frames arrive and nothing is sent on priority 3: an idle port and a stalled one look alike.
  EXPECT_EQ(storm_without_pfc(paused), WithoutPfc::nothing_sent);
}

// Each reading's snapshot lies somewhere within its read time: the 99 % rule allows for the
// shortest interval the two can have spanned.
TEST(StormSignal, JudgedOnTheShortestIntervalTheReadsAllow) {
  SampleSeries series = pfc_port();
  auto earlier = series.take(milliseconds(0));
  earlier.read_time = microseconds(200);
  series.add("rx_prio3_pause_duration", 9'750);  // 97.5 % of the 10 ms between the midpoints
  auto later = series.take(milliseconds(10));
  later.read_time = microseconds(200);
  const StormEvidence evidence = read_storm_evidence(earlier, later, 3, Direction::rx);
  EXPECT_EQ(evidence.shortest, microseconds(9'800));
  EXPECT_EQ(evidence.verdict, PollVerdict::stormed);  // 9.75 >= 0.99 x 9.8 = 9.702 ms

  later.read_time = earlier.read_time = microseconds(0);
  EXPECT_EQ(read_storm_evidence(earlier, later, 3, Direction::rx).verdict, PollVerdict::healthy);
}

// Slow reads widen the bounds: judged against the shortest span while at least half the interval
// is certain, unknown beyond.
TEST(StormSignal, SlowReadsAreJudgedOnTheirBoundsUntilHalfTheIntervalIsUncertain) {
  SampleSeries series = pfc_port();
  auto earlier = series.take(milliseconds(0));
  series.add("rx_prio3_pause_duration", 10'000);
  auto later = series.take(milliseconds(10));
  earlier.read_time = later.read_time = microseconds(1'500);  // shortest 8.5 ms: judged
  EXPECT_EQ(read_storm_evidence(earlier, later, 3, Direction::rx).verdict, PollVerdict::stormed);
  earlier.read_time = later.read_time = microseconds(5'100);  // shortest 4.9 ms < 50 %
  const StormEvidence evidence = read_storm_evidence(earlier, later, 3, Direction::rx);
  EXPECT_EQ(evidence.verdict, PollVerdict::unknown);
  EXPECT_EQ(evidence.unknown_reason, UnknownReason::slow_read);
  // Traffic crossed the other way: healthy, however loose the timing.
  series.add("tx_prio3_packets", 5);
  auto moved = series.take(milliseconds(10));
  moved.read_time = microseconds(5'100);
  EXPECT_EQ(read_storm_evidence(later, moved, 3, Direction::rx).verdict, PollVerdict::healthy);
}

// A counter reset must end a storm run whatever else is wrong with the poll: a slow read that
// also spans a reset is a reset, not a poll to skip.
TEST(StormSignal, AResetInASlowReadIsAReset) {
  SampleSeries series = pfc_port();
  auto earlier = series.take(milliseconds(0));
  series.reset_all();
  series.add("rx_prio3_pause_duration", 10'000);
  auto later = series.take(milliseconds(10));
  earlier.read_time = later.read_time = microseconds(5'100);  // too slow to judge
  const StormEvidence evidence = read_storm_evidence(earlier, later, 3, Direction::rx);
  EXPECT_EQ(evidence.verdict, PollVerdict::unknown);
  EXPECT_EQ(evidence.unknown_reason, UnknownReason::counter_reset);
}

TEST(StormSignal, WithoutPfcTheMacTellsWhetherTheStormGoesOn) {
  SampleSeries series = pfc_port();
  series.erase("rx_prio3_pause");
  series.erase("rx_prio3_pause_duration");
  const auto first = series.take(milliseconds(0));
  // The switch still pauses us and we send nothing: we may obey, or have nothing to send.
  series.add("rx_pause_ctrl_phy", 59);
  const auto second = series.take(milliseconds(10));
  EXPECT_EQ(storm_without_pfc(read_storm_evidence(first, second, 3, Direction::rx)),
            WithoutPfc::nothing_sent);
  series.add("rx_pause_ctrl_phy", 59);
  series.add("tx_prio3_packets", 2'000);  // still paused frames, but we send: PFC off works
  const auto third = series.take(milliseconds(10));
  EXPECT_EQ(storm_without_pfc(read_storm_evidence(second, third, 3, Direction::rx)),
            WithoutPfc::stopped);
  // With the pause counters listed (PFC on) the duration rule judges, not this.
  SampleSeries listed = pfc_port();
  const auto a = listed.take(milliseconds(0));
  const auto b = listed.take(milliseconds(10));
  EXPECT_FALSE(storm_without_pfc(read_storm_evidence(a, b, 3, Direction::rx)));
}

// TX: with PFC off the NIC must send no pause frame; one that still does while nothing arrives
// has not stopped pausing, whatever the port has to send.
TEST(StormSignal, WithoutPfcATxPauseStillSentIsTheStormGoingOn) {
  SampleSeries series = pfc_port();
  series.erase("tx_prio3_pause");
  series.erase("tx_prio3_pause_duration");
  const auto first = series.take(milliseconds(0));
  series.add("tx_pause_ctrl_phy", 59);
  const auto second = series.take(milliseconds(10));
  EXPECT_EQ(storm_without_pfc(read_storm_evidence(first, second, 3, Direction::tx)),
            WithoutPfc::still_paused);
  series.add("rx_prio3_packets", 10);
  const auto third = series.take(milliseconds(10));
  EXPECT_EQ(storm_without_pfc(read_storm_evidence(second, third, 3, Direction::tx)),
            WithoutPfc::stopped);
}

TEST(StormSignal, NinetyNinePercentRuleIsExactAndCannotOverflow) {
  EXPECT_TRUE(covers_99_percent(99, microseconds(100)));
  EXPECT_FALSE(covers_99_percent(98, microseconds(100)));
  // 0.99 x 10.001 ms = 9900.99 us: 9900 us is short of it, 9901 us is enough.
  EXPECT_FALSE(covers_99_percent(9'900, std::chrono::nanoseconds(10'001'000)));
  EXPECT_TRUE(covers_99_percent(9'901, std::chrono::nanoseconds(10'001'000)));
  EXPECT_TRUE(covers_99_percent(std::numeric_limits<uint64_t>::max(), milliseconds(10)));
  EXPECT_FALSE(covers_99_percent(0, std::chrono::hours(24 * 365 * 100)));
  EXPECT_FALSE(covers_99_percent(1'000, microseconds(0)));  // no time: nothing to cover
}

}  // namespace
}  // namespace roced::watchdog
