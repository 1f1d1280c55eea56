// SPDX-License-Identifier: Apache-2.0
// Fault 6: NIC counters that go backwards without a driver reload (roce-sim's counter_clear, as
// `mlxlink --pc` or a firmware bug does it), while traffic flows and the storm watchdog polls.
#include "fault_harness.hpp"

namespace roced::test {
namespace {

class CounterFaults : public RocedUnderFault {
 protected:
  void SetUp() override {
    RocedUnderFault::SetUp();
    if (HasFatalFailure()) return;
    write_file(config_, fault_config(10, "watchdog: {enabled: true}\n"));
  }
};

constexpr const char* kTraffic =
    "traffic:\n"
    "  - {port: lan3, priority: 3, direction: tx, rate: 50G}\n"
    "  - {port: lan3, priority: 3, direction: rx, rate: 50G}\n"
    "events:\n"
    "  - {at: 0s, kind: congestion, port: lan3, priority: 3, duration: 2s, ecn_mark_ratio: 0.1,\n"
    "     cnp_rate: 100000, pause_ratio: 0.2}\n";

TEST_F(CounterFaults, ACounterGoingBackwardsMakesNoStormNoWrapAndIsLogged) {
  start_roced();
  ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << log();
  const PortValues wanted_values = wanted();
  const auto flows = inject(kTraffic);
  ASSERT_EQ(flows.exit_code, 0) << flows.err;

  const std::string tx_packets =
      "roce_priority_packets_total{netdev=\"lan3\",device=\"mlx5_1\",port=\"1\",direction=\"tx\","
      "priority=\"3\"}";
  const std::string cnp_handled =
      "roce_cnp_handled_total{netdev=\"lan3\",device=\"mlx5_1\",port=\"1\"}";
  const std::string resets = "roced_rdma_stat_resets_total{netdev=\"lan3\"}";
  std::string before;
  ASSERT_TRUE(eventually([&] {
    before = scrape();
    return metric(before, tx_packets).value_or(0) > 1e6 &&
           metric(before, cnp_handled).value_or(0) > 1000;
  })) << before;
  // The congestion is over and its CNPs have stopped: scrapes serve a reading up to two
  // rdma_interval old, and a counter still growing could pass its old value between two readings
  // and hide its restart. Two scrapes 2.5 s apart that agree say it stands still.
  ASSERT_TRUE(eventually([&] {
    const std::optional<double> earlier = metric(scrape(), cnp_handled);
    std::this_thread::sleep_for(2500ms);
    before = scrape();
    return earlier && metric(before, cnp_handled) == earlier;
  })) << before;
  const double resets_before = metric(before, resets).value_or(-1);
  EXPECT_EQ(resets_before, 0) << before;

  // The pause and packet counters the watchdog judges, and a 64-bit RDMA congestion counter.
  const auto cleared = inject(
      "events: [{at: 0s, kind: counter_clear, port: lan3,\n"
      "          counters: [tx_prio3_packets, rx_prio3_packets, rx_prio3_pause_duration,\n"
      "                     rx_prio3_pause, tx_prio3_pause_duration, rp_cnp_handled]}]\n");
  ASSERT_EQ(cleared.exit_code, 0) << cleared.err;

  // Scrapes serve readings that may predate the clear: the RDMA counters roced's background one
  // (metrics.rdma_interval), the ethtool ones the storm watchdog's (metrics.max_sample_age).
  // Wait for both.
  std::string after;
  ASSERT_TRUE(eventually([&] {
    after = scrape();
    return metric(after, resets).value_or(0) >= 1 &&
           metric(after, tx_packets).value_or(-1) < metric(before, tx_packets).value();
  })) << after
      << log();
  // The raw NIC counter restarted (a counter reset, as Prometheus's rate() expects one), and is
  // no unsigned wrap of the difference.
  const double packets_after = metric(after, tx_packets).value_or(-1);
  EXPECT_LT(packets_after, metric(before, tx_packets).value());
  EXPECT_GE(packets_after, 0);
  EXPECT_LT(packets_after, 1e15) << "a wrapped difference";
  // The RDMA counter is carried across its restart: it does not go backwards.
  EXPECT_GE(metric(after, cnp_handled).value_or(0), metric(before, cnp_handled).value()) << after;
  EXPECT_EQ(metric(after, resets), 1) << after;

  // A few watchdog polls later: no storm, and the log says what happened on which port.
  std::this_thread::sleep_for(1s);
  const std::string later = scrape();
  EXPECT_EQ(
      metric(later,
             "roce_pfc_storm_detections_total{netdev=\"lan3\",priority=\"3\",direction=\"rx\"}")
          .value_or(0),
      0)
      << later;
  EXPECT_FALSE(contains(log(), "storm detected")) << log();
  EXPECT_TRUE(contains(log(), "lan3")) << log();
  EXPECT_TRUE(contains(log(), "went backwards")) << log();
  expect_each_port_as_it_was_or_as_wanted(wanted_values);
  expect_still_serving();
}

}  // namespace
}  // namespace roced::test
