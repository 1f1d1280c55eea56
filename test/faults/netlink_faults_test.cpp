// SPDX-License-Identifier: Apache-2.0
// Fault 1: netlink errors on some set requests of several ports at once, transient (retried and
// applied) and persistent (rolled back, reported, applied once the NIC takes it again).
#include "fault_harness.hpp"

namespace roced::test {
namespace {

class NetlinkFaults : public RocedUnderFault {};

TEST_F(NetlinkFaults, TransientErrorsAreRetriedAndAPersistentOneIsRolledBackAndReported) {
  // Armed before roced starts, so its first apply of every port meets them.
  const auto armed = inject(
      "events:\n"
      "  - {at: 0s, kind: netlink_errors, port: lan2, errno: EBUSY, op: pfc, count: 1}\n"
      "  - {at: 0s, kind: netlink_errors, port: lan3, errno: EAGAIN, op: mtu, count: 2}\n"
      "  - {at: 0s, kind: netlink_errors, port: lan3, errno: ETIMEDOUT, op: stall_prevention}\n"
      "  - {at: 0s, kind: netlink_errors, port: lan4, errno: EIO, op: ets, count: 100000}\n");
  ASSERT_EQ(armed.exit_code, 0) << armed.err;
  start_roced();

  // lan2 and lan3 come right after their retries; lan4 keeps failing.
  ASSERT_TRUE(eventually([&] {
    const Json lan2 = port_status("lan2"), lan3 = port_status("lan3"), lan4 = port_status("lan4");
    return !lan2.is_null() && lan2.at("condition") == "in-sync" &&
           lan3.at("condition") == "in-sync" && lan4.at("condition") == "failed" &&
           lan4.at("consecutive_failures").get<int>() >= 2;
  })) << status().dump(2)
      << log();
  const PortValues wanted_values = wanted();
  EXPECT_EQ(wanted_values.at("mtu"), "9000");
  EXPECT_EQ(read_port("lan2"), wanted_values);
  EXPECT_EQ(read_port("lan3"), wanted_values);
  // Rolled back: exactly as the firmware left it.
  EXPECT_EQ(read_port("lan4"), firmware_.at("lan4")) << describe(read_port("lan4"));

  // The report names the port and the cause: status, log and metrics.
  const Json lan4 = port_status("lan4");
  EXPECT_TRUE(contains(lan4.at("last_apply").dump(), "EIO") ||
              contains(lan4.at("last_apply").dump(), "Input/output error"))
      << lan4.dump(2);
  EXPECT_TRUE(contains(log(), "lan4")) << log();
  EXPECT_TRUE(contains(log(), "Input/output error") || contains(log(), "EIO")) << log();
  EXPECT_GE(
      metric(scrape(), "roce_config_applies_total{netdev=\"lan4\",result=\"failed\"}").value_or(0),
      2)
      << scrape();

  // The NIC takes it again: one more failure, then the next retry applies.
  const auto cleared = inject(
      "events: [{at: 0s, kind: netlink_errors, port: lan4, errno: EIO, op: ets, count: 1}]\n");
  ASSERT_EQ(cleared.exit_code, 0) << cleared.err;
  EXPECT_TRUE(eventually([&] { return all_in_sync(); })) << status().dump(2);
  EXPECT_EQ(read_port("lan4"), wanted_values);
  expect_each_port_as_it_was_or_as_wanted(wanted_values);
  expect_still_serving();
}

TEST_F(NetlinkFaults, ErrorsOnACorrectionOfSeveralPortsLeaveEachWholeAndAreRetried) {
  start_roced();
  ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << log();
  const PortValues wanted_values = wanted();
  exec({"ip", "link", "show", "lan2"});
  const auto writes_before = read_writes(dir_);

  // Another tool undoes PFC and the MTU on three ports; roced's corrections meet errors on
  // different operations of each.
  const auto played = inject(
      "events:\n"
      "  - {at: 0s, kind: netlink_errors, port: lan2, errno: ENOMEM, op: pfc, count: 3}\n"
      "  - {at: 0s, kind: netlink_errors, port: lan3, errno: EBUSY, op: any, count: 2}\n"
      "  - {at: 0s, kind: netlink_errors, port: lan4, errno: EPERM, op: mtu, count: 1}\n"
      "  - {at: 10ms, kind: foreign_tool, port: lan2, set: {pfc: [], mtu: 1500}}\n"
      "  - {at: 10ms, kind: foreign_tool, port: lan3, set: {pfc: [], mtu: 1500}}\n"
      "  - {at: 10ms, kind: foreign_tool, port: lan4, set: {pfc: [], mtu: 1500}}\n");
  ASSERT_EQ(played.exit_code, 0) << played.err;

  // Each port, read back, ends as wanted (the drift was seen, the failures retried).
  for (const std::string netdev : {"lan2", "lan3", "lan4"}) {
    EXPECT_TRUE(eventually([&] { return read_port(netdev) == wanted_values; }))
        << netdev << ":\n"
        << describe(read_port(netdev)) << log();
  }
  EXPECT_TRUE(eventually([&] { return all_in_sync(); })) << status().dump(2);
  for (const std::string netdev : {"lan2", "lan3", "lan4"}) {
    EXPECT_EQ(read_port(netdev), wanted_values) << netdev;
    EXPECT_TRUE(contains(log(), netdev + ": ")) << log();
  }
  EXPECT_TRUE(contains(log(), "lan2: rolled-back") && contains(log(), "ENOMEM")) << log();
  // lan3's EBUSYs (transient by nature) are retried at once: corrected, with the failed requests
  // counted on top of the two that went through.
  EXPECT_TRUE(contains(log(), "lan3: corrected")) << log();
  exec({"ip", "link", "show", "lan2"});  // the node's barrier for the write counter
  EXPECT_GE(read_writes(dir_).at("lan3") - writes_before.at("lan3"), 4u);
  EXPECT_TRUE(contains(log(), "lan4: ") && contains(log(), "EPERM")) << log();
  expect_each_port_as_it_was_or_as_wanted(wanted_values);
  expect_still_serving();
}

}  // namespace
}  // namespace roced::test
