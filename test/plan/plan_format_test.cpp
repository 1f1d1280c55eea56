// SPDX-License-Identifier: Apache-2.0
// The plan as text (people) and as JSON (rocectl --json, Ansible): exact output for a plan with
// a port that has changes, one in sync, one that cannot be read, and a configured name missing.
#include <gtest/gtest.h>

#include "daemon/plan/plan.hpp"
#include "observed.hpp"

namespace roced::plan {
namespace {

Plan sample_plan() {
  const config::Profile want = config::default_profile();
  PortStatus lan2 = test::in_sync_status();
  dcb::Pfc pfc = *lan2.pfc.value;
  pfc.enabled_mask = 0;
  lan2.pfc = Field<dcb::Pfc>::of(pfc);
  lan2.stall_prevention = test::unsupported<StallPrevention>("PFC stall prevention");
  lan2.gids = Field<GidStatus>::of(GidStatus{"sysfs", test::ipv4_gid_table(5)});
  config::Profile want_index = want;
  want_index.roce.gid_index = 3;

  PortStatus lan3 = test::in_sync_status();
  lan3.port = DiscoveredPort{"lan3", "mlx5_core", "0000:3d:00.0", "mlx5_1", 1, "mlx5_core", true};
  lan3.gids = Field<GidStatus>::of(GidStatus{"sysfs", {}});

  PortStatus lan4 = test::in_sync_status();
  lan4.port = DiscoveredPort{"lan4", "mlx5_core", "0000:b1:00.0", "mlx5_2", 1, "mlx5_core", true};
  lan4.link = Field<LinkInfo>::from(Error{ENODEV, "lan4: RTM_GETLINK: No such device"}, "link");

  Plan plan;
  plan.source = "simulated node at /tmp/sim";
  plan.config_path = "/etc/roced/roced.yaml";
  plan.ports.push_back(plan_port(lan2.port, want_index, lan2));
  plan.ports.push_back(plan_port(lan3.port, want, lan3));
  plan.ports.push_back(plan_port(lan4.port, want, lan4));
  plan.not_found = {"lan9"};
  return plan;
}

TEST(PlanText, OneBlockPerPort) {
  EXPECT_EQ(
      format_plan_text(sample_plan()),
      "lan2 (mlx5_0:1, RoCE v2 GID 5): 1 change, disrupts traffic\n"
      "  pfc.priorities    none -> 3   (disruptive)\n"
      "  stall_prevention  unsupported: PFC stall prevention is not supported by this "
      "device (EOPNOTSUPP)\n"
      "  critical: rocev2_gid_index_moved: RoCE v2 GID index is 5, the config says jobs use 3\n"
      "lan3 (mlx5_1:1): in sync\n"
      "  warning: no_rocev2_gid: no RoCE v2 GID with an IPv4 address on lan3\n"
      "lan4 (mlx5_2:1): error: cannot read the link: lan4: RTM_GETLINK: No such device "
      "(ENODEV)\n"
      "lan9: not found (named in /etc/roced/roced.yaml, no such netdev)\n"
      "disruptive:\n"
      "  pfc.priorities: mlx5 flaps the link when the PFC mask changes "
      "(mlx5_toggle_port_link)\n"
      "changes pending on 1 of 3 ports\n"
      "links go down one port at a time, each back before the next: lan2\n");
}

// Sixteen rails in the same state are one block; a port that differs has its own. Why a change
// disrupts is said once, however many ports it is on.
TEST(PlanText, PortsWithTheSamePlanAreOneBlock) {
  Plan plan = sample_plan();
  plan.not_found.clear();
  plan.ports.resize(1);  // lan2: PFC none -> 3, a GID warning
  for (const char* netdev : {"lan3", "lan4", "lan6"}) {
    PortPlan copy = plan.ports.front();
    copy.port.netdev = netdev;
    copy.port.rdma_device = std::string("mlx5_") + netdev[3];
    plan.ports.push_back(copy);
  }
  plan.ports[3].changes.front().wanted = "3,4";  // lan6 differs
  const std::string text = format_plan_text(plan);
  EXPECT_EQ(text.rfind("lan2-lan4 (RoCE v2 GID 5): 1 change each, disrupts traffic\n"
                       "  pfc.priorities    none -> 3   (disruptive)\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("lan6 (mlx5_6:1, RoCE v2 GID 5): 1 change, disrupts traffic\n"
                      "  pfc.priorities    none -> 3,4   (disruptive)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("mlx5_toggle_port_link"), text.rfind("mlx5_toggle_port_link")) << text;
  EXPECT_NE(text.find("each back before the next: lan2-lan4, lan6\n"), std::string::npos) << text;
}

// On a terminal what takes links down stands out; nothing else is coloured.
TEST(PlanText, ColourMarksOnlyWhatDisrupts) {
  const std::string text = format_plan_text(sample_plan(), TextStyle{true});
  EXPECT_NE(text.find(": 1 change, \033[1;31mdisrupts traffic\033[0m\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("none -> 3   \033[1;31m(disruptive)\033[0m\n"), std::string::npos) << text;
  size_t escapes = 0;
  for (size_t at = text.find("\033["); at != std::string::npos; at = text.find("\033[", at + 1)) {
    ++escapes;
  }
  EXPECT_EQ(escapes, 4u) << text;
  EXPECT_EQ(format_plan_text(sample_plan()).find('\033'), std::string::npos);
}

TEST(PlanText, AllInSync) {
  Plan plan;
  plan.source = "this machine";
  const PortStatus lan2 = test::in_sync_status();
  plan.ports.push_back(plan_port(lan2.port, config::default_profile(), lan2));
  EXPECT_EQ(format_plan_text(plan),
            "lan2 (mlx5_0:1, RoCE v2 GID 3): in sync\n"
            "the port is in sync\n");
}

TEST(PlanJson, StableShape) {
  const nlohmann::ordered_json json = plan_to_json(sample_plan());
  const auto expected = nlohmann::ordered_json::parse(R"json({
    "schema": "roced.plan/v1",
    "source": "simulated node at /tmp/sim",
    "config": "/etc/roced/roced.yaml",
    "ports": [
      {"netdev": "lan2", "rdma_device": "mlx5_0", "rdma_port": 1, "in_sync": false, "disruptive": true,
       "changes": [{"setting": "pfc.priorities", "now": "none", "wanted": "3",
                    "disruptive": true,
                    "disruption": "mlx5 flaps the link when the PFC mask changes (mlx5_toggle_port_link)"}],
       "unsupported": [{"setting": "stall_prevention",
                        "reason": "PFC stall prevention is not supported by this device (EOPNOTSUPP)"}],
       "warnings": ["RoCE v2 GID index is 5, the config says jobs use 3"],
       "findings": [{"id": "rocev2_gid_index_moved", "severity": "critical", "source": "plan",
                     "subject": "lan2", "about": "", "verdict": "differs", "wanted": "3",
                     "found": "5",
                     "text": "RoCE v2 GID index is 5, the config says jobs use 3"}],
       "roce_v2_gid_index": 5, "error": null},
      {"netdev": "lan3", "rdma_device": "mlx5_1", "rdma_port": 1, "in_sync": true, "disruptive": false,
       "changes": [], "unsupported": [],
       "warnings": ["no RoCE v2 GID with an IPv4 address on lan3"],
       "findings": [{"id": "no_rocev2_gid", "severity": "warning", "source": "plan",
                     "subject": "lan3", "about": "", "verdict": "differs", "wanted": "",
                     "found": "none",
                     "text": "no RoCE v2 GID with an IPv4 address on lan3"}],
       "roce_v2_gid_index": null, "error": null},
      {"netdev": "lan4", "rdma_device": "mlx5_2", "rdma_port": 1, "in_sync": false, "disruptive": false,
       "changes": [], "unsupported": [], "warnings": [], "findings": [], "roce_v2_gid_index": null,
       "error": "cannot read the link: lan4: RTM_GETLINK: No such device (ENODEV)"}
    ],
    "not_found": ["lan9"],
    "changes_pending": true,
    "error": null,
    "not_managed": []
  })json");
  EXPECT_EQ(json, expected) << json.dump(2);
}

TEST(PlanAggregates, ChangesAndErrors) {
  Plan plan = sample_plan();
  EXPECT_TRUE(plan.has_changes());
  EXPECT_TRUE(plan.has_errors());
  plan.ports.erase(plan.ports.begin());  // lan2 had the only change
  EXPECT_FALSE(plan.has_changes());
  plan.ports.pop_back();  // lan4 had the only error
  EXPECT_FALSE(plan.has_errors());
}

}  // namespace
}  // namespace roced::plan
