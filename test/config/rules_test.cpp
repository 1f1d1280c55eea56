// SPDX-License-Identifier: Apache-2.0
// The cross-setting rules (daemon/config/validate.cpp), on `profile` and on overrides.
#include "expect.hpp"

namespace roced::config {
namespace {

using test::load;

TEST(ConfigRules, RoceTosMustMapToAPfcPriority) {
  EXPECT_CONFIG_ERROR(load("profile:\n  roce: {tos: 130}\n"), 2, 15, "profile.roce.tos",
                      "roce.tos 130 = DSCP 32) maps to priority 4, which has no PFC");
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc: {priorities: [4]}\n"), 2, 21, "profile.pfc.priorities",
                      "maps to priority 3, which has no PFC");
  EXPECT_CONFIG_ERROR(load("profile:\n  dscp_map: {26: 0}\n"), 2, 14, "profile.dscp_map.26",
                      "RoCE would silently not be lossless");
  // Moving both the DSCP's priority and PFC keeps RoCE lossless (CNP's TC is still strict).
  const LoadResult moved = load("profile:\n  dscp_map: {26: 4}\n  pfc: {priorities: [4]}\n");
  EXPECT_TRUE(moved.ok()) << test::all_text(moved);
  EXPECT_TRUE(moved.diagnostics.empty()) << test::all_text(moved);
}

TEST(ConfigRules, TrustPcpAndNoPfcAreWarningsNotErrors) {
  EXPECT_CONFIG_WARNING(load("profile:\n  trust: pcp\n"), 2, 10, "profile.trust",
                        "roced cannot check that RoCE lands on a PFC priority");
  const LoadResult lossy = load("profile:\n  pfc: {priorities: []}\n");
  EXPECT_CONFIG_WARNING(lossy, 2, 21, "profile.pfc.priorities", "nothing is lossless");
  EXPECT_EQ(lossy.diagnostics.size(), 1u) << test::all_text(lossy);
}

TEST(ConfigRules, PfcOnAPriorityNoDscpReachesIsAWarning) {
  const LoadResult unreached = load(
      "profile:\n  pfc: {priorities: [1, 3]}\n"
      "  dscp_map: {8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0, 14: 0, 15: 0}\n");
  EXPECT_CONFIG_WARNING(unreached, 2, 21, "profile.pfc.priorities",
                        "PFC is on priority 1, which no DSCP maps to");
  // Reached by one DSCP is enough; under trust pcp the map does not classify.
  const LoadResult reached = load(
      "profile:\n  pfc: {priorities: [1, 3]}\n"
      "  dscp_map: {8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0, 14: 0, 15: 1}\n");
  EXPECT_EQ(test::all_text(reached).find("no DSCP maps to"), std::string::npos)
      << test::all_text(reached);
}

TEST(ConfigRules, CnpPriorityMustNotHavePfc) {
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc: {priorities: [3, 6]}\n"), 2, 21,
                      "profile.pfc.priorities", "CNP priority 6 has PFC");
  EXPECT_CONFIG_ERROR(
      load("profile:\n  ecn: {cnp_priority: 3}\n  ets: {tcs: {3: {tsa: strict}, 6: {bandwidth: "
           "50}}}\n  dscp_map: {48: 3}\n"),
      2, 23, "profile.ecn.cnp_priority", "CNP priority 3 has PFC");
}

TEST(ConfigRules, CnpDscpThatMapsElsewhereIsAWarning) {
  EXPECT_CONFIG_WARNING(
      load("profile:\n  ecn: {cnp_dscp: 40}\n"), 2, 19, "profile.ecn.cnp_dscp",
      "CNPs carry DSCP 40, which dscp_map maps to priority 5, not cnp_priority 6");
}

TEST(ConfigRules, CnpOnANonStrictTcIsAWarning) {
  const LoadResult result = load("profile:\n  ecn: {cnp_priority: 5}\n  dscp_map: {48: 5}\n");
  EXPECT_CONFIG_WARNING(result, 2, 23, "profile.ecn.cnp_priority",
                        "CNP priority 5 is on TC 5, which is not strict");
}

TEST(ConfigRules, EtsBandwidthsSumTo100) {
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    tcs:\n      3: {tsa: ets, bandwidth: 40}\n"), 3,
                      5, "profile.ets.tcs", "add up to 90, not 100 (TC0 10 + TC1 10");
  // Turning an ETS TC strict frees its share: the rest must still add up.
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    tcs:\n      7: {tsa: strict}\n"), 3, 5,
                      "profile.ets.tcs", "add up to 95");
  const LoadResult fixed =
      load("profile:\n  ets:\n    tcs:\n      7: {tsa: strict}\n      5: {bandwidth: 10}\n");
  EXPECT_TRUE(fixed.ok()) << test::all_text(fixed);
  // No ETS TC at all: nothing to add up.
  const LoadResult all_vendor = load(
      "profile:\n  ets:\n    tcs: {0: {tsa: vendor}, 1: {tsa: vendor}, 2: {tsa: vendor}, 3: "
      "{tsa: vendor}, 4: {tsa: vendor}, 5: {tsa: vendor}, 7: {tsa: vendor}}\n");
  EXPECT_TRUE(all_vendor.ok()) << test::all_text(all_vendor);
}

TEST(ConfigRules, LosslessOnAStrictTcOrSharingATcAreWarnings) {
  EXPECT_CONFIG_WARNING(
      load("profile:\n  ets:\n    tcs:\n      3: {tsa: strict}\n      0: {bandwidth: 60}\n"), 4, 7,
      "profile.ets.tcs.3", "lossless priority 3 is on strict TC 3");
  EXPECT_CONFIG_WARNING(load("profile:\n  ets:\n    prio_tc: [0, 1, 2, 3, 4, 5, 6, 3]\n"), 3, 14,
                        "profile.ets.prio_tc",
                        "TC 3 carries lossless priority 3 and priorities without PFC (7)");
}

TEST(ConfigRules, MtuCableAndStallWarnings) {
  EXPECT_CONFIG_WARNING(load("profile: {mtu: 1500}\n"), 1, 16, "profile.mtu",
                        "MTU 1500 is below 4200: the RoCE path MTU drops from 4096 to 1024");
  EXPECT_CONFIG_WARNING(load("profile: {mtu: 4191}\n"), 1, 16, "profile.mtu",
                        "MTU 4191 is below 4200: the RoCE path MTU drops from 4096 to 2048");
  // 4192 - 96 bytes of RoCE v2 headers is exactly 4096: still a 4096 path, but below the recipe.
  EXPECT_CONFIG_WARNING(
      load("profile: {mtu: 4192}\n"), 1, 16, "profile.mtu",
      "MTU 4192 is below 4200: the RoCE path MTU is still 4096, but only 0 bytes");
  EXPECT_CONFIG_WARNING(load("profile:\n  pfc: {cable_length: 150}\n"), 2, 23,
                        "profile.pfc.cable_length", "150 m is longer");
  EXPECT_CONFIG_WARNING(load("profile:\n  stall_prevention: off\n"), 2, 21,
                        "profile.stall_prevention", "PFC storm");
  EXPECT_TRUE(load("profile: {mtu: 4200}\n").diagnostics.empty());
}

TEST(ConfigRules, EcnPrioritiesShouldCoverPfc) {
  EXPECT_CONFIG_WARNING(load("profile:\n  ecn: {priorities: [4]}\n"), 2, 21,
                        "profile.ecn.priorities", "ECN is off on lossless priority 3");
  EXPECT_TRUE(load("profile:\n  ecn: {priorities: [3, 4]}\n").diagnostics.empty());
}

TEST(ConfigRules, DcbxFirmwareRoceV1AndCeToSAreWarnings) {
  EXPECT_CONFIG_WARNING(load("profile: {dcbx: firmware}\n"), 1, 17, "profile.dcbx",
                        "the switch can replace the PFC and ETS");
  EXPECT_CONFIG_WARNING(load("profile:\n  roce: {rdma_cm_mode: v1}\n"), 2, 24,
                        "profile.roce.rdma_cm_mode", "RoCE v1 has no IP header");
  EXPECT_CONFIG_WARNING(load("profile:\n  roce: {tos: 107}\n"), 2, 15, "profile.roce.tos",
                        "ECN bits to CE");
}

TEST(ConfigRules, LosslessBuffers) {
  const std::string map = "    prio2buffer: [0, 0, 0, 1, 0, 0, 0, 0]\n";
  EXPECT_CONFIG_ERROR(
      load("profile:\n  buffers:\n" + map + "    size: [262144, 0, 0, 0, 0, 0, 0, 0]\n"), 4, 11,
      "profile.buffers.size", "buffer 1 holds lossless priority 3 but its size is 0");
  // 7 m, MTU 9000 at 40 Gbit/s: (301 + 15) * 40 + 24480 + 9216 + 128 = 46464 bytes.
  EXPECT_CONFIG_ERROR(
      load("profile:\n  buffers:\n" + map + "    size: [262144, 46336, 0, 0, 0, 0, 0, 0]\n"), 4, 11,
      "profile.buffers.size", "mlx5 needs at least 46464");
  const LoadResult enough =
      load("profile:\n  buffers:\n" + map + "    size: [262144, 46464, 0, 0, 0, 0, 0, 0]\n");
  EXPECT_TRUE(enough.ok()) << test::all_text(enough);
  EXPECT_TRUE(enough.diagnostics.empty()) << test::all_text(enough);
  EXPECT_CONFIG_WARNING(load("profile:\n  buffers:\n    prio2buffer: [0, 0, 0, 1, 0, 0, 0, 1]\n"
                             "    size: [262144, 262144, 0, 0, 0, 0, 0, 0]\n"),
                        3, 18, "profile.buffers.prio2buffer", "and priority 7 without PFC");
}

// mlx5 stores sizes in 128-byte cells, rounded down (en/port_buffer.c port_set_buffer): any other
// size reads back smaller and would be a change on every check.
TEST(ConfigRules, BufferSizesAreWholeCells) {
  const std::string map = "    prio2buffer: [0, 0, 0, 1, 0, 0, 0, 0]\n";
  EXPECT_CONFIG_ERROR(
      load("profile:\n  buffers:\n" + map + "    size: [262144, 200000, 0, 0, 0, 0, 0, 0]\n"), 4,
      11, "profile.buffers.size",
      "buffer 1 is 200000 bytes; mlx5 keeps buffer sizes in 128-byte cells and would read it back "
      "as 199936, a change that never ends: use 199936 or 200064");
  EXPECT_TRUE(
      load("profile:\n  buffers:\n" + map + "    size: [262144, 200064, 0, 0, 0, 0, 0, 0]\n").ok());
}

// Above 255 Gbit/s is a question of the port's driver (a u8 count in mainline mlx5, a u16 in
// NVIDIA's), which the planner answers per port: the config takes it.
TEST(ConfigRules, MaxrateAbove255GbitIsLeftToThePlan) {
  const LoadResult result = load("profile:\n  maxrate: [0, 0, 0, 0, 0, 0, 0, 400000]\n");
  EXPECT_TRUE(result.ok()) << test::all_text(result);
  EXPECT_TRUE(result.diagnostics.empty()) << test::all_text(result);
}

TEST(ConfigRules, OverridesAreCheckedOnTheirMergedProfile) {
  const LoadResult result = load(R"(profile:
  mtu: 9000
overrides:
  lan5:
    pfc:
      priorities: [4]
)");
  EXPECT_CONFIG_ERROR(result, 6, 19, "overrides.lan5.pfc.priorities",
                      "maps to priority 3, which has no PFC (pfc.priorities: 4)");
}

TEST(ConfigRules, AnOverrideDoesNotRepeatTheProfilesProblem) {
  const LoadResult result = load(R"(profile:
  roce: {tos: 130}
overrides:
  lan5: {mtu: 4200}
)");
  EXPECT_CONFIG_ERROR(result, 2, 15, "profile.roce.tos", "which has no PFC");
  EXPECT_FALSE(test::mentions(result, "overrides.lan5.roce.tos"));
  EXPECT_EQ(result.diagnostics.size(), 1u) << test::all_text(result);
}

TEST(ConfigRules, AnOverrideCanFixWhatItInherits) {
  // The profile's MTU warning is the profile's; lan5's own MTU is fine.
  const LoadResult result = load("profile: {mtu: 1500}\noverrides:\n  lan5: {mtu: 9000}\n");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.diagnostics.size(), 1u) << test::all_text(result);
  EXPECT_CONFIG_WARNING(result, 1, 16, "profile.mtu", "below 4200");
}

TEST(ConfigRules, RulesSkipFieldsThatFailedToRead) {
  // pfc.priorities is unreadable: judging the ToS against the default mask would mislead.
  const LoadResult result = load("profile:\n  pfc: {priorities: [9]}\n  roce: {tos: 130}\n");
  ASSERT_EQ(result.diagnostics.size(), 1u) << test::all_text(result);
  EXPECT_EQ(result.diagnostics[0].field, "profile.pfc.priorities");
}

}  // namespace
}  // namespace roced::config
