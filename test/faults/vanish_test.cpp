// SPDX-License-Identifier: Apache-2.0
// Fault 2: a port vanishes in the middle of an apply (roce-sim's vanish_on_write: the port's
// driver unbinds when roced's MTU set reaches it, after its PFC set went through), and comes back.
#include "fault_harness.hpp"

namespace roced::test {
namespace {

class VanishingPort : public RocedUnderFault {};

TEST_F(VanishingPort, APortGoneMidApplyIsReportedAndConfiguredWhenItReturns) {
  start_roced();
  ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << log();
  const PortValues wanted_values = wanted();

  // Another tool undoes PFC and the MTU on lan3; roced's correction writes PFC, and the port is
  // gone when its MTU set arrives. It stays away until the test brings it back.
  const auto played = inject(
      "events:\n"
      "  - {at: 0s, kind: vanish_on_write, port: lan3, op: mtu, down_for: 1h}\n"
      "  - {at: 10ms, kind: foreign_tool, port: lan3, set: {pfc: [], mtu: 1500}}\n");
  ASSERT_EQ(played.exit_code, 0) << played.err;

  ASSERT_TRUE(eventually([&] {
    const Json lan3 = port_status("lan3");
    return !lan3.is_null() && lan3.at("condition") == "vanished";
  })) << status().dump(2)
      << log();
  EXPECT_TRUE(contains(exec({"ip", "link", "show", "dev", "lan3"}), "error"))
      << "the node still has lan3";
  EXPECT_TRUE(contains(log(), "lan3: ")) << log();
  EXPECT_TRUE(contains(log(), "vanished")) << log();
  // The other ports are untouched and still served.
  for (const std::string netdev : {"lan2", "lan4", "lan5"}) {
    EXPECT_EQ(read_port(netdev), wanted_values) << netdev;
  }
  EXPECT_FALSE(scrape().empty()) << log();

  // The driver binds it again (firmware defaults, a new ifindex): roced configures it.
  const auto back =
      inject("events: [{at: 0s, kind: driver_reload, port: lan3, down_for: 100ms}]\n");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_TRUE(eventually([&] { return all_in_sync() && read_port("lan3") == wanted_values; }))
      << describe(read_port("lan3")) << status().dump(2) << log();
  expect_each_port_as_it_was_or_as_wanted(wanted_values);
  expect_still_serving();
}

TEST_F(VanishingPort, APortThatReturnsByItselfAfterVanishingMidFirstApplyIsConfigured) {
  // During roced's very first apply: the PFC set of lan4 finds the port gone; the driver binds it
  // again two seconds later.
  const auto armed =
      inject("events: [{at: 0s, kind: vanish_on_write, port: lan4, op: pfc, down_for: 2s}]\n");
  ASSERT_EQ(armed.exit_code, 0) << armed.err;
  start_roced();
  EXPECT_TRUE(eventually([&] { return all_in_sync(); })) << status().dump(2) << log();
  const PortValues wanted_values = wanted();
  EXPECT_EQ(read_port("lan4"), wanted_values);
  EXPECT_TRUE(contains(log(), "lan4: ")) << log();
  expect_each_port_as_it_was_or_as_wanted(wanted_values);
  expect_still_serving();
}

}  // namespace
}  // namespace roced::test
