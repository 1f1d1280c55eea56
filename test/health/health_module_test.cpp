// SPDX-License-Identifier: Apache-2.0
// The health module on roce-sim's node in this process: each managed uplink's PCIe link read from
// the node's sysfs, a retrain below the NIC's capability found (and cleared by a retrain back), an
// unreadable attribute said as such, the PHY's symbol errors judged over time, and the metric
// families a scrape serves.
#include "daemon/health/health_module.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "in_process_node.hpp"
#include "sim/model/scenario.hpp"
#include "telemetry/exposition.hpp"
#include "test/support/build_paths.hpp"

namespace roced::health {
namespace {

// PFC on priority 3, as the shipped configuration has it.
const std::vector<PciPort> kUplinks = {{"lan2", "0000:17:00.0", 0, false, "mlx5_0", 1, 0x08},
                                       {"lan3", "0000:3d:00.0", 0, false, "mlx5_1", 1, 0x08}};

class Health : public test::InProcessNode {
 protected:
  void SetUp() override {
    InProcessNode::SetUp();
    stats_ = std::make_unique<sampling::StatsPoller>(system_, time_);
    module_ = std::make_unique<HealthModule>(
        system_, [] { return kUplinks; }, *stats_, time_);
  }
  void TearDown() override {
    module_.reset();
    stats_.reset();
    InProcessNode::TearDown();
  }
  void play(const std::string& events) {
    node_->play(roce_sim::parse_scenario_yaml("name: t\nevents:\n" + events, "t.yaml"));
  }
  std::string scrape() {
    telemetry::ExpositionWriter out;
    module_->collect(out);
    return out.take();
  }
  std::vector<std::string> finding_ports() {
    std::vector<std::string> ports;
    for (const auto& found : module_->findings()) ports.push_back(found.subject);
    return ports;
  }

  static std::vector<std::string> finding_ids(const std::vector<finding::Finding>& findings) {
    std::vector<std::string> ids;
    for (const auto& found : findings) ids.push_back(found.subject + " " + found.id);
    return ids;
  }
  std::vector<std::string> finding_ids() { return finding_ids(module_->findings()); }
  // One reading, then the clock moved by `step` (the scenario plays along) and another.
  void check_across(std::chrono::milliseconds step) {
    module_->check();
    time_.advance(step);
    module_->check();
  }

  std::unique_ptr<sampling::StatsPoller> stats_;
  std::unique_ptr<HealthModule> module_;
};

TEST_F(Health, AFreshNodeIsAsBuilt) {
  module_->check();
  EXPECT_TRUE(module_->findings().empty());
  const std::string text = scrape();
  EXPECT_NE(text.find("roce_pcie_link_width{netdev=\"lan2\",pci=\"0000:17:00.0\"} 16"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("roce_pcie_link_speed_transfers_per_second{netdev=\"lan3\",pci=\"0000:3d:"
                      "00.0\"} 32000000000"),
            std::string::npos)
      << text;
}

// No false alarm at the default thresholds: an hour of readings of a healthy node (steady RoCE on
// the lossless priority, every optic as built) raises nothing.
TEST_F(Health, AHealthyNodeRaisesNothingOverAnHour) {
  node_->play(
      roce_sim::parse_scenario_yaml("name: t\ntraffic:\n"
                                    "  - {port: lan2, priority: 3, direction: tx, rate: 50G}\n"
                                    "  - {port: lan3, priority: 3, direction: tx, rate: 20G}\n",
                                    "t.yaml"));
  int readings = 0;
  for (auto t = std::chrono::milliseconds(0); t <= std::chrono::hours(1);
       t += HealthSettings{}.interval) {
    module_->check();
    ++readings;
    ASSERT_TRUE(module_->findings().empty())
        << "at " << t.count() << " ms: " << testing::PrintToString(finding_ids());
    time_.advance(HealthSettings{}.interval);
  }
  EXPECT_EQ(readings, 361);
  const std::string text = scrape();
  EXPECT_NE(
      text.find("roce_transceiver_readings_beyond_threshold{netdev=\"lan2\",level=\"warning\"} 0"),
      std::string::npos)
      << text;
}

TEST_F(Health, ALinkRetrainedAtEightLanesIsFoundAndClearsWhenItTrainsBack) {
  play("  - {at: 0s, kind: pcie_retrain, port: lan3, width: 8}\n");
  module_->check();
  ASSERT_EQ(finding_ports(), std::vector<std::string>{"lan3"});
  const auto found = module_->findings().front();
  EXPECT_EQ(found.id, "pcie_link_degraded");
  EXPECT_EQ(found.found, "32.0 GT/s x8");
  EXPECT_EQ(found.wanted, "32.0 GT/s x16");
  const std::string text = scrape();
  EXPECT_NE(text.find("roced_finding{netdev=\"lan3\",id=\"pcie_link_degraded\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("roce_pcie_link_width{netdev=\"lan3\",pci=\"0000:3d:00.0\"} 8"),
            std::string::npos)
      << text;

  play("  - {at: 0s, kind: pcie_retrain, port: lan3}\n");
  module_->check();
  EXPECT_TRUE(module_->findings().empty());
}

// Training never settles above what the endpoint takes: the node refuses such a retrain.
TEST_F(Health, ARetrainAboveTheNicIsSkippedByTheNode) {
  play("  - {at: 0s, kind: pcie_retrain, port: lan2, speed: 64.0}\n");
  module_->check();
  EXPECT_TRUE(module_->findings().empty());
  const auto log = node_->scenario_log();
  EXPECT_TRUE(std::any_of(log.begin(), log.end(), [](const std::string& line) {
    return line.find("is more than the NIC takes") != std::string::npos;
  })) << testing::PrintToString(log);
}

TEST_F(Health, ALowerGenerationIsFound) {
  play("  - {at: 0s, kind: pcie_retrain, port: lan2, speed: 16.0}\n");
  module_->check();
  ASSERT_EQ(finding_ports(), std::vector<std::string>{"lan2"});
  EXPECT_EQ(module_->findings().front().found, "16.0 GT/s x16");
}

// A missing attribute (a function without a PCIe capability: pci_dev_attrs_are_visible) or one
// the kernel cannot read says so, and the scrape serves what was read, no guess.
TEST_F(Health, AMissingAttributeCannotTellAndServesNoGuess) {
  std::filesystem::remove(node_->dir() / "sys/devices/pci0000:00/0000:17:00.0/current_link_width");
  module_->check();
  ASSERT_EQ(finding_ports(), std::vector<std::string>{"lan2"});
  const auto found = module_->findings().front();
  EXPECT_EQ(found.verdict, finding::Verdict::CannotTell);
  EXPECT_NE(found.text.find("current_link_width"), std::string::npos) << found.text;
  const std::string text = scrape();
  EXPECT_EQ(text.find("roce_pcie_link_width{netdev=\"lan2\""), std::string::npos) << text;
  EXPECT_NE(text.find("roce_pcie_link_max_width{netdev=\"lan2\""), std::string::npos) << text;
}

// A function with none of the four is not PCIe: nothing to judge, nothing served.
TEST_F(Health, AFunctionWithoutAPcieLinkHasNoFinding) {
  for (const char* name :
       {"current_link_speed", "current_link_width", "max_link_speed", "max_link_width"}) {
    std::filesystem::remove(node_->dir() / "sys/devices/pci0000:00/0000:17:00.0" / name);
  }
  module_->check();
  EXPECT_TRUE(module_->findings().empty());
  const std::string text = scrape();
  for (const char* family : {"roce_pcie_link_width", "roce_pcie_link_max_width",
                             "roce_pcie_link_speed_transfers_per_second",
                             "roce_pcie_link_max_speed_transfers_per_second"}) {
    EXPECT_EQ(text.find(std::string(family) + "{netdev=\"lan2\""), std::string::npos) << text;
  }
  EXPECT_NE(text.find("roce_pcie_link_width{netdev=\"lan3\""), std::string::npos) << text;
}

// Every kInterval on the injected clock, once started: a retrain after the first reading is
// found by the next one, not before.
TEST_F(Health, TheTaskReadsAgainEveryInterval) {
  module_->start();
  // The first reading served (the task's requests wait on the clock too, so a wait alone does
  // not say the reading is done); the task then waits out its interval.
  ASSERT_TRUE(time_.advance_until([&] { return !scrape().empty(); }, std::chrono::milliseconds(1)));
  play("  - {at: 1s, kind: pcie_retrain, port: lan2, width: 4}\n");
  time_.advance(HealthSettings{}.interval - std::chrono::seconds(1));
  EXPECT_TRUE(module_->findings().empty());  // retrained, not read again yet
  ASSERT_TRUE(time_.advance_until([&] { return !module_->findings().empty(); },
                                  std::chrono::milliseconds(100)));
  EXPECT_EQ(finding_ports(), std::vector<std::string>{"lan2"});
  module_->stop();
}

// One lane's bad fibre: its corrected bits show on its lane alone (rx_err_lane_<n>_phy).
TEST_F(Health, TheCorrectedBitsOfEachLaneAreServed) {
  play(
      "  - {at: 0s, kind: phy_errors, port: lan2, duration: 1h, corrected_bit_rate: 1000,"
      " lane: 2}\n");
  check_across(std::chrono::seconds(10));
  const std::string text = scrape();
  for (const char* line :
       {"roce_phy_lane_fec_corrected_errors_total{netdev=\"lan2\",lane=\"2\"} 10000",
        "roce_phy_lane_fec_corrected_errors_total{netdev=\"lan2\",lane=\"0\"} 0",
        "roce_phy_lane_fec_corrected_errors_total{netdev=\"lan3\",lane=\"2\"} 0"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

// The symbol error count is ethtool netlink's eth-phy SymbolErrorDuringCarrier (on mlx5 the 802.3
// group's, ethtool -S rx_symbol_err_phy) where the driver gives it, not the PCS group's.
TEST_F(Health, TheSymbolErrorCountIsTheKernelsStandardOne) {
  node_->change([](roce_sim::Node& node) {
    node.find("lan2")->counters().rx_symbol_err_phy = 500;
    node.find("lan2")->counters().rx_pcs_symbol_err_phy = 3;
  });
  module_->check();
  const std::string text = scrape();
  EXPECT_NE(text.find("roce_phy_symbol_errors_total{netdev=\"lan2\"} 500"), std::string::npos)
      << text;
}

// The window keeps to its counter: through two readings without the standard one (mlx5's PPCNT
// read failed) it serves nothing rather than the other counter, which counts differently; from
// the third it takes ethtool -S's, rebased, and no jump between the two reads as errors.
TEST_F(Health, ASymbolErrorWindowWaitsForItsCounterThenTakesTheOther) {
  node_->change([](roce_sim::Node& node) {
    node.find("lan2")->counters().rx_symbol_err_phy = 500;
    node.find("lan2")->counters().rx_pcs_symbol_err_phy = 3;
  });
  module_->check();
  ASSERT_NE(scrape().find("roce_phy_symbol_errors_total{netdev=\"lan2\"} 500"), std::string::npos);

  play("  - {at: 0s, kind: netlink_errors, port: lan2, errno: EIO, op: phy_stats, count: 2}\n");
  for (int missed = 1; missed <= 2; ++missed) {
    time_.advance(std::chrono::seconds(10));
    module_->check();
    const std::string text = scrape();
    EXPECT_EQ(text.find("roce_phy_symbol_errors_total{netdev=\"lan2\"}"), std::string::npos)
        << "reading " << missed << ":\n"
        << text;
  }
  node_->change(
      [](roce_sim::Node& node) { node.find("lan2")->counters().rx_symbol_err_phy = 520; });
  time_.advance(std::chrono::seconds(10));
  module_->check();
  EXPECT_NE(scrape().find("roce_phy_symbol_errors_total{netdev=\"lan2\"} 520"), std::string::npos);
  EXPECT_TRUE(finding_ids().empty()) << finding_ids().front();

  play("  - {at: 0s, kind: netlink_errors, port: lan2, errno: EIO, op: phy_stats, count: 100}\n");
  for (int missed = 1; missed <= 3; ++missed) {
    time_.advance(std::chrono::seconds(10));
    module_->check();
  }
  const std::string text = scrape();
  EXPECT_NE(text.find("roce_phy_symbol_errors_total{netdev=\"lan2\"} 3"), std::string::npos)
      << text;
  EXPECT_TRUE(finding_ids().empty()) << finding_ids().front();
}

// NVSentinel's thresholds: above 10 uncorrectable symbol errors a second is degraded; above 120
// within an hour is fatal. The counters are served as they read.
TEST_F(Health, ASymbolErrorRateAboveTenASecondIsDegradedAndAnHourAbove120Fatal) {
  play(
      "  - {at: 0s, kind: phy_errors, port: lan2, duration: 1h, symbol_error_rate: 20,"
      " corrected_bit_rate: 1e6}\n");
  check_across(std::chrono::seconds(5));  // 100 errors: the rate only
  EXPECT_EQ(finding_ids(), std::vector<std::string>{"lan2 phy_symbol_error_rate"});
  EXPECT_NE(module_->findings().front().text.find("20.0 uncorrectable"), std::string::npos);
  time_.advance(std::chrono::seconds(5));  // 200 since the first reading
  module_->check();
  EXPECT_EQ(finding_ids(), (std::vector<std::string>{"lan2 phy_symbol_error_rate",
                                                     "lan2 phy_symbol_errors_per_hour"}));
  const std::string text = scrape();
  EXPECT_NE(text.find("roce_phy_symbol_errors_total{netdev=\"lan2\"} 200"), std::string::npos)
      << text;
  EXPECT_NE(text.find("roce_phy_fec_corrected_errors_total{netdev=\"lan2\"} 10000000"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("roce_phy_symbol_errors_total{netdev=\"lan3\"} 0"), std::string::npos)
      << text;
  EXPECT_NE(text.find("roced_finding{netdev=\"lan2\",id=\"phy_symbol_errors_per_hour\""),
            std::string::npos)
      << text;
}

// The FEC through ethtool netlink: the mode, its codeword counters, and the pre-FEC bit error rate
// from the bits it corrected over the interval at the link's speed (400G on this node).
TEST_F(Health, TheFecCountersAndThePreFecBitErrorRateAreServed) {
  play(
      "  - {at: 0s, kind: phy_errors, port: lan2, duration: 1h, symbol_error_rate: 2,"
      " corrected_bit_rate: 4e5}\n");
  module_->check();
  EXPECT_EQ(scrape().find("roce_phy_pre_fec_ber"), std::string::npos);  // one reading: no rate
  time_.advance(std::chrono::seconds(10));
  module_->check();
  const std::string text = scrape();
  for (const char* line :
       {"roce_fec_active_mode{netdev=\"lan2\",mode=\"rs\"} 1",
        "roce_fec_corrected_blocks_total{netdev=\"lan2\"} 4000000",
        "roce_fec_uncorrectable_blocks_total{netdev=\"lan2\"} 20",
        "roce_phy_pre_fec_ber{netdev=\"lan2\"} 1e-06", "roce_phy_pre_fec_ber{netdev=\"lan3\"} 0",
        "roce_fec_uncorrectable_blocks_total{netdev=\"lan3\"} 0"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  EXPECT_EQ(text.find("roce_fec_lane_"), std::string::npos) << text;  // RS-FEC: totals only
}

// A port whose link is down answers no FEC (mlx5e_get_fecparam: EOPNOTSUPP) and has no speed: no
// mode, no counters and no error rate are served for it, rather than stale or zero ones.
TEST_F(Health, APortWithoutCarrierServesNoFecFigures) {
  check_across(std::chrono::seconds(10));
  ASSERT_NE(scrape().find("roce_phy_pre_fec_ber{netdev=\"lan3\"}"), std::string::npos);
  node_->change([](roce_sim::Node& node) { node.find("lan3")->set_peer_carrier(false); });
  time_.advance(std::chrono::seconds(10));
  module_->check();
  const std::string text = scrape();
  EXPECT_EQ(text.find("roce_fec_active_mode{netdev=\"lan3\""), std::string::npos) << text;
  EXPECT_EQ(text.find("roce_fec_corrected_blocks_total{netdev=\"lan3\"}"), std::string::npos);
  EXPECT_EQ(text.find("roce_phy_pre_fec_ber{netdev=\"lan3\"}"), std::string::npos) << text;
  EXPECT_NE(text.find("roce_fec_active_mode{netdev=\"lan2\",mode=\"rs\"} 1"), std::string::npos);
}

// The thresholds are the configuration's, taken by a reload from the next reading on.
TEST_F(Health, AReloadedThresholdJudgesTheNextReading) {
  play("  - {at: 0s, kind: phy_errors, port: lan2, duration: 1h, symbol_error_rate: 5}\n");
  check_across(std::chrono::seconds(10));  // 5 a second, 50 in all: within the defaults
  EXPECT_TRUE(module_->findings().empty()) << testing::PrintToString(finding_ids());
  HealthSettings stricter;
  stricter.symbol_errors_per_second = 2;
  stricter.symbol_errors_per_hour = 80;
  module_->reconfigure(stricter);
  time_.advance(std::chrono::seconds(10));  // 100 in all
  module_->check();
  EXPECT_EQ(finding_ids(), (std::vector<std::string>{"lan2 phy_symbol_error_rate",
                                                     "lan2 phy_symbol_errors_per_hour"}));
  EXPECT_EQ(module_->findings().front().found, "above 2/s");
  EXPECT_EQ(module_->findings().back().wanted, "at most 80 an hour");
}

// health.interval sets the task's period; health.enabled: false stops it and clears what it
// served, and turning it back on reads again at once. The task's readings wait on the node (a
// request's answer) as well as on their period, so the test waits for what it expects on the
// simulated clock, and measures when it came there.
TEST_F(Health, TheIntervalAndTheSwitchAreTheConfigurations) {
  HealthSettings settings;
  settings.interval = std::chrono::seconds(2);
  module_->reconfigure(settings);  // before start: taken by it
  module_->start();
  ASSERT_TRUE(time_.until_waiting(1));
  play("  - {at: 1s, kind: pcie_retrain, port: lan2, width: 4}\n");
  const auto lan2_found = [&] { return finding_ports() == std::vector<std::string>{"lan2"}; };
  auto began = time_.now();
  ASSERT_TRUE(time_.advance_until(lan2_found, std::chrono::milliseconds(100)));
  EXPECT_LE(time_.now() - began, std::chrono::milliseconds(2100)) << "read again after 2 s, not 10";

  settings.enabled = false;
  module_->reconfigure(settings);
  EXPECT_TRUE(module_->findings().empty());
  EXPECT_EQ(scrape(), "");
  time_.advance(std::chrono::seconds(20));
  EXPECT_TRUE(module_->findings().empty()) << "no task reads while off";

  settings.enabled = true;
  module_->reconfigure(settings);
  began = time_.now();
  ASSERT_TRUE(time_.advance_until(lan2_found, std::chrono::milliseconds(100)));
  EXPECT_LT(time_.now() - began, std::chrono::seconds(2)) << "the first reading is at once";
  module_->stop();
}

TEST_F(Health, APcieRecoveryWithinTheHourIsFoundAndTheStallShareServed) {
  const auto set = [&](const std::function<void(roce_sim::PortCounters&)>& change) {
    node_->change([&](roce_sim::Node& node) { change(node.find("lan3")->counters()); });
  };
  set([](roce_sim::PortCounters& c) {
    c.tx_pci_signal_integrity = 7;  // from before roced ran
    c.outbound_pci_stalled_wr = 45;
    c.outbound_pci_stalled_wr_events = 3;
  });
  check_across(std::chrono::seconds(10));
  EXPECT_TRUE(module_->findings().empty()) << testing::PrintToString(finding_ids());
  const std::string text = scrape();
  EXPECT_NE(text.find("roce_pcie_outbound_stalled_ratio{netdev=\"lan3\",direction=\"write\"} 0.45"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("roce_pcie_outbound_stalled_seconds_total{netdev=\"lan3\",direction=\"write\"} 3"),
      std::string::npos)
      << text;
  play("  - {at: 0s, kind: pcie_errors, port: lan3, duration: 10s, recovery_rate: 0.5}\n");
  set([](roce_sim::PortCounters& c) { c.tx_pci_signal_integrity += 1; });
  time_.advance(std::chrono::seconds(20));  // 5 recoveries from the event, 1 the other end began
  module_->check();
  ASSERT_EQ(finding_ids(), std::vector<std::string>{"lan3 pcie_signal_integrity_errors"});
  EXPECT_NE(module_->findings().front().text.find("6 PCIe link recoveries"), std::string::npos)
      << module_->findings().front().text;
  EXPECT_NE(
      scrape().find("roce_pcie_signal_integrity_errors_total{netdev=\"lan3\",direction=\"rx\"} 5"),
      std::string::npos);
  time_.advance(std::chrono::minutes(61));
  module_->check();
  EXPECT_TRUE(module_->findings().empty()) << testing::PrintToString(finding_ids());
}

// A slow trickle never reaches the rate but adds up within the hour; the hour forgets what is
// older than it.
TEST_F(Health, ATrickleBelowTheRateAddsUpWithinTheHourAndIsForgottenAfterIt) {
  play("  - {at: 0s, kind: phy_errors, port: lan3, duration: 2m, symbol_error_rate: 1.5}\n");
  module_->check();
  for (int i = 0; i < 9; ++i) {  // 90 s: 135 errors, never above 10 a second
    time_.advance(HealthSettings{}.interval);
    module_->check();
  }
  EXPECT_EQ(finding_ids(), std::vector<std::string>{"lan3 phy_symbol_errors_per_hour"});
  time_.advance(std::chrono::minutes(59));
  module_->check();
  EXPECT_EQ(finding_ids(), std::vector<std::string>{"lan3 phy_symbol_errors_per_hour"})
      << "the errors of 59 minutes ago still count";
  time_.advance(std::chrono::minutes(2));
  module_->check();
  EXPECT_TRUE(module_->findings().empty()) << testing::PrintToString(finding_ids());
}

// A link that is down counts nothing; a flap is a link-down event, not a symbol error.
TEST_F(Health, AFlapCountsALinkDownEventAndNoSymbolError) {
  play("  - {at: 1s, kind: link_flap, port: lan3, down_for: 2s}\n");
  check_across(std::chrono::seconds(10));
  EXPECT_TRUE(module_->findings().empty());
  const std::string text = scrape();
  EXPECT_NE(text.find("roce_link_down_events_total{netdev=\"lan3\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("roce_phy_symbol_errors_total{netdev=\"lan3\"} 0"), std::string::npos)
      << text;
}

// The hour's symbol errors survive a restart in the history file: a new module on the same file
// still finds them, and without the file it would begin afresh.
TEST_F(Health, TheHoursSymbolErrorsSurviveARestart) {
  const auto file = dir_ / "state" / "health.json";
  std::filesystem::create_directories(file.parent_path());
  auto first = std::make_unique<HealthModule>(
      system_, [] { return kUplinks; }, *stats_, time_, file);
  play("  - {at: 0s, kind: phy_errors, port: lan2, duration: 1m, symbol_error_rate: 5}\n");
  first->check();
  for (int i = 0; i < 3; ++i) {  // 150 errors in 30 s: never 10 a second, above 120 in the hour
    time_.advance(HealthSettings{}.interval);
    first->check();
  }
  ASSERT_EQ(finding_ids(first->findings()),
            std::vector<std::string>{"lan2 phy_symbol_errors_per_hour"});
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".new"));
  first.reset();

  time_.advance(std::chrono::minutes(5));  // roced restarts; the errors have ended
  HealthModule restarted(
      system_, [] { return kUplinks; }, *stats_, time_, file);
  restarted.check();
  EXPECT_EQ(finding_ids(restarted.findings()),
            std::vector<std::string>{"lan2 phy_symbol_errors_per_hour"});
  HealthModule forgetful(
      system_, [] { return kUplinks; }, *stats_, time_);
  forgetful.check();
  EXPECT_TRUE(forgetful.findings().empty());
  // An hour after them the file keeps none.
  time_.advance(std::chrono::hours(1));
  restarted.check();
  EXPECT_TRUE(restarted.findings().empty());
}

// RoCE sent on priority 0 (a job's traffic class that maps to DSCP 0) while priority 3 is the
// lossless one: found, naming the priority that carried it. The same traffic on priority 3, and
// a port that sends nothing, are not.
TEST_F(Health, RoceOnAPriorityWithoutPfcIsFoundAndOnTheLosslessOneIsNot) {
  node_->play(
      roce_sim::parse_scenario_yaml("name: t\ntraffic:\n"
                                    "  - {port: lan2, priority: 0, direction: tx, rate: 50G}\n"
                                    "  - {port: lan3, priority: 3, direction: tx, rate: 50G}\n",
                                    "t.yaml"));
  check_across(HealthSettings{}.interval);
  ASSERT_EQ(finding_ids(), std::vector<std::string>{"lan2 roce_on_lossy_priority"});
  const auto found = module_->findings().front();
  EXPECT_EQ(found.wanted, "priority 3");
  EXPECT_EQ(found.found, "priority 0");
  EXPECT_EQ(found.severity, finding::Severity::Critical);
  EXPECT_NE(found.text.find("RDMA sent 62.50 GB"), std::string::npos) << found.text;
}

// At a 2 s interval the statistics poller's reading may be older than the interval (it serves
// one up to 4 s old): the RDMA counter read now against it would be RoCE no priority had carried
// yet. Each sample pairs the two from the same moment, so RoCE on the lossless priority is
// never found elsewhere, however the readings fall.
TEST_F(Health, RoceOnTheLosslessPriorityIsNeverFoundAtAShortInterval) {
  HealthSettings settings;
  settings.interval = std::chrono::seconds(2);
  module_->reconfigure(settings);
  node_->play(
      roce_sim::parse_scenario_yaml("name: t\ntraffic:\n"
                                    "  - {port: lan3, priority: 3, direction: tx, rate: 50G}\n",
                                    "t.yaml"));
  for (int i = 0; i < 6; ++i) {
    module_->check();
    EXPECT_TRUE(module_->findings().empty()) << i << testing::PrintToString(finding_ids());
    time_.advance(std::chrono::seconds(2));
  }
}

// RoCE on a lossy priority at 0.6 Gbit/s reaches the 1 GB a judgment needs only every second
// reading: the verdict stands between judgments instead of coming and going with them.
TEST_F(Health, SlowRoceOnALossyPriorityStaysFoundBetweenJudgments) {
  node_->play(
      roce_sim::parse_scenario_yaml("name: t\ntraffic:\n"
                                    "  - {port: lan2, priority: 0, direction: tx, rate: 600M}\n",
                                    "t.yaml"));
  module_->check();
  int found = 0;
  for (int i = 0; i < 8; ++i) {
    time_.advance(HealthSettings{}.interval);
    module_->check();
    const bool now = finding_ids() == std::vector<std::string>{"lan2 roce_on_lossy_priority"};
    if (found > 0) {
      EXPECT_TRUE(now) << "reading " << i << ": the finding came and went";
    }
    found += now ? 1 : 0;
  }
  EXPECT_GE(found, 6);
}

// Health checks turned off and on again: what the counters did meanwhile is no step of the
// readings, while the hour's symbol errors counted before stay in the hour.
TEST_F(Health, ChecksTurnedOffAndOnCountNothingOfTheGapAndKeepTheHour) {
  play("  - {at: 0s, kind: phy_errors, port: lan2, duration: 10s, symbol_error_rate: 10}\n");
  check_across(std::chrono::seconds(10));  // 100: at the rate, within the hour
  EXPECT_TRUE(module_->findings().empty()) << testing::PrintToString(finding_ids());
  HealthSettings off;
  off.enabled = false;
  module_->reconfigure(off);
  play("  - {at: 0s, kind: phy_errors, port: lan2, duration: 10m, symbol_error_rate: 5}\n");
  time_.advance(std::chrono::minutes(5));  // 1500 more while nobody reads
  module_->reconfigure(HealthSettings{});
  module_->check();
  EXPECT_TRUE(module_->findings().empty()) << testing::PrintToString(finding_ids());
  time_.advance(std::chrono::seconds(10));  // 50 more: 150 within the hour
  module_->check();
  EXPECT_EQ(finding_ids(), std::vector<std::string>{"lan2 phy_symbol_errors_per_hour"});
}

TEST_F(Health, APortThatSendsNothingHasNoClassToJudge) {
  check_across(HealthSettings{}.interval);
  EXPECT_TRUE(module_->findings().empty());
}

// A lane whose receive power falls below the module's low alarm is an alarm on its port alone,
// read at most once a minute; the flag the module latched outlives the excursion by one reading.
TEST_F(Health, ADegradingOpticIsAnAlarmOnItsPortAndItsLatchOutlivesItByOneReading) {
  play(
      "  - {at: 0s, kind: optic_degrade, port: lan3, duration: 90s, lane: 2, rx_power_dbm: -14}\n"
      "  - {at: 10s, kind: optic_degrade, port: lan2, duration: 60s, lane: 1, rx_power_dbm: "
      "-15}\n");
  module_->check();
  ASSERT_EQ(finding_ids(), std::vector<std::string>{"lan3 transceiver_alarm"});
  EXPECT_NE(module_->findings().front().text.find("rx_power lane 2 -14.00 dBm"), std::string::npos)
      << module_->findings().front().text;
  const std::string text = scrape();
  for (const char* line :
       {"roce_transceiver_rx_power_watts{netdev=\"lan3\",lane=\"1\"} 0.00081\n",
        "roce_transceiver_temperature_celsius{netdev=\"lan2\"} 38.5",
        "roce_transceiver_readings_beyond_threshold{netdev=\"lan3\",level=\"alarm\"} 1",
        "roce_transceiver_readings_beyond_threshold{netdev=\"lan2\",level=\"alarm\"} 0",
        "roce_transceiver_diagnostics_readable{netdev=\"lan2\"} 1"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  const std::string lane2 = "roce_transceiver_rx_power_watts{netdev=\"lan3\",lane=\"2\"} ";
  const size_t at = text.find(lane2);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NEAR(std::stod(text.substr(at + lane2.size())), 3.98e-5, 1e-9);  // -14 dBm: 398 x 0.1 uW
  const auto reads = [&] {
    uint64_t n = 0;
    node_->inspect([&](roce_sim::Node& node) {
      n = node.find("lan3")->firmware_commands().at("ACCESS_REG").n;
    });
    return n;
  };
  const uint64_t before = reads();
  scrape();
  scrape();
  EXPECT_EQ(reads(), before) << "a scrape must not reach the firmware";
  time_.advance(std::chrono::seconds(30));
  module_->check();  // within the minute the last reading stands: lan2's optic is not read yet
  EXPECT_EQ(finding_ids(), std::vector<std::string>{"lan3 transceiver_alarm"});
  time_.advance(std::chrono::seconds(31));
  module_->check();  // 61 s: both below
  EXPECT_EQ(finding_ids(),
            (std::vector<std::string>{"lan2 transceiver_alarm", "lan3 transceiver_alarm"}));
  time_.advance(std::chrono::seconds(61));
  module_->check();  // 122 s: both healthy again since 70 and 90 s, but the flags latched then
  ASSERT_EQ(finding_ids(),
            (std::vector<std::string>{"lan2 transceiver_alarm", "lan3 transceiver_alarm"}));
  EXPECT_NE(scrape().find("roce_transceiver_rx_power_watts{netdev=\"lan3\",lane=\"2\"} 0.00078"),
            std::string::npos);
  time_.advance(std::chrono::seconds(61));
  module_->check();
  EXPECT_TRUE(module_->findings().empty()) << testing::PrintToString(finding_ids());
}

TEST_F(Health, AModuleRunningWarmIsAWarning) {
  play("  - {at: 0s, kind: optic_degrade, port: lan2, duration: 60s, temperature_c: 77}\n");
  module_->check();
  ASSERT_EQ(finding_ids(), std::vector<std::string>{"lan2 transceiver_warning"});
  EXPECT_NE(module_->findings().front().text.find("temperature 77.0 C"), std::string::npos);
}

// A port without a module of its own (a VLAN here) has no diagnostics and no finding: nothing
// to tell, not a fault; its neighbours are read as usual.
class HealthOverUppers : public Health {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/host-uppers.yaml";
  }
};

TEST_F(HealthOverUppers, APortWithoutAModuleServesNoDiagnostics) {
  module_ = std::make_unique<HealthModule>(
      system_,
      [] {
        auto ports = kUplinks;
        ports.push_back({"lan2.100", "0000:17:00.0", 0, false, "", 0, 0});
        return ports;
      },
      *stats_, time_);
  module_->check();
  const std::string text = scrape();
  EXPECT_EQ(text.find("roce_transceiver_diagnostics_readable{netdev=\"lan2.100\"}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("roce_transceiver_diagnostics_readable{netdev=\"lan3\"} 1"),
            std::string::npos)
      << text;
  for (const std::string& id : finding_ids()) {
    EXPECT_EQ(id.find("transceiver"), std::string::npos) << id;  // a VLAN's PHY cannot tell
  }
}

// A 400G OSFP module (CMIS): lower and upper page 00h, then pages 01h, 02h and 11h of bank 0,
// decoded per media lane of the module's application (4 of 8), with the thresholds of page 02h;
// and an empty cage beside it.
class HealthOnOsfp : public Health {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/dual-port-debian-6.12.yaml";
  }
  void SetUp() override {
    Health::SetUp();
    module_ = std::make_unique<HealthModule>(
        system_,
        [] {
          return std::vector<PciPort>{{"ens1f0np0", "0000:17:00.0", 0, false, "mlx5_0", 1, 0x08},
                                      {"ens1f1np1", "0000:17:00.1", 0, false, "mlx5_1", 1, 0x08}};
        },
        *stats_, time_);
  }
};

TEST_F(HealthOnOsfp, ACmisModuleIsReadPerLaneAndItsDimmedLaneIsAnAlarm) {
  module_->check();
  std::string text = scrape();
  for (const char* line :
       {"roce_transceiver_diagnostics_readable{netdev=\"ens1f0np0\"} 1",
        "roce_transceiver_temperature_celsius{netdev=\"ens1f0np0\"} 38.5",
        "roce_transceiver_rx_power_watts{netdev=\"ens1f0np0\",lane=\"2\"} 0.00078",
        "roce_transceiver_tx_bias_amperes{netdev=\"ens1f0np0\",lane=\"4\"} 0.0068",
        "roce_transceiver_readings_beyond_threshold{netdev=\"ens1f0np0\",level=\"alarm\"} 0"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  EXPECT_EQ(text.find("lane=\"5\""), std::string::npos) << text;  // not the application's
  EXPECT_TRUE(module_->findings().empty()) << testing::PrintToString(finding_ids());

  play(
      "  - {at: 0s, kind: optic_degrade, port: ens1f0np0, duration: 10m, lane: 3,"
      " rx_power_dbm: -14}\n");
  time_.advance(HealthSettings{}.optics_interval);
  module_->check();
  EXPECT_EQ(finding_ids(), std::vector<std::string>{"ens1f0np0 transceiver_alarm"});
  ASSERT_FALSE(module_->findings().empty());
  EXPECT_NE(module_->findings().front().text.find("MMA4Z00-NS400"), std::string::npos)
      << module_->findings().front().text;
  EXPECT_NE(module_->findings().front().text.find("rx_power lane 3 -14.00 dBm"), std::string::npos)
      << module_->findings().front().text;
}

// An empty cage: mlx5 (before its 2025 fix) answers the read with no bytes and no error. That is
// no reading, said as such, never a module read as all zeros ("no light" on every lane).
TEST_F(HealthOnOsfp, AnEmptyCageIsUnreadableNotDark) {
  module_->check();
  const std::string text = scrape();
  EXPECT_NE(text.find("roce_transceiver_diagnostics_readable{netdev=\"ens1f1np1\"} 0"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("roce_transceiver_rx_power_watts{netdev=\"ens1f1np1\""), std::string::npos)
      << text;
  EXPECT_TRUE(finding_ids().empty()) << testing::PrintToString(finding_ids());
}

// A fatal firmware error is critical from the reading after it until the hour is over, recovered
// or not; a second one within the grace period is not recovered and says so. The fw reporter's
// syndromes are a warning. Counts from before the first reading are the card's history.
// devlink_recover_notify multicasts every report and recovery: the task reads at once on a
// managed port's, not at its next interval; a function roced does not manage reads nothing.
TEST_F(Health, AReporterNotificationIsReadAtOnce) {
  module_->start();
  ASSERT_TRUE(time_.advance_until([&] { return !scrape().empty(); }, std::chrono::milliseconds(1)));
  const auto began = time_.now();
  play("  - {at: 1s, kind: firmware_fatal, port: lan3, recovery: 1h}\n");
  ASSERT_TRUE(time_.advance_until([&] { return !module_->findings().empty(); },
                                  std::chrono::milliseconds(100)));
  EXPECT_EQ(finding_ids(), std::vector<std::string>{"lan3 nic_firmware_fatal"});
  EXPECT_LE(time_.now() - began, std::chrono::milliseconds(1500)) << "read at the notification";
  module_->stop();
}

TEST_F(Health, AFatalFirmwareErrorIsCriticalForTheHourAndAnUnrecoveredOneSaysSo) {
  node_->change([](roce_sim::Node& node) {
    node.find("lan2")->health_reporters()["fw_fatal"].errors = 3;  // before roced ran
  });
  module_->check();
  EXPECT_TRUE(module_->findings().empty()) << testing::PrintToString(finding_ids());
  EXPECT_NE(
      scrape().find("roce_devlink_health_errors_total{netdev=\"lan2\",reporter=\"fw_fatal\"} 3"),
      std::string::npos);
  play(
      "  - {at: 0s, kind: firmware_fatal, port: lan3, recovery: 5s}\n"
      "  - {at: 0s, kind: firmware_error, port: lan2, count: 2}\n");
  time_.advance(HealthSettings{}.interval);  // the driver recovers within it
  module_->check();
  ASSERT_EQ(finding_ids(),
            (std::vector<std::string>{"lan2 nic_firmware_errors", "lan3 nic_firmware_fatal"}));
  const auto fatal = module_->findings().back();
  EXPECT_EQ(fatal.severity, finding::Severity::Critical);
  EXPECT_EQ(fatal.found, "recovered");
  const std::string text = scrape();
  for (const char* line :
       {"roce_devlink_health_recoveries_total{netdev=\"lan3\",reporter=\"fw_fatal\"} 1",
        "roce_devlink_health_healthy{netdev=\"lan3\",reporter=\"fw_fatal\"} 1",
        "roce_devlink_health_errors_total{netdev=\"lan2\",reporter=\"fw\"} 2",
        "roce_devlink_health_healthy{netdev=\"lan2\",reporter=\"fw\"} 0"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  play("  - {at: 0s, kind: firmware_fatal, port: lan3, recovery: 5s}\n");  // within 20 min
  time_.advance(std::chrono::seconds(30));
  module_->check();
  ASSERT_EQ(module_->findings().back().id, kFirmwareFatal.id);
  EXPECT_EQ(module_->findings().back().found, "error");
  EXPECT_NE(module_->findings().back().text.find("2 fatal firmware error(s) in the last hour"),
            std::string::npos)
      << module_->findings().back().text;
}

// A finding that lasts is said once, though its text carries each reading's figure, and its end
// once.
TEST_F(Health, ALastingFindingIsLoggedOnceAndItsEndOnce) {
  const auto previous = spdlog::default_logger();
  const auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("health-test", sink));
  // 13.0, 16.2 and 17.0 a second at the readings of 10, 20 and 30 s; 8.5 at 40 s.
  play(
      "  - {at: 0s, kind: phy_errors, port: lan3, duration: 35s, symbol_error_rate: 13}\n"
      "  - {at: 12s, kind: phy_errors, port: lan3, duration: 23s, symbol_error_rate: 17}\n");
  module_->check();
  for (int i = 0; i < 6; ++i) {
    time_.advance(HealthSettings{}.interval);
    module_->check();
  }
  spdlog::set_default_logger(previous);
  int said = 0;
  int cleared = 0;
  for (const auto& line : sink->last_formatted()) {
    said += line.find("phy_symbol_error_rate: ") != std::string::npos;
    cleared += line.find("phy_symbol_error_rate cleared") != std::string::npos;
  }
  EXPECT_EQ(said, 1) << testing::PrintToString(sink->last_formatted());
  EXPECT_EQ(cleared, 1) << testing::PrintToString(sink->last_formatted());
}

}  // namespace
}  // namespace roced::health
