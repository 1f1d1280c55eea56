// SPDX-License-Identifier: Apache-2.0
// The traffic engine: counters follow rate x time, and storms and congestion leave the signatures
// a PFC watchdog reads (watchdog/storm_signal.hpp).
#include "sim/model/traffic.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/model/node_file.hpp"

namespace roce_sim {
namespace {

using namespace std::chrono_literals;

void enable_pfc(Port& port, uint8_t mask) {
  ieee_pfc pfc{};
  ASSERT_EQ(port.ieee_getpfc(pfc), 0);
  pfc.pfc_en = mask;
  ASSERT_EQ(port.ieee_setpfc(pfc), 0);
  // A changed mask toggles the link: these tests start once it has trained again.
  port.advance(std::chrono::milliseconds(port.link_training_ms()));
  ASSERT_TRUE(port.carrier());
}

class Traffic : public ::testing::Test {
 protected:
  Node node{default_node()};
  TrafficEngine engine{node};
  Port& lan2 = *node.find("lan2");
  PriorityCounters& p3 = lan2.counters().prio[3];
};

TEST_F(Traffic, CountersAreRateTimesTimeWhateverTheSteps) {
  engine.add_flow({"lan2", 3, Direction::Tx, 80'000'000'000, 4096});
  engine.add_flow({"lan2", 3, Direction::Rx, 25'000'000'000, 1500});
  // 10 s in uneven steps: 333 us steps and a remainder.
  int64_t elapsed = 0;
  while (elapsed + 333 <= 10'000'000) {
    engine.advance(std::chrono::microseconds{333});
    elapsed += 333;
  }
  engine.advance(std::chrono::microseconds{10'000'000 - elapsed});
  EXPECT_EQ(p3.tx_bytes, 100'000'000'000u);  // 80 Gbit/s * 10 s / 8
  EXPECT_EQ(p3.tx_packets, 100'000'000'000u / 4096);
  EXPECT_EQ(p3.rx_bytes, 31'250'000'000u);
  EXPECT_EQ(p3.rx_packets, 31'250'000'000u / 1500);
  EXPECT_EQ(lan2.counters().tx_bytes, p3.tx_bytes);
  EXPECT_EQ(lan2.counters().rx_packets, p3.rx_packets);
  EXPECT_EQ(lan2.counters().prio[0].tx_bytes, 0u);
  EXPECT_EQ(node.find("lan3")->counters().tx_bytes, 0u);
  EXPECT_EQ(p3.rx_pause_duration_us, 0u);
}

TEST_F(Traffic, NoTrafficWithoutCarrier) {
  engine.add_flow({"lan2", 3, Direction::Tx, 8'000'000'000, 1000});
  lan2.set_peer_carrier(false);
  engine.advance(1s);
  EXPECT_EQ(p3.tx_bytes, 0u);
  lan2.set_peer_carrier(true);
  engine.advance(1s);
  EXPECT_EQ(p3.tx_bytes, 1'000'000'000u);
}

TEST_F(Traffic, PauseRefreshInterval) {
  EXPECT_EQ(TrafficEngine::pause_refresh_interval_ns(400000), 41942u);   // 41.9 us
  EXPECT_EQ(TrafficEngine::pause_refresh_interval_ns(100000), 167769u);  // 167.8 us
  EXPECT_EQ(TrafficEngine::stall_warning_ms(100), 85u);
  EXPECT_EQ(TrafficEngine::stall_warning_ms(8000), 6800u);
  EXPECT_EQ(TrafficEngine::stall_warning_ms(80), 80u);
  EXPECT_EQ(TrafficEngine::stall_timeout_ms(0xffff), 100u);
}

TEST_F(Traffic, RxStormWithPfcStopsTransmissionAndAccruesPause) {
  enable_pfc(lan2, 1 << 3);
  engine.add_flow({"lan2", 3, Direction::Tx, 100'000'000'000, 4096});
  engine.advance(1s);
  const uint64_t tx_before = p3.tx_packets;
  EXPECT_GT(tx_before, 0u);

  engine.start_storm("lan2", 3, Direction::Rx);
  const uint64_t duration_before = p3.rx_pause_duration_us;
  for (int i = 0; i < 10; ++i) engine.advance(100ms);  // a watchdog's 100 ms polls
  const uint64_t paused_us = p3.rx_pause_duration_us - duration_before;
  EXPECT_GE(paused_us, 990'000u);  // >= 99 % of the 1 s interval
  EXPECT_LE(paused_us, 1'000'000u);
  EXPECT_EQ(p3.tx_packets, tx_before);              // nothing leaves on priority 3
  EXPECT_EQ(p3.rx_pause, 1'000'000'000u / 41942u);  // one frame per refresh interval
  ieee_pfc pfc{};
  lan2.update_stats();
  lan2.ieee_getpfc(pfc);
  EXPECT_EQ(pfc.indications[3], p3.rx_pause);  // ieee_getpfc reports what we counted
  EXPECT_EQ(p3.rx_pause_transition, 0u);       // never un-paused during the storm

  engine.stop_storm("lan2", 3, Direction::Rx);
  engine.advance(1s);
  EXPECT_EQ(p3.rx_pause_transition, 1u);
  EXPECT_EQ(p3.tx_packets, 2 * 12'500'000'000u / 4096);  // 2 s of sending in all
}

TEST_F(Traffic, RxStormWithPfcOffIsIgnored) {
  enable_pfc(lan2, 1 << 4);  // not on 3: roced's remediation cleared it
  engine.add_flow({"lan2", 3, Direction::Tx, 100'000'000'000, 4096});
  engine.start_storm("lan2", 3, Direction::Rx);
  engine.advance(1s);
  EXPECT_EQ(p3.tx_bytes, 12'500'000'000u);           // full rate
  EXPECT_EQ(p3.rx_pause_duration_us, 0u);            // never paused
  EXPECT_GT(lan2.counters().rx_pause_ctrl_phy, 0u);  // the MAC still sees the frames
  // and so does the priority's frame counter, which ethtool no longer lists (getpfc does).
  EXPECT_EQ(p3.rx_pause, lan2.counters().rx_pause_ctrl_phy);
  EXPECT_EQ(lan2.counters().prio[4].rx_pause, 0u);
}

TEST(TrafficWithoutPfcCounts, AMacThatCountsOnlyWhatItHonoursLeavesThePriorityAtZero) {
  auto specs = default_node();
  for (auto& spec : specs) spec.caps.pause_counted_without_pfc = false;
  Node node{specs};
  TrafficEngine engine{node};
  Port& lan2 = *node.find("lan2");
  enable_pfc(lan2, 1 << 4);
  engine.start_storm("lan2", 3, Direction::Rx);
  engine.advance(1s);
  EXPECT_EQ(lan2.counters().prio[3].rx_pause, 0u);
  EXPECT_GT(lan2.counters().rx_pause_ctrl_phy, 0u);
}

TEST_F(Traffic, TxStormStopsReceptionAndStallPreventionEndsIt) {
  enable_pfc(lan2, 1 << 3);
  ASSERT_EQ(lan2.set_pfc_prevention_tout(0xffff), 0);  // auto: 100 ms
  engine.add_flow({"lan2", 3, Direction::Rx, 100'000'000'000, 4096});
  engine.start_storm("lan2", 3, Direction::Tx);

  engine.advance(50ms);
  EXPECT_EQ(p3.tx_pause_duration_us, 50'000u);  // 100 % of the time
  EXPECT_GT(p3.tx_pause, 0u);
  EXPECT_EQ(p3.rx_packets, 0u);  // the switch holds everything back
  EXPECT_EQ(lan2.counters().tx_pause_storm_warning_events, 0u);
  EXPECT_EQ(lan2.counters().tx_pause_storm_error_events, 0u);

  engine.advance(40ms);  // t = 90 ms, past the 85 ms warning watermark
  EXPECT_EQ(lan2.counters().tx_pause_storm_warning_events, 1u);
  EXPECT_EQ(lan2.counters().tx_pause_storm_error_events, 0u);

  engine.advance(910ms);  // t = 1 s
  EXPECT_EQ(lan2.counters().tx_pause_storm_error_events, 1u);
  EXPECT_EQ(lan2.counters().tx_pause_storm_warning_events, 1u);
  EXPECT_EQ(p3.tx_pause_duration_us, 100'000u);  // pausing stopped at the timeout
  const uint64_t frames = p3.tx_pause;
  // The remaining 900 ms of arrivals went into a stuck pipeline and were dropped.
  EXPECT_EQ(p3.rx_packets, 100'000'000'000u / 8 * 9 / 10 / 4096);
  EXPECT_EQ(p3.rx_discards, p3.rx_packets);
  EXPECT_EQ(lan2.counters().rx_discards_phy, p3.rx_packets);
  EXPECT_FALSE(engine.take_notes().empty());

  engine.advance(1s);
  EXPECT_EQ(p3.tx_pause_duration_us, 100'000u);  // stays stopped
  EXPECT_EQ(p3.tx_pause, frames);
  EXPECT_EQ(lan2.counters().tx_pause_storm_error_events, 1u);
}

TEST_F(Traffic, TxStormWithoutStallPreventionPausesForever) {
  enable_pfc(lan2, 1 << 3);
  ASSERT_EQ(lan2.set_pfc_prevention_tout(0), 0);
  engine.add_flow({"lan2", 3, Direction::Rx, 100'000'000'000, 4096});
  engine.start_storm("lan2", 3, Direction::Tx);
  engine.advance(10s);
  EXPECT_EQ(p3.tx_pause_duration_us, 10'000'000u);
  EXPECT_EQ(p3.rx_packets, 0u);
  EXPECT_EQ(lan2.counters().tx_pause_storm_error_events, 0u);
}

TEST_F(Traffic, CongestionMarksPausesAndSlowsButProgresses) {
  enable_pfc(lan2, 1 << 3);
  engine.add_flow({"lan2", 3, Direction::Tx, 100'000'000'000, 4096});
  engine.add_flow({"lan2", 3, Direction::Rx, 100'000'000'000, 4096});
  engine.start_congestion("lan2", 3, {0.1, 5000, 0.25});
  engine.advance(2s);

  // Paused a quarter of the time: three quarters of the offered bytes left.
  EXPECT_EQ(p3.tx_bytes, 25'000'000'000u * 3 / 4);
  EXPECT_EQ(p3.rx_pause_duration_us, 500'000u);
  EXPECT_EQ(p3.rx_pause_transition, 500'000'000u / TrafficEngine::kCongestionPauseEpisodeNs);
  EXPECT_EQ(p3.rx_pause, 2 * p3.rx_pause_transition);

  const auto& hw = lan2.rdma().hw_counters();
  const uint64_t rx_packets = 25'000'000'000u / 4096;
  EXPECT_EQ(p3.rx_packets, rx_packets);
  EXPECT_EQ(hw.at("np_ecn_marked_roce_packets").value, rx_packets / 10);
  EXPECT_EQ(hw.at("np_cnp_sent").value, 10'000u);     // 5000/s, fewer than the marks
  EXPECT_EQ(hw.at("rp_cnp_handled").value, 10'000u);  // reaction point enabled by default
  EXPECT_EQ(hw.at("rp_cnp_ignored").value, 0u);

  ASSERT_EQ(lan2.set_ecn_enabled(true, 3, false), 0);  // reaction point off on 3
  engine.advance(1s);
  EXPECT_EQ(hw.at("rp_cnp_handled").value, 10'000u);
  EXPECT_EQ(hw.at("rp_cnp_ignored").value, 5'000u);

  engine.stop_congestion("lan2", 3);
  const uint64_t marked = hw.at("np_ecn_marked_roce_packets").value;
  const uint64_t paused = p3.rx_pause_duration_us;
  engine.advance(1s);
  EXPECT_EQ(hw.at("np_ecn_marked_roce_packets").value, marked);
  EXPECT_EQ(p3.rx_pause_duration_us, paused);
}

// ---- ignores_remediation: firmware that takes roced's writes and does not act on them

bool listed(const Port& port, const std::string& name) {
  const auto names = port.stat_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST_F(Traffic, RxStormIgnoringRemediationKeepsTransmissionStoppedWithPfcOff) {
  enable_pfc(lan2, 1 << 3);
  engine.add_flow({"lan2", 3, Direction::Tx, 100'000'000'000, 4096});
  engine.start_storm("lan2", 3, Direction::Rx, /*ignores_remediation=*/true);
  engine.advance(1s);
  EXPECT_EQ(p3.tx_packets, 0u);
  EXPECT_EQ(p3.rx_pause_duration_us, 1'000'000u);
  const uint64_t frames_per_second = 1'000'000'000u / 41942u;
  EXPECT_EQ(lan2.counters().rx_pause_ctrl_phy, frames_per_second);

  enable_pfc(lan2, 0);  // roced's remediation
  engine.advance(1s);
  EXPECT_EQ(p3.tx_packets, 0u);  // still paused: the firmware honours the frames anyway
  EXPECT_EQ(p3.tx_bytes, 0u);
  EXPECT_EQ(lan2.counters().tx_packets, 0u);
  EXPECT_EQ(lan2.counters().rx_pause_ctrl_phy, 2'000'000'000u / 41942u);  // the MAC counts on
  // The per-priority pause counters are not listed with PFC off, but count what the NIC does.
  EXPECT_FALSE(listed(lan2, "rx_prio3_pause_duration"));
  EXPECT_FALSE(listed(lan2, "rx_prio3_pause"));
  EXPECT_EQ(p3.rx_pause_duration_us, 2'000'000u);
  EXPECT_EQ(p3.rx_pause, lan2.counters().rx_pause_ctrl_phy);
  EXPECT_EQ(p3.rx_pause_transition, 0u);  // the pause never lifted

  enable_pfc(lan2, 1 << 3);  // back on: listed again, with the hidden time included
  EXPECT_TRUE(listed(lan2, "rx_prio3_pause_duration"));
  engine.stop_storm("lan2", 3, Direction::Rx);
  engine.advance(1s);
  EXPECT_EQ(p3.rx_pause_duration_us, 2'000'000u);
  EXPECT_EQ(p3.rx_pause_transition, 1u);
  EXPECT_EQ(p3.tx_bytes, 12'500'000'000u);  // sending again once the storm ends
}

TEST_F(Traffic, RxStormWithoutTheKeyEndsWhenPfcGoesOff) {
  enable_pfc(lan2, 1 << 3);
  engine.add_flow({"lan2", 3, Direction::Tx, 100'000'000'000, 4096});
  engine.start_storm("lan2", 3, Direction::Rx);
  engine.advance(1s);
  EXPECT_EQ(p3.tx_packets, 0u);
  enable_pfc(lan2, 0);
  engine.advance(1s);
  EXPECT_EQ(p3.tx_bytes, 12'500'000'000u);  // the remediation works: full rate
  EXPECT_EQ(p3.rx_pause_duration_us, 1'000'000u);
  EXPECT_EQ(p3.rx_pause_transition, 1u);
  EXPECT_EQ(lan2.counters().rx_pause_ctrl_phy, 2'000'000'000u / 41942u);
}

TEST_F(Traffic, RxStormIgnoringRemediationIsHonouredWhenPfcWasNeverOn) {
  engine.add_flow({"lan2", 3, Direction::Tx, 100'000'000'000, 4096});
  engine.start_storm("lan2", 3, Direction::Rx, true);
  engine.advance(500ms);
  EXPECT_EQ(p3.tx_packets, 0u);
  EXPECT_EQ(p3.rx_pause_duration_us, 500'000u);
  EXPECT_FALSE(listed(lan2, "rx_prio3_pause_duration"));
}

TEST_F(Traffic, TxStormIgnoringRemediationPausesPastStallPreventionAndWithPfcOff) {
  enable_pfc(lan2, 1 << 3);
  engine.add_flow({"lan2", 3, Direction::Rx, 100'000'000'000, 4096});
  engine.start_storm("lan2", 3, Direction::Tx, /*ignores_remediation=*/true);
  engine.advance(1s);
  EXPECT_EQ(p3.tx_pause_duration_us, 1'000'000u);

  ASSERT_EQ(lan2.set_pfc_prevention_tout(0xffff), 0);  // tightened to 100 ms: ignored
  engine.advance(1s);
  EXPECT_EQ(p3.tx_pause_duration_us, 2'000'000u);  // the whole interval
  EXPECT_EQ(lan2.counters().tx_pause_storm_warning_events, 0u);
  EXPECT_EQ(lan2.counters().tx_pause_storm_error_events, 0u);
  EXPECT_TRUE(engine.take_notes().empty());
  EXPECT_EQ(p3.rx_packets, 0u);
  EXPECT_EQ(p3.rx_discards, 0u);

  enable_pfc(lan2, 0);  // PFC off: the NIC keeps pausing the peer
  engine.advance(1s);
  EXPECT_FALSE(listed(lan2, "tx_prio3_pause_duration"));
  EXPECT_EQ(p3.tx_pause_duration_us, 3'000'000u);
  EXPECT_EQ(lan2.counters().tx_pause_ctrl_phy, 3'000'000'000u / 41942u);
  EXPECT_EQ(p3.tx_pause, lan2.counters().tx_pause_ctrl_phy);
  EXPECT_EQ(p3.rx_packets, 0u);
  // Every second of it stalled the NIC's PCIe writes: the firmware's figure for the last second
  // is 100 %, and each second above 30 % is an event.
  EXPECT_EQ(lan2.counters().outbound_pci_stalled_wr, 100u);
  EXPECT_EQ(lan2.counters().outbound_pci_stalled_wr_events, 3u);
}

// The stall share is the firmware's figure for the last second: once the link is down nothing
// moves and nothing stalls, so it falls to 0 within a second.
TEST_F(Traffic, ThePcieStallShareFallsToZeroOnceTheLinkIsDown) {
  enable_pfc(lan2, 1 << 3);
  engine.add_flow({"lan2", 3, Direction::Rx, 100'000'000'000, 4096});
  engine.start_storm("lan2", 3, Direction::Tx, /*ignores_remediation=*/true);
  engine.advance(2s);
  EXPECT_EQ(lan2.counters().outbound_pci_stalled_wr, 100u);
  lan2.set_peer_carrier(false);
  ASSERT_FALSE(lan2.carrier());
  engine.advance(2s);
  EXPECT_EQ(lan2.counters().outbound_pci_stalled_wr, 0u);
  EXPECT_EQ(lan2.counters().outbound_pci_stalled_wr_events, 2u);
}

TEST_F(Traffic, TxStormWithoutTheKeyStopsWhenStallPreventionIsTightened) {
  enable_pfc(lan2, 1 << 3);
  engine.add_flow({"lan2", 3, Direction::Rx, 100'000'000'000, 4096});
  engine.start_storm("lan2", 3, Direction::Tx);
  engine.advance(1s);
  ASSERT_EQ(lan2.set_pfc_prevention_tout(0xffff), 0);
  engine.advance(1s);
  // Already paused for longer than 100 ms: stall prevention fires in the next step.
  EXPECT_EQ(p3.tx_pause_duration_us, 1'000'000u);
  EXPECT_EQ(lan2.counters().tx_pause_storm_error_events, 1u);
  EXPECT_EQ(p3.rx_packets, 12'500'000'000u / 4096);  // arriving again, dropped
  EXPECT_EQ(p3.rx_discards, p3.rx_packets);
}

// ---- counters_start: the ethtool view starts near 2^64 and wraps

uint64_t stat(const Port& port, const std::string& name) {
  for (const auto& [stat_name, value] : port.stats()) {
    if (stat_name == name) return value;
  }
  ADD_FAILURE() << "no statistic " << name;
  return 0;
}

TEST(TrafficCountersStart, EthtoolValuesWrapAndRestartFromCountersStartAfterAReload) {
  auto specs = default_node();
  constexpr uint64_t kStart = 18'446'744'072'709'551'616u;  // 2^64 - 1e9
  specs[0].counters_start = kStart;
  Node node(std::move(specs));
  TrafficEngine engine(node);
  engine.add_flow({"lan2", 3, Direction::Tx, 100'000'000'000, 4096});  // 12.5e9 bytes/s
  Port* lan2 = node.find("lan2");
  EXPECT_EQ(stat(*lan2, "tx_prio3_bytes"), kStart);
  EXPECT_EQ(stat(*lan2, "rx_prio0_bytes"), kStart);

  engine.advance(40ms);  // 5e8 bytes: not wrapped yet
  const uint64_t early = stat(*lan2, "tx_prio3_bytes");
  EXPECT_EQ(early, kStart + 500'000'000u);
  engine.advance(80ms);  // 1.5e9 bytes in all: past 2^64
  const uint64_t late = stat(*lan2, "tx_prio3_bytes");
  EXPECT_EQ(late, 500'000'000u);
  EXPECT_LT(late, early);
  EXPECT_EQ(stat(*lan2, "tx_bytes_phy"), 500'000'000u);
  EXPECT_EQ(stat(*lan2, "tx_prio3_packets"), kStart + 1'500'000'000u / 4096);
  EXPECT_EQ(lan2->counters().prio[3].tx_bytes, 1'500'000'000u);  // the model's own value
  EXPECT_EQ(stat(*node.find("lan3"), "tx_prio3_bytes"), 0u);     // only lan2 has the key

  node.unbind("lan2");
  node.rebind("lan2");
  lan2 = node.find("lan2");
  ASSERT_NE(lan2, nullptr);
  EXPECT_EQ(stat(*lan2, "tx_prio3_bytes"), kStart);
  engine.advance(40ms);
  EXPECT_EQ(stat(*lan2, "tx_prio3_bytes"), kStart + 500'000'000u);
}

}  // namespace
}  // namespace roce_sim
