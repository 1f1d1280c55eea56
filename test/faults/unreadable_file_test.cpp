// SPDX-License-Identifier: Apache-2.0
// Fault 5: a sysfs/configfs file roced cannot read. Root ignores permission bits through
// CAP_DAC_OVERRIDE, which the production unit does not give roced (systemd/roced.service:
// CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW). So roced runs here as the unit runs it, under setpriv
// with that bounding set, and roce-sim's unreadable_file fault makes the file mode 0000 (kept so
// across the node's 10 Hz rewrites): roced meets EACCES exactly as it would in production. The
// RDMA counters are read over RDMA netlink, not from files: their fault is a failed query.
#include "fault_harness.hpp"

namespace roced::test {
namespace {

const std::vector<std::string> kAsTheUnit = {SETPRIV_BINARY, "--bounding-set=-all,+net_admin,+net_raw",
                                             "--inh-caps=-all", "--"};

class UnreadableFile : public RocedUnderFault {};

TEST_F(UnreadableFile, AnUnreadableSettingIsReportedForItsPortAndRecovers) {
  start_roced("roced.log", kAsTheUnit);
  ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << log();
  const PortValues wanted_values = wanted();

  const auto played = inject(
      "events: [{at: 0s, kind: unreadable_file, port: lan3, duration: 1h,\n"
      "          file: config/rdma_cm/mlx5_1/ports/1/default_roce_tos}]\n");
  ASSERT_EQ(played.exit_code, 0) << played.err;
  // The next drift check meets it.
  ASSERT_TRUE(eventually([&] {
    const Json lan3 = port_status("lan3");
    return !lan3.is_null() && lan3.at("condition") != "in-sync";
  })) << status().dump(2)
      << log();
  const Json lan3 = port_status("lan3");
  EXPECT_TRUE(contains(lan3.dump(), "default_roce_tos")) << lan3.dump(2);
  EXPECT_TRUE(contains(lan3.dump(), "Permission denied")) << lan3.dump(2);
  EXPECT_TRUE(contains(log(), "lan3")) << log();
  EXPECT_TRUE(contains(log(), "Permission denied")) << log();
  // The other ports are untouched and in sync; lan3's readable settings are unchanged.
  for (const std::string netdev : {"lan2", "lan4", "lan5"}) {
    EXPECT_EQ(port_status(netdev).at("condition"), "in-sync") << netdev;
    EXPECT_EQ(read_port(netdev), wanted_values) << netdev;
  }
  PortValues lan3_values = read_port("lan3");
  lan3_values.erase("roce_tos");
  PortValues wanted_readable = wanted_values;
  wanted_readable.erase("roce_tos");
  EXPECT_EQ(lan3_values, wanted_readable);
  EXPECT_FALSE(scrape().empty());

  // Readable again: in sync at the next check, nothing rewritten needlessly.
  const auto back = inject(
      "events: [{at: 0s, kind: unreadable_file, port: lan3, duration: 1ms,\n"
      "          file: config/rdma_cm/mlx5_1/ports/1/default_roce_tos}]\n");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_TRUE(eventually([&] { return all_in_sync(); })) << status().dump(2) << log();
  expect_each_port_as_it_was_or_as_wanted(wanted_values);
  expect_still_serving();
}

// A port's RDMA counter query fails (a firmware command error fails mlx5's get_hw_stats, and
// RDMA netlink answers EINVAL): the scrapes that serve that reading (roced's background one,
// metrics.rdma_interval) report it and leave that port's RDMA series absent, not 0, and they come
// back with the next query that works.
TEST_F(UnreadableFile, AFailedRdmaCounterQueryIsReportedByTheScrapeAndRecovers) {
  start_roced("roced.log", kAsTheUnit);
  ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << log();
  const PortValues wanted_values = wanted();
  const std::string before = scrape();
  ASSERT_EQ(metric(before, "roced_scrape_collector_success{collector=\"rdma\"}"), 1.0) << before;

  // Each reading asks twice (the query, and its retry after the device list is taken again): six
  // failures fail three readings in a row, seconds in which the scrapes below see one of them.
  const auto played = inject(
      "events: [{at: 0s, kind: netlink_errors, port: lan3, errno: EIO, op: rdma_stats,\n"
      "          count: 6}]\n");
  ASSERT_EQ(played.exit_code, 0) << played.err;
  std::string during;
  ASSERT_TRUE(eventually([&] {
    during = scrape();
    return metric(during, "roced_scrape_collector_success{collector=\"rdma\"}") == 0.0;
  })) << during;
  // The other ports' RDMA counters are still there; lan3's are absent, not 0.
  EXPECT_TRUE(contains(during, "roce_cnp_sent_total{netdev=\"lan2\",device=\"mlx5_0\"")) << during;
  EXPECT_FALSE(contains(during, "roce_cnp_sent_total{netdev=\"lan3\",device=\"mlx5_1\"")) << during;
  EXPECT_TRUE(eventually([&] { return contains(log(), "counters of mlx5_1/1"); })) << log();
  EXPECT_TRUE(contains(log(), "Invalid argument")) << log();
  EXPECT_TRUE(all_in_sync()) << status().dump(2);

  std::string after;
  EXPECT_TRUE(eventually([&] {
    after = scrape();
    return metric(after, "roced_scrape_collector_success{collector=\"rdma\"}") == 1.0;
  })) << after;
  EXPECT_TRUE(contains(after, "roce_cnp_sent_total{netdev=\"lan3\",device=\"mlx5_1\"")) << after;
  expect_each_port_as_it_was_or_as_wanted(wanted_values);
  expect_still_serving();
}

}  // namespace
}  // namespace roced::test
