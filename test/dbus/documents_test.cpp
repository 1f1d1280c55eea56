// SPDX-License-Identifier: Apache-2.0
// The documents of the D-Bus API without a bus: GetStatus's shape, and rocectl reading the plan and
// apply documents back so that it prints what it prints when it does the work itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/daemon_documents.hpp"
#include "daemon/dbus/status_document.hpp"
#include "daemon/lldp/peer_json.hpp"
#include "run_command.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

using Json = nlohmann::ordered_json;

plan::PortPlan lan3_plan() {
  plan::PortPlan port;
  port.port.netdev = "lan3";
  port.port.rdma_device = "mlx5_1";
  port.port.rdma_port = 1;
  port.changes.push_back({plan::Setting::PfcPriorities, "", "4", "3", true,
                          "mlx5 flaps the link when the PFC mask changes"});
  port.changes.push_back({plan::Setting::Dcqcn, "rp_ai_rate", "5", "10", false, ""});
  port.unsupported.push_back({plan::Setting::EcnPriorities, "", "inbox driver"});
  port.findings.push_back(
      finding::make(plan::kGidIndexMoved, "lan3", "RoCE v2 GID index is 5, jobs use 3", "3", "5"));
  port.roce_v2_gid_index = 5;
  return port;
}

plan::Plan two_port_plan() {
  plan::Plan plan;
  plan.source = "simulated node at /tmp/x";
  plan.config_path = "/etc/roced/roced.yaml";
  plan.ports.push_back(lan3_plan());
  plan::PortPlan lan4;
  lan4.port.netdev = "lan4";
  lan4.error = "cannot read the link (ENODEV)";
  plan.ports.push_back(lan4);
  plan.not_found.push_back("lan9");
  return plan;
}

TEST(DbusDocuments, PlanReadBackPrintsTheSameTextAndJson) {
  const plan::Plan plan = two_port_plan();
  const Json sent = Json::parse(plan::plan_to_json(plan).dump());
  const plan::Plan received = cli::plan_from_json(sent);
  EXPECT_EQ(plan::plan_to_json(received), plan::plan_to_json(plan));
  // The text shows "mlx5_1:1": the daemon adds rdma_port, which plan_to_json leaves out.
  Json with_port = sent;
  with_port["ports"][0]["rdma_port"] = 1;
  EXPECT_EQ(plan::format_plan_text(cli::plan_from_json(with_port)), plan::format_plan_text(plan));
  EXPECT_EQ(received.has_changes(), plan.has_changes());
  EXPECT_EQ(received.has_errors(), plan.has_errors());
}

TEST(DbusDocuments, ApplyResultReadBackPrintsTheSameText) {
  apply::ApplyResult result;
  apply::PortResult lan3;
  lan3.netdev = "lan3";
  lan3.outcome = apply::PortResult::Outcome::RolledBack;
  lan3.error = "EIO: set PFC";
  const auto plan = lan3_plan();
  lan3.steps.push_back({plan.changes[0], false, 5, "EIO: set PFC"});
  lan3.rollback.push_back({plan.changes[1], true, 1, ""});
  lan3.unsupported = plan.unsupported;
  lan3.findings = plan.findings;
  result.ports.push_back(lan3);
  apply::PortResult lan4;
  lan4.netdev = "lan4";
  lan4.outcome = apply::PortResult::Outcome::Applied;
  lan4.steps.push_back({plan.changes[1], true, 2, ""});
  result.ports.push_back(lan4);

  const auto received =
      cli::apply_result_from_json(Json::parse(apply::apply_to_json(result).dump()));
  EXPECT_EQ(apply::format_apply_text(received), apply::format_apply_text(result));
  EXPECT_EQ(apply::apply_to_json(received), apply::apply_to_json(result));
  EXPECT_EQ(received.ok(), result.ok());
}

TEST(DbusDocuments, AnUnknownSettingIsAnErrorNotAGuess) {
  Json doc = plan::plan_to_json(two_port_plan());
  doc["ports"][0]["changes"][0]["setting"] = "pfc.colour";
  EXPECT_THROW(cli::plan_from_json(doc), std::invalid_argument);
}

TEST(DbusDocuments, StatusSaysConditionDriftAndLastApplyPerPort) {
  reconcile::PortSnapshot drifted;
  drifted.port = lan3_plan().port;
  drifted.condition = reconcile::PortCondition::Drifted;
  drifted.last_plan = lan3_plan();
  drifted.last_check = reconcile::Clock::from_time_t(1714564800);  // 2024-05-01T12:00:00Z
  apply::PortResult applied;
  applied.netdev = "lan3";
  applied.outcome = apply::PortResult::Outcome::Applied;
  applied.steps.push_back({drifted.last_plan.changes[0], true, 1, ""});
  drifted.last_apply = std::make_shared<const apply::PortResult>(applied);
  drifted.last_apply_time = reconcile::Clock::from_time_t(1714564801);
  drifted.consecutive_failures = 2;

  reconcile::PortSnapshot pending;
  pending.port.netdev = "lan4";

  const Json doc = dbus::status_to_json({"1.0", "/etc/roced/roced.yaml", "", "this machine", {}},
                                        "2 ports: 1 drifted", {drifted, pending});
  EXPECT_EQ(doc["daemon"]["status"], "2 ports: 1 drifted");
  EXPECT_TRUE(doc["daemon"]["sim_dir"].is_null());
  ASSERT_EQ(doc["ports"].size(), 2u);
  const Json& lan3 = doc["ports"][0];
  EXPECT_EQ(lan3["condition"], reconcile::condition_name(reconcile::PortCondition::Drifted));
  ASSERT_EQ(lan3["drift"].size(), 2u);
  EXPECT_EQ(lan3["drift"][0]["setting"], "pfc.priorities");
  EXPECT_EQ(lan3["drift"][0]["now"], "4");
  EXPECT_EQ(lan3["drift"][0]["wanted"], "3");
  EXPECT_EQ(lan3["drift"][1]["setting"], "ecn.dcqcn.rp_ai_rate");
  EXPECT_EQ(lan3["last_check"], "2024-05-01T12:00:00Z");
  EXPECT_EQ(lan3["last_apply"]["time"], "2024-05-01T12:00:01Z");
  EXPECT_EQ(lan3["last_apply"]["outcome"], "applied");
  EXPECT_EQ(lan3["last_apply"]["settings"], Json::array({"pfc.priorities"}));
  EXPECT_EQ(lan3["consecutive_failures"], 2);
  EXPECT_TRUE(lan3["observed"].is_object());
  const Json& lan4 = doc["ports"][1];
  EXPECT_TRUE(lan4["last_check"].is_null());
  EXPECT_TRUE(lan4["last_apply"].is_null());
  EXPECT_TRUE(lan4["observed"].is_null());  // never read: nothing to show

  const std::string text = cli::format_daemon_status_text(doc);
  EXPECT_NE(text.find("lan3 (mlx5_1:1): drifted"), std::string::npos) << text;
  EXPECT_NE(text.find("pfc.priorities: 4 (wanted 3)"), std::string::npos) << text;
  EXPECT_NE(text.find("failures 2 in a row"), std::string::npos) << text;
}

// A port's peer in GetStatus: the switch, each finding with both values, in the JSON (checked
// against docs/schema) and in rocectl's text.
TEST(DbusDocuments, StatusCarriesEachPortsPeer) {
  lldp::PortPeer peer;
  peer.netdev = "lan3";
  lldp::Lldpdu l;
  l.chassis_id = "0c:42:a1:00:00:01";
  l.port_id = "swp3";
  l.port_description = "swp3";
  l.system_name = "leaf1";
  l.ttl = 120;
  l.pfc = lldp::Pfc{false, false, 8, 1u << 4};
  l.app = std::vector<dcb::AppEntry>{{5, 4, 26}};
  l.max_frame_size = 9216;
  peer.neighbour = lldp::Neighbour{l, {}, {}, {}, 3};
  peer.neighbours = 1;
  peer.frames = 3;
  peer.dropped = {{"truncated", 1}};
  peer.report = {lldp::PeerState::Compared,
                 {finding::make(lldp::kSwitchPfcPriorities, "lan3",
                                "PFC priorities differ: host 3, switch 4", "3", "4"),
                  finding::make(lldp::kSwitchWilling, "lan3",
                                "the switch is willing to take a peer's settings: host not "
                                "advertising (roced only listens), switch willing (PFC)",
                                "not advertising (roced only listens)", "willing (PFC)")}};
  reconcile::PortSnapshot lan3;
  lan3.port = lan3_plan().port;
  reconcile::PortSnapshot lan4;
  lan4.port.netdev = "lan4";
  lldp::PortPeer silent;
  silent.netdev = "lan4";
  silent.report.state = lldp::PeerState::NoPeer;
  const Json doc = dbus::status_to_json({"1.0", "/etc/roced/roced.yaml", "", "this machine", {}},
                                        "2 ports", {lan3, lan4}, {},
                                        {{"lan3", peer}, {"lan4", silent}}, peer.report.findings);
  const Json& p = doc["ports"][0]["peer"];
  EXPECT_EQ(p["state"], "compared");
  EXPECT_EQ(p["switch"]["system_name"], "leaf1");
  EXPECT_EQ(p["switch"]["pfc"]["priorities"], Json::array({4}));
  EXPECT_EQ(p["switch"]["dscp"]["26"], 4);
  // The peer keeps the shape it always had; the port's "findings" has them as findings.
  EXPECT_EQ(p["findings"][0]["name"], "pfc_priorities");
  EXPECT_EQ(p["findings"][0]["severity"], "mismatch");
  EXPECT_EQ(p["findings"][0]["host"], "3");
  EXPECT_EQ(p["findings"][0]["switch"], "4");
  EXPECT_EQ(p["findings"][1]["name"], "peer_willing");
  // The switch's differences (the peer watch module's findings) are also the port's findings:
  // one list of what is wrong.
  const Json& all = doc["ports"][0]["findings"];
  ASSERT_EQ(all.size(), 2u) << all.dump();  // lan3 was never checked: the switch's only
  EXPECT_EQ(all[0]["id"], "switch_pfc_priorities");
  EXPECT_EQ(all[1]["id"], "switch_willing");
  EXPECT_EQ(p["dropped"]["truncated"], 1);
  EXPECT_TRUE(doc["ports"][1]["peer"]["switch"].is_null());

  const std::string text = cli::format_daemon_status_text(doc);
  EXPECT_NE(text.find("  switch   leaf1 swp3 (IEEE DCBX)\n"), std::string::npos) << text;
  EXPECT_NE(
      text.find("  critical: switch_pfc_priorities: PFC priorities differ: host 3, switch 4\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("  info: switch_willing: the switch is willing"), std::string::npos) << text;
  EXPECT_NE(text.find("  switch   no LLDP heard\n"), std::string::npos) << text;

  const auto file = std::filesystem::path(::testing::TempDir()) / "status-with-peer.json";
  std::ofstream(file) << doc.dump();
  const std::string source = ROCED_SOURCE_DIR;
  const auto checked =
      test::run_command({"python3", source + "/test/schema/check_json.py",
                         source + "/docs/schema/roced.status.v1.json", file.string()});
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
}

}  // namespace
}  // namespace roced
