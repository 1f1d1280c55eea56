// SPDX-License-Identifier: Apache-2.0
// StormDetector: detection on measured time, resets, restoration, remediation verification and
// the recurrence backoff, driven poll by poll through read_storm_evidence.
#include "watchdog/storm_detector.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "sample_series.hpp"
#include "storm_poller.hpp"

namespace roced::watchdog {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using test::StormPoller;

// Poll 10 ms, detection 50 ms, restoration 100 ms, verdict on the third poll after an action.
DetectorSettings test_settings() {
  DetectorSettings settings;
  settings.detection_time = milliseconds(50);
  settings.restoration_time = milliseconds(100);
  settings.verify_polls = 3;
  return settings;
}

std::string n(int count, char kind) { return std::string(static_cast<size_t>(count), kind); }

std::string event_name(const StormEvent& event) {
  if (std::holds_alternative<StormDetected>(event)) return "detected";
  if (std::holds_alternative<RemediationVerified>(event)) return "verified";
  if (std::holds_alternative<RemediationFailed>(event)) return "failed";
  if (std::holds_alternative<RemediationUnverified>(event)) return "unverified";
  return "restored";
}

// One letter per poll (S storm, C congestion, Q quiet, B blip, R reset during a storm, O PFC off
// with the peer still pausing, E PFC off and no pause, I PFC off but the NIC still honours the
// pauses, T a storm beginning 6 ms before the poll, N the NIC's stall prevention gives up, V the
// NIC's storm event from another priority, D TX with PFC off: no pause, the receive side drops),
// X = the caller acts now (no poll).
// Polls are 10 ms apart unless `intervals_ms` gives them in order. Returns "poll:event" for every
// event, polls counted from 1.
struct Script {
  StormPoller poller;
  StormDetector detector;
  std::vector<StormEvent> all;

  explicit Script(Direction direction = Direction::rx, DetectorSettings settings = test_settings())
      : poller(direction), detector(settings) {}

  std::vector<std::string> run(const std::string& script, std::vector<int> intervals_ms = {}) {
    std::vector<std::string> seen;
    size_t polls = 0;
    for (const char kind : script) {
      if (kind == 'X') {
        EXPECT_TRUE(detector.on_action(poller.now())) << "action refused before poll " << polls;
        continue;
      }
      const microseconds interval =
          polls < intervals_ms.size() ? milliseconds(intervals_ms[polls]) : milliseconds(10);
      ++polls;
      StormEvidence evidence;
      switch (kind) {
        case 'S':
          evidence = poller.storm(interval);
          break;
        case 'C':
          evidence = poller.congestion(interval);
          break;
        case 'Q':
          evidence = poller.quiet(interval);
          break;
        case 'B':
          evidence = poller.blip(interval);
          break;
        case 'R':
          evidence = poller.reset_in_storm(interval);
          break;
        case 'O':
          evidence = poller.pfc_off_still_paused(interval);
          break;
        case 'E':
          evidence = poller.pfc_off_quiet(interval);
          break;
        case 'I':
          evidence = poller.pfc_off_ignored(interval);
          break;
        case 'T':  // a storm that begins 6 ms before the poll
          evidence = poller.onset(interval, milliseconds(6));
          break;
        case 'N':  // TX: the NIC gives up pausing 4 ms into the poll
          evidence = poller.nic_stops_pausing(interval, milliseconds(4));
          break;
        case 'V':
          evidence = poller.nic_event_elsewhere(interval);
          break;
        case 'D':
          evidence = poller.pfc_off_dropping(interval);
          break;
        case 'L':  // the link trains (no carrier), e.g. after disable-pfc's own flap
          evidence = poller.link_training(interval);
          break;
        default:
          ADD_FAILURE() << "unknown script letter " << kind;
          continue;
      }
      for (const StormEvent& event : detector.feed(evidence)) {
        seen.push_back(std::to_string(polls) + ":" + event_name(event));
        all.push_back(event);
      }
    }
    return seen;
  }
};

struct DetectorCase {
  std::string name;
  std::string script;
  std::vector<int> intervals_ms;
  std::vector<std::string> events;
  Direction direction = Direction::rx;
};

std::vector<DetectorCase> detector_cases() {
  using V = std::vector<std::string>;
  return {
      // Detection: measured time adds up to 50 ms over at least two stormed polls.
      {"five_polls_of_10ms_detect_on_the_fifth", n(6, 'S'), {}, V{"5:detected"}},
      {"long_polls_detect_sooner", n(5, 'S'), {14, 14, 14, 14, 14}, V{"4:detected"}},
      {"short_polls_detect_later", n(7, 'S'), {9, 9, 9, 9, 9, 9, 9}, V{"6:detected"}},
      {"one_poll_longer_than_detection_needs_a_second", n(2, 'S'), {60, 10}, V{"2:detected"}},
      {"detected_once_however_long_the_storm", n(100, 'S'), {}, V{"5:detected"}},
      {"congestion_95_percent_never_detected", n(200, 'C'), {}, V{}},
      {"pauses_without_the_priority_counters_never_detected", n(200, 'O'), {}, V{}},
      {"reset_mid_storm_restarts_accumulation", n(4, 'S') + "R" + n(5, 'S'), {}, V{"10:detected"}},
      {"healthy_poll_restarts_accumulation", n(4, 'S') + "Q" + n(5, 'S'), {}, V{"10:detected"}},
      {"congested_poll_restarts_accumulation", n(4, 'S') + "C" + n(5, 'S'), {}, V{"10:detected"}},
      {"tx_storm_detected", n(5, 'S'), {}, V{"5:detected"}, Direction::tx},
      // A storm that begins mid-poll is as old as the pause counter says: 6 ms + 4 polls = 46 ms,
      // + 5 polls = 56 ms.
      {"onset_mid_poll_counts_its_paused_tail", "QT" + n(6, 'S'), {}, V{"7:detected"}},
      // The NIC's stall prevention saw a TX storm and stopped pausing: detected at once.
      {"nic_stall_prevention_event_after_a_stormed_poll",
       "SSN" + n(3, 'Q'),
       {},
       V{"3:detected"},
       Direction::tx},
      {"nic_stall_prevention_event_in_a_pausing_poll", "QN", {}, V{"2:detected"}, Direction::tx},
      {"nic_event_without_a_pause_here_is_not_this_prioritys",
       "Q" + n(3, 'V'),
       {},
       V{},
       Direction::tx},
      {"nic_event_is_tx_only", "SSN", {}, V{}, Direction::rx},
      // Restoration: 100 ms without a pause frame in the storm's direction.
      {"restored_after_100ms_without_pause",
       n(5, 'S') + n(10, 'Q'),
       {},
       V{"5:detected", "15:restored"}},
      {"a_pause_frame_restarts_the_clock",
       n(5, 'S') + n(6, 'Q') + "B" + n(10, 'Q'),
       {},
       V{"5:detected", "22:restored"}},
      {"congestion_after_the_storm_delays_restoration",
       n(5, 'S') + n(30, 'C') + n(10, 'Q'),
       {},
       V{"5:detected", "45:restored"}},
      {"a_reset_restarts_the_clock",
       n(5, 'S') + n(5, 'Q') + "R" + n(10, 'Q'),
       {},
       V{"5:detected", "21:restored"}},
      {"alert_only_restores_when_the_storm_stops",
       n(25, 'S') + n(10, 'Q'),
       {},
       V{"5:detected", "35:restored"}},
      // After an action the restoration clock starts at the action at the earliest.
      {"quiet_before_the_action_does_not_count",
       n(5, 'S') + n(5, 'Q') + "X" + n(10, 'Q'),
       {},
       V{"5:detected", "13:verified", "20:restored"}},
      // Verification: the third poll after the action decides.
      {"disable_pfc_verified_and_restored_on_mac_frames",
       n(5, 'S') + "X" + n(5, 'O') + n(10, 'E'),
       {},
       V{"5:detected", "8:verified", "20:restored"}},
      {"stall_prevention_on_rx_storm_fails",
       n(5, 'S') + "X" + n(10, 'S'),
       {},
       V{"5:detected", "8:failed"}},
      // RX: PFC off does not stop the switch's frames; a port that then sends nothing on the
      // priority may be idle or still obeying them. The counters cannot tell: no verdict either
      // way, and the hold stays while the frames come.
      {"rx_disable_pfc_on_a_port_that_sends_nothing_is_unverified",
       n(5, 'S') + "X" + n(5, 'I'),
       {},
       V{"5:detected", "8:unverified"}},
      {"rx_disable_pfc_verified_once_the_port_sends",
       n(5, 'S') + "X" + "IIO" + n(3, 'I'),
       {},
       V{"5:detected", "8:verified"}},
      // TX: the NIC still sends pause frames with PFC off: that is a failure, idle or not.
      {"tx_disable_pfc_ignored_by_the_nic_fails",
       n(5, 'S') + "X" + n(5, 'I'),
       {},
       V{"5:detected", "8:failed"},
       Direction::tx},
      {"failed_then_escalated",
       n(5, 'S') + "X" + n(3, 'S') + "X" + n(3, 'O') + n(10, 'E'),
       {},
       V{"5:detected", "8:failed", "11:verified", "21:restored"}},
      {"signal_gone_by_the_third_poll_verifies",
       n(5, 'S') + "X" + "SSQ" + n(9, 'Q'),
       {},
       V{"5:detected", "8:verified", "17:restored"}},
      {"reset_polls_do_not_count_toward_verification",
       n(5, 'S') + "X" + "QRQQ" + n(10, 'Q'),
       {},
       V{"5:detected", "9:verified", "17:restored"}},
      // With PFC off a TX storm sends no pause frame; its stalled receive side still drops: not
      // over until the drops stop.
      {"tx_storm_under_disable_pfc_restores_only_when_the_drops_stop",
       n(5, 'S') + "X" + n(12, 'D') + n(10, 'E'),
       {},
       V{"5:detected", "8:verified", "27:restored"},
       Direction::tx},
      {"tx_stall_prevention_verified",
       n(5, 'S') + "X" + n(10, 'Q'),
       {},
       V{"5:detected", "8:verified", "15:restored"},
       Direction::tx},
  };
}

// gtest prints a failing case by its name, not its bytes.
void PrintTo(const DetectorCase& c, std::ostream* os) { *os << c.name; }

class DetectorTable : public ::testing::TestWithParam<DetectorCase> {};

TEST_P(DetectorTable, EventsOnTheExpectedPolls) {
  const DetectorCase& c = GetParam();
  Script script(c.direction);
  EXPECT_EQ(script.run(c.script, c.intervals_ms), c.events);
}

INSTANTIATE_TEST_SUITE_P(Watchdog, DetectorTable, ::testing::ValuesIn(detector_cases()),
                         [](const auto& test_case) { return test_case.param.name; });

TEST(StormDetector, DetectionReportsTheMeasuredAccumulation) {
  Script script;
  ASSERT_EQ(script.run(n(4, 'S'), {9, 11, 12, 10}), std::vector<std::string>{});
  EXPECT_EQ(script.detector.accumulated(), milliseconds(42));
  EXPECT_EQ(script.detector.stormed_polls(), 4);
  const auto start = script.poller.now() - milliseconds(42);
  ASSERT_EQ(script.run("S", {8}), std::vector<std::string>{"1:detected"});

  const auto& detected = std::get<StormDetected>(script.all.at(0));
  EXPECT_EQ(detected.accumulated, milliseconds(50));
  EXPECT_EQ(detected.stormed_polls, 5);
  EXPECT_EQ(detected.at, script.poller.now());
  EXPECT_EQ(detected.onset, start);
  EXPECT_EQ(detected.latency, milliseconds(50));
  EXPECT_FALSE(detected.by_nic);
  EXPECT_EQ(detected.restoration_time, milliseconds(100));
  EXPECT_FALSE(detected.recurrence);
  EXPECT_EQ(detected.evidence.verdict, PollVerdict::stormed);
  EXPECT_EQ(detected.evidence.interval, milliseconds(8));
  EXPECT_EQ(script.detector.state(), StormState::storming);
}

// The onset is placed by the pause counter: a storm that began 6 ms before a poll is 56 ms old
// five stormed polls later, so a 55 ms detection time is met there, a poll earlier than the
// stormed polls alone would (and SONiC's accounting does).
TEST(StormDetector, OnsetComesFromThePausedTailBeforeTheStormedPolls) {
  DetectorSettings settings = test_settings();
  settings.detection_time = milliseconds(55);
  Script script(Direction::rx, settings);
  ASSERT_EQ(script.run("QT"), std::vector<std::string>{});
  const auto onset = script.poller.now() - milliseconds(6);
  ASSERT_EQ(script.run(n(5, 'S')), std::vector<std::string>{"5:detected"});
  const auto& detected = std::get<StormDetected>(script.all.at(0));
  EXPECT_EQ(detected.onset, onset);
  EXPECT_EQ(detected.latency, milliseconds(56));
  EXPECT_EQ(detected.accumulated, milliseconds(50));
  EXPECT_EQ(detected.stormed_polls, 5);
}

// A poll whose reads were too slow to judge, with nothing crossing the other way, neither counts
// nor ends the storm: its age is time, so detection comes when it would have.
TEST(StormDetector, ASlowReadInAStormIsSkippedNotAReset) {
  Script script;
  ASSERT_EQ(script.run("SS"), std::vector<std::string>{});
  StormEvidence slow;
  slow.verdict = PollVerdict::unknown;
  slow.unknown_reason = UnknownReason::slow_read;
  slow.interval = milliseconds(10);
  slow.at = slow.later_earliest = script.poller.now() + milliseconds(10);
  slow.earlier_at = slow.earlier_latest = script.poller.now();
  slow.pause_duration_us = 9'000;
  slow.opposite_packets = 0;
  EXPECT_TRUE(script.detector.feed(slow).empty());
  EXPECT_EQ(script.detector.stormed_polls(), 2);
  // The poller's own clock did not move: the next stormed polls are 20 ms, 30 ms after the two.
  EXPECT_EQ(script.run("SS", {20, 10}), std::vector<std::string>{"2:detected"});
  EXPECT_EQ(std::get<StormDetected>(script.all.at(0)).latency, milliseconds(50));
}

// A read that stalled (the driver, or the host, busy for most of a second) across a storm's start:
// the pause the counter measured in it is the storm's beginning, however short the midpoints'
// interval. The latency is still the storm's true age.
TEST(StormDetector, AStalledReadAcrossTheOnsetStillPlacesIt) {
  DetectorSettings settings = test_settings();
  settings.detection_time = milliseconds(300);
  StormDetector detector(settings);
  test::SampleSeries series;
  for (const char* name : {"rx_prio3_pause", "rx_prio3_pause_duration", "tx_prio3_packets"}) {
    series.set(name, 1'000'000);
  }
  PauseCounters last = series.take(milliseconds(0));  // read at T, instantly
  // The next read began at T + 100 ms and was answered at T + 1050 ms; the storm began at
  // T + 200 ms (the counter says 850 ms paused), after 50 packets went out.
  series.add("rx_prio3_pause_duration", 850'000);
  series.add("tx_prio3_packets", 50);
  PauseCounters stalled = series.take(milliseconds(575));
  stalled.read_time = milliseconds(950);
  const auto onset = last.at + milliseconds(200);
  EXPECT_TRUE(detector.feed(read_storm_evidence(last, stalled, 3, Direction::rx)).empty());
  last = stalled;
  std::vector<StormEvent> events;
  for (int poll = 0; poll < 3 && events.empty(); ++poll) {
    series.add("rx_prio3_pause_duration", 100'000);
    PauseCounters next = series.take(milliseconds(poll == 0 ? 575 : 100));
    events = detector.feed(read_storm_evidence(last, next, 3, Direction::rx));
    last = next;
  }
  ASSERT_EQ(events.size(), 1u);
  const auto& detected = std::get<StormDetected>(events[0]);
  EXPECT_EQ(detected.onset, onset);
  EXPECT_EQ(detected.latency, detected.at - onset);
}

TEST(StormDetector, TheNicsStallPreventionEventIsADetectionByTheNic) {
  Script script(Direction::tx);
  ASSERT_EQ(script.run("QSSN"), std::vector<std::string>{"4:detected"});
  const StormDetected detected = std::get<StormDetected>(script.all.at(0));  // copied: all grows
  EXPECT_TRUE(detected.by_nic);
  EXPECT_EQ(detected.stormed_polls, 2);
  EXPECT_EQ(detected.latency, milliseconds(30));  // two stormed polls and the one it gave up in
  EXPECT_EQ(detected.evidence.storm_error_events, 1u);
  // It stopped pausing 4 ms into that poll: quiet from there.
  ASSERT_EQ(script.run(n(10, 'Q')), std::vector<std::string>{"10:restored"});
  const auto& restored = std::get<StormRestored>(script.all.at(1));
  EXPECT_EQ(restored.last_pause, detected.at - milliseconds(6));
}

// Found by the soak (test/load): a TX storm whose stall-prevention timeout ended in the last 1 %
// of a stormed poll was never detected — the stormed poll was not looked at for the NIC's event,
// and the polls after it, no longer pausing, reset the run.
TEST(StormDetector, TheNicsEventInAStormedPollIsADetectionByTheNic) {
  StormPoller poller(Direction::tx);
  StormDetector detector(DetectorSettings{milliseconds(200), milliseconds(200)});
  const auto poll = milliseconds(100);
  ASSERT_TRUE(detector.feed(poller.quiet(poll)).empty());
  const auto onset = poller.now();
  const auto events = detector.feed(poller.nic_stops_pausing_at_the_end(poll));
  ASSERT_EQ(events.size(), 1u);
  const auto& detected = std::get<StormDetected>(events[0]);
  EXPECT_TRUE(detected.by_nic);
  EXPECT_EQ(detected.stormed_polls, 1);
  EXPECT_EQ(detected.onset, onset);
  EXPECT_EQ(detected.latency, poll);
  EXPECT_EQ(detector.state(), StormState::storming);
}

TEST(StormDetector, TxDetectionCarriesTheFirmwareStormEvents) {
  Script script(Direction::tx);
  ASSERT_EQ(script.run(n(5, 'S')), std::vector<std::string>{"5:detected"});
  const auto& evidence = std::get<StormDetected>(script.all.at(0)).evidence;
  EXPECT_EQ(evidence.direction, Direction::tx);
  EXPECT_EQ(evidence.pause_duration_us, 10'000u);
  EXPECT_EQ(evidence.opposite_packets, 0u);
  // The poller raises the warning on the first stormed poll; by the fifth it no longer moves.
  EXPECT_EQ(evidence.storm_warning_events, 0u);
  EXPECT_EQ(evidence.storm_error_events, 0u);
}

TEST(StormDetector, RestoredReportsStormDurationAndRequiredQuiet) {
  Script script;
  const auto start = script.poller.now();
  ASSERT_EQ(script.run(n(5, 'S') + n(10, 'Q')),
            (std::vector<std::string>{"5:detected", "15:restored"}));
  const auto& restored = std::get<StormRestored>(script.all.at(1));
  EXPECT_EQ(restored.at, script.poller.now());
  EXPECT_EQ(restored.last_pause, start + milliseconds(50));  // the fifth poll's end
  EXPECT_EQ(restored.storm_duration, milliseconds(50));
  EXPECT_EQ(restored.at - restored.last_pause, milliseconds(100));
  EXPECT_EQ(restored.restoration_time, milliseconds(100));
  EXPECT_EQ(script.detector.state(), StormState::watching);
  EXPECT_EQ(script.detector.accumulated(), milliseconds(0));
}

// A pause on its own, polls after the storm ended, may have come at any time in its poll: the
// quiet time runs from the poll's end, the latest the readings allow. Only a pause that carries
// on from a poll paused to its end (a storm's last moments) is placed at the poll's start.
TEST(StormDetector, ALonePauseAfterTheStormCountsFromTheEndOfItsPoll) {
  DetectorSettings settings = test_settings();
  settings.restoration_time = milliseconds(95);
  Script script(Direction::rx, settings);
  const auto start = script.poller.now();
  // Detected on poll 5; quiet; a two-frame pause somewhere in poll 9 (80-90 ms); quiet again.
  ASSERT_EQ(script.run(n(5, 'S') + n(3, 'Q') + "B" + n(11, 'Q')),
            (std::vector<std::string>{"5:detected", "19:restored"}));
  const auto& restored = std::get<StormRestored>(script.all.at(1));
  EXPECT_EQ(restored.last_pause, start + milliseconds(90));
  EXPECT_GE(restored.at - restored.last_pause, milliseconds(95));
}

// Reads that take 15 % of a 10 ms poll (a real mlx5 stats read is about a millisecond): the
// snapshots are 8.5-11.5 ms apart, and a pause that covers 99 % of the shortest span while nothing
// crosses the other way is still a stormed poll. Detection keeps its bound: 50 ms, on the fifth
// poll, as with instant reads, not after a run of skipped polls.
TEST(StormDetector, SlowReadsWidenTheBoundsButStillJudgeThePoll) {
  Script script;
  script.poller.set_read_time(std::chrono::microseconds(1'500));
  EXPECT_EQ(script.run(n(6, 'S')), std::vector<std::string>{"6:detected"});
  // Traffic crossing still makes a poll healthy, and ends the run, however slow the reads.
  Script congested;
  congested.poller.set_read_time(std::chrono::microseconds(1'500));
  EXPECT_EQ(congested.run("SSSCSSS"), std::vector<std::string>{});
}

TEST(StormDetector, FailedReportsThePollsSinceTheAction) {
  Script script;
  ASSERT_EQ(script.run(n(5, 'S') + "X" + "QSS"),
            (std::vector<std::string>{"5:detected", "8:failed"}));
  const auto& failed = std::get<RemediationFailed>(script.all.at(1));
  EXPECT_EQ(failed.polls, 3);
  EXPECT_EQ(failed.stormed_polls, 2);
  EXPECT_EQ(failed.action_at, failed.at - milliseconds(30));
  EXPECT_EQ(failed.evidence.verdict, PollVerdict::stormed);
}

// disable-pfc flaps an mlx5 link: while it trains no pause can arrive, so those polls are no
// quiet time. Restoration counts from the first poll with the carrier at both ends (poll 36
// still began without it).
TEST(StormDetector, PollsWithoutCarrierAreNoQuietTimeAndNoVerdict) {
  Script script;
  EXPECT_EQ(script.run(n(5, 'S') + "X" + n(30, 'L') + n(11, 'Q')),
            (std::vector<std::string>{"5:detected", "39:verified", "46:restored"}));
  const auto& restored = std::get<StormRestored>(script.all.back());
  EXPECT_EQ(restored.at - restored.last_pause, milliseconds(100));
}

TEST(StormDetector, RestorationBeforeTheVerdictVerifiesFirst) {
  DetectorSettings settings = test_settings();
  settings.verify_polls = 20;
  Script script(Direction::rx, settings);
  EXPECT_EQ(script.run(n(5, 'S') + "X" + n(10, 'Q')),
            (std::vector<std::string>{"5:detected", "15:verified", "15:restored"}));
  EXPECT_EQ(std::get<RemediationVerified>(script.all.at(1)).polls, 10);
}

TEST(StormDetector, VerificationSkipsPollsItCannotJudge) {
  Script script;
  ASSERT_EQ(script.run(n(5, 'S') + "X"), std::vector<std::string>{"5:detected"});
  // Pause counters listed but the other direction's packets not: neither stormed nor relieved.
  StormEvidence undecided;
  undecided.verdict = PollVerdict::unknown;
  undecided.unknown_reason = UnknownReason::missing_counter;
  undecided.pause_duration_us = 10'000;
  undecided.pause_frames = 60;
  undecided.interval = milliseconds(10);
  for (int poll = 1; poll <= 5; ++poll) {
    undecided.at = script.poller.now() + poll * milliseconds(10);
    EXPECT_TRUE(script.detector.feed(undecided).empty()) << poll;
  }
  // The priority's pause duration no longer listed: PFC is off on it; the MAC sees no pause and
  // packets cross the other way: a relieved poll.
  StormEvidence pfc_off = undecided;
  pfc_off.pause_duration_us.reset();
  pfc_off.port_pause_frames = 0;
  pfc_off.opposite_packets = 100;
  for (int poll = 6; poll <= 8; ++poll) {
    pfc_off.at = script.poller.now() + poll * milliseconds(10);
    const auto events = script.detector.feed(pfc_off);
    ASSERT_EQ(events.size(), poll == 8 ? 1u : 0u) << poll;
    if (poll == 8) {
      EXPECT_EQ(std::get<RemediationVerified>(events[0]).polls, 3);
    }
  }
}

TEST(StormDetector, ActionOutsideAStormIsRefused) {
  Script script;
  EXPECT_FALSE(script.detector.on_action(script.poller.now()));
  script.run(n(4, 'S'));
  EXPECT_FALSE(script.detector.on_action(script.poller.now()));
  // Nothing to verify: the storm is detected and reported like any other.
  EXPECT_EQ(script.run(n(10, 'S')), std::vector<std::string>{"1:detected"});
}

TEST(StormDetector, RecurrenceDoublesTheNextRestorationTime) {
  Script script;
  ASSERT_EQ(script.run(n(5, 'S') + n(10, 'Q')),
            (std::vector<std::string>{"5:detected", "15:restored"}));
  // Back 50 ms after the restoration (within 2 x 100 ms): restoration now needs 200 ms.
  ASSERT_EQ(script.run(n(5, 'S') + n(19, 'Q') + "Q"),
            (std::vector<std::string>{"5:detected", "25:restored"}));
  auto detected = std::get<StormDetected>(script.all.at(2));
  EXPECT_TRUE(detected.recurrence);
  EXPECT_EQ(detected.restoration_time, milliseconds(200));
  EXPECT_EQ(std::get<StormRestored>(script.all.at(3)).restoration_time, milliseconds(200));
  // Away for 500 ms (> 2 x 200 ms): the next storm starts from the configured 100 ms again.
  ASSERT_EQ(script.run(n(50, 'Q') + n(5, 'S') + n(10, 'Q')),
            (std::vector<std::string>{"55:detected", "65:restored"}));
  detected = std::get<StormDetected>(script.all.at(4));
  EXPECT_FALSE(detected.recurrence);
  EXPECT_EQ(detected.restoration_time, milliseconds(100));
}

// A reload's new settings: the storm being handled keeps the restoration time it was given at
// detection; the next storm is detected and restored with the new ones.
TEST(StormDetector, ReconfiguredSettingsApplyFromTheNextStorm) {
  Script script;
  EXPECT_EQ(script.run(n(5, 'S')), (std::vector<std::string>{"5:detected"}));
  DetectorSettings longer = test_settings();
  longer.detection_time = milliseconds(80);
  longer.restoration_time = milliseconds(300);
  script.detector.reconfigure(longer);
  // Still 100 ms of quiet for this one (10 polls), not 300.
  EXPECT_EQ(script.run(n(10, 'Q')), (std::vector<std::string>{"10:restored"}));
  EXPECT_EQ(std::get<StormRestored>(script.all.back()).restoration_time, milliseconds(100));
  // Well after it (no recurrence): 80 ms to detect, 300 ms to restore.
  EXPECT_TRUE(script.run(n(100, 'Q')).empty());
  EXPECT_EQ(script.run(n(8, 'S') + n(30, 'Q')),
            (std::vector<std::string>{"8:detected", "38:restored"}));
  EXPECT_EQ(std::get<StormRestored>(script.all.back()).restoration_time, milliseconds(300));
}

TEST(StormDetector, SettingsComeFromTheWatchdogSettings) {
  WatchdogSettings watchdog;
  watchdog.detection_time = milliseconds(70);
  watchdog.restoration_time = milliseconds(900);
  watchdog.verify_polls = 5;
  const DetectorSettings detector = detector_settings(watchdog);
  EXPECT_EQ(detector.detection_time, milliseconds(70));
  EXPECT_EQ(detector.restoration_time, milliseconds(900));
  EXPECT_EQ(detector.verify_polls, 5);
  EXPECT_EQ(detector.restoration_cap, std::chrono::seconds(60));
}

}  // namespace
}  // namespace roced::watchdog
