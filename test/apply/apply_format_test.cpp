// SPDX-License-Identifier: Apache-2.0
// format_apply_text and apply_to_json on a hand-made result: an applied port with a retried
// change, a rolled-back one with its undo lines, an in-sync one with an unsupported setting.
#include <gtest/gtest.h>

#include "daemon/apply/applier.hpp"

namespace roced::apply {
namespace {

using Outcome = PortResult::Outcome;

plan::Change change(plan::Setting setting, std::string now, std::string wanted) {
  plan::Change c;
  c.setting = setting;
  c.now = std::move(now);
  c.wanted = std::move(wanted);
  return c;
}

ApplyResult sample() {
  ApplyResult result;
  PortResult lan2;
  lan2.netdev = "lan2";
  lan2.outcome = Outcome::Applied;
  lan2.steps = {{change(plan::Setting::Dcbx, "firmware", "host"), true, 1, ""},
                {change(plan::Setting::Mtu, "1500", "9000"), true, 3, ""}};
  lan2.steps[1].change.disruptive = true;
  PortResult lan3;
  lan3.netdev = "lan3";
  lan3.outcome = Outcome::RolledBack;
  lan3.error = "mtu: EIO: lan3: set MTU 9000: Input/output error";
  lan3.steps = {{change(plan::Setting::PfcPriorities, "none", "3"), true, 1, ""},
                {change(plan::Setting::Mtu, "1500", "9000"), false, 1,
                 "EIO: lan3: set MTU 9000: Input/output error"}};
  lan3.rollback = {{change(plan::Setting::PfcPriorities, "3", "none"), true, 1, ""}};
  PortResult lan4;
  lan4.netdev = "lan4";
  lan4.unsupported = {{plan::Setting::EcnPriorities, "",
                       "the inbox driver has no per-priority "
                       "ECN enable"}};
  lan4.findings = {finding::make(plan::kGidIndexMoved, "lan4",
                                 "RoCE v2 GID index is 5, the config says jobs use 3", "3", "5")};
  result.ports = {lan2, lan3, lan4};
  return result;
}

TEST(ApplyFormat, Text) {
  EXPECT_EQ(
      format_apply_text(sample()),
      "lan2: applied 2 changes\n"
      "  ok           dcbx              firmware -> host\n"
      "  ok, 3 tries  mtu               1500 -> 9000\n"
      "lan3: rolled back (mtu: EIO: lan3: set MTU 9000: Input/output error)\n"
      "  ok      pfc.priorities    none -> 3\n"
      "  FAILED  mtu               1500 -> 9000\n"
      "          EIO: lan3: set MTU 9000: Input/output error\n"
      "  undone, in reverse order:\n"
      "  ok      pfc.priorities    3 -> none\n"
      "lan4: in sync\n"
      "  ecn.priorities    unsupported: the inbox driver has no per-priority ECN enable\n"
      "  critical: rocev2_gid_index_moved: RoCE v2 GID index is 5, the config says jobs use 3\n"
      "3 ports: 1 in sync, 1 applied, 1 rolled back\n");
}

TEST(ApplyFormat, Json) {
  const auto json = apply_to_json(sample());
  EXPECT_EQ(json["changed"], true);
  EXPECT_EQ(json["ok"], false);
  ASSERT_EQ(json["ports"].size(), 3u);
  const auto& lan2 = json["ports"][0];
  EXPECT_EQ(lan2["netdev"], "lan2");
  EXPECT_EQ(lan2["outcome"], "applied");
  EXPECT_EQ(lan2["changed"], true);
  EXPECT_EQ(lan2["changes"][1].dump(),
            R"({"setting":"mtu","now":"1500","wanted":"9000","disruptive":true,"ok":true,)"
            R"("attempts":3,"error":null})");
  EXPECT_EQ(lan2["rollback"].dump(), "[]");
  EXPECT_EQ(lan2["error"], nullptr);
  const auto& lan3 = json["ports"][1];
  EXPECT_EQ(lan3["outcome"], "rolled-back");
  EXPECT_EQ(lan3["changed"], true);
  EXPECT_EQ(lan3["changes"][1]["ok"], false);
  EXPECT_EQ(lan3["changes"][1]["error"], "EIO: lan3: set MTU 9000: Input/output error");
  EXPECT_EQ(lan3["rollback"][0]["setting"], "pfc.priorities");
  EXPECT_EQ(lan3["rollback"][0]["now"], "3");
  EXPECT_EQ(lan3["rollback"][0]["wanted"], "none");
  EXPECT_EQ(lan3["error"], "mtu: EIO: lan3: set MTU 9000: Input/output error");
  const auto& lan4 = json["ports"][2];
  EXPECT_EQ(lan4["outcome"], "in-sync");
  EXPECT_EQ(lan4["changed"], false);
  EXPECT_EQ(lan4["unsupported"].dump(),
            R"([{"setting":"ecn.priorities","reason":"the inbox driver has no per-priority ECN )"
            R"(enable"}])");
  EXPECT_EQ(lan4["warnings"][0], "RoCE v2 GID index is 5, the config says jobs use 3");
  EXPECT_EQ(lan4["findings"][0]["id"], "rocev2_gid_index_moved");
  EXPECT_EQ(lan4["findings"][0]["severity"], "critical");
  EXPECT_EQ(lan4["findings"][0]["wanted"], "3");
  EXPECT_EQ(lan4["findings"][0]["found"], "5");
  // The key order is part of the contract (docs/plan-json.md).
  std::vector<std::string> keys;
  for (const auto& [key, value] : lan4.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"netdev", "outcome", "changed", "changes", "rollback",
                                            "unsupported", "warnings", "findings", "headroom",
                                            "carrier", "unread", "error"}));
}

}  // namespace
}  // namespace roced::apply
