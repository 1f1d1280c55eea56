// SPDX-License-Identifier: Apache-2.0
// Fault 3: SIGTERM and SIGKILL in the middle of an apply, then a restart. The middle is
// deterministic: roce-sim's hold_reply keeps the reply to lan3's PFC set back (the new cable
// length and MTU written, the rest not yet) while the test signals roced; lan3's PFC showing the
// new cable length says when, as that set is carried out at once and only its reply waits. A test
// too slow to signal within the hold signals after the apply, which every check below allows.
#include "fault_harness.hpp"

namespace roced::test {
namespace {

class SignalMidApply : public RocedUnderFault {
 protected:
  // roced in sync on the first profile; then a reload to cable length 25 and MTU 4200 whose
  // apply on lan3 stops at the PFC set, held for `hold`.
  void reach_the_middle(const std::string& hold) {
    start_roced("first.log");
    ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << log();
    before_ = wanted();
    const auto armed = inject(
        "events: [{at: 0s, kind: hold_reply, port: lan3, op: pfc, duration: " + hold + "}]\n");
    ASSERT_EQ(armed.exit_code, 0) << armed.err;
    write_file(config_, changed_config());
    ASSERT_EQ(::kill(pid_, SIGHUP), 0);
    // Not DIR/roce-sim.held, which is there only while the hold lasts: what the held set wrote
    // stays, however late the test looks.
    ASSERT_TRUE(eventually([&] { return contains(read_port("lan3")["pfc"], "delay 25"); }))
        << log();
  }

  static std::string changed_config() {
    std::string text = fault_config(25);
    text.replace(text.find("mtu: 9000"), 9, "mtu: 4200");
    return text;
  }

  PortValues before_;  // every port before the reload
};

TEST_F(SignalMidApply, SigtermLetsTheApplyFinishAndARestartFindsNothingToDo) {
  ASSERT_NO_FATAL_FAILURE(reach_the_middle("2s"));
  EXPECT_EQ(stop_roced(SIGTERM), 0) << log();
  EXPECT_FALSE(fs::exists(dir_ / "roce-sim.held"));
  EXPECT_TRUE(contains(log(), "SIGTERM: stopping")) << log();

  // lan3 was left whole: as it was before the reload or as the new profile wants, never half.
  for (const auto& netdev : kPorts) {
    const PortValues now = read_port(netdev);
    const bool old_profile = now == before_;
    const bool new_profile = contains(now.at("pfc"), "delay 25") && now.at("mtu") == "4200";
    EXPECT_TRUE(old_profile || new_profile) << netdev << ":\n" << describe(now);
  }

  // A restart brings every port to the new profile.
  start_roced("second.log");
  ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << log();
  const PortValues wanted_values = wanted();
  EXPECT_EQ(wanted_values.at("mtu"), "4200");
  EXPECT_TRUE(contains(wanted_values.at("pfc"), "delay 25"));
  expect_each_port_as_it_was_or_as_wanted(wanted_values);
  expect_still_serving();
}

TEST_F(SignalMidApply, SigkillLeavesAHalfApplyThatTheRestartCompletes) {
  ASSERT_NO_FATAL_FAILURE(reach_the_middle("3s"));
  EXPECT_EQ(stop_roced(SIGKILL), -1);
  // Half: the MTU and cable length of the new profile (MTU goes first; roced died waiting for
  // the PFC set's reply), the rest of the old.
  ASSERT_TRUE(eventually([&] { return !fs::exists(dir_ / "roce-sim.held"); }));
  const PortValues half = read_port("lan3");
  EXPECT_TRUE(contains(half.at("pfc"), "delay 25")) << describe(half);
  EXPECT_EQ(half.at("mtu"), "4200") << describe(half);

  start_roced("second.log");
  ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << status().dump(2) << log();
  const PortValues wanted_values = wanted();
  EXPECT_EQ(wanted_values.at("mtu"), "4200");
  for (const auto& netdev : kPorts) EXPECT_EQ(read_port(netdev), wanted_values) << netdev;
  expect_still_serving();
}

}  // namespace
}  // namespace roced::test
