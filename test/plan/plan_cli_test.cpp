// SPDX-License-Identifier: Apache-2.0
// `rocectl plan` and `rocectl nccl-env` against a running roce-sim (default node: lan2..lan5 on
// mlx5_0..mlx5_3, firmware defaults, RoCE v2 IPv4 GID at index 3 on every port).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_command.hpp"
#include "sim_node.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class PlanCli : public test::SimNode {
 protected:
  fs::path config(const std::string& text) const {
    const fs::path path = dir_ / "roced.yaml";
    std::ofstream(path) << text;
    return path;
  }
  test::CommandResult rocectl(std::vector<std::string> args) const {
    args.insert(args.begin(), {ROCECTL_BINARY, "--sim", dir_.string()});
    return test::run_command(args);
  }
};

TEST_F(PlanCli, PendingChangesExitTwoAndInSyncExitZero) {
  const fs::path file = config("ports: {netdevs: [\"*\"]}\n");  // the recipe, every mlx5 port
  const auto plan = rocectl({"plan", "--config", file.string()});
  EXPECT_EQ(plan.exit_code, 2) << plan.err;
  // The four ports of the node are in the same state: one block.
  EXPECT_TRUE(contains(plan.out, "lan2-lan5 (RoCE v2 GID 3):")) << plan.out;
  EXPECT_TRUE(contains(plan.out, "changes each, disrupts traffic")) << plan.out;
  EXPECT_TRUE(contains(plan.out, "pfc.priorities    none -> 3   (disruptive)")) << plan.out;
  EXPECT_TRUE(contains(plan.out, "  pfc.priorities: mlx5 flaps the link")) << plan.out;
  // Not a terminal: no colour.
  EXPECT_FALSE(contains(plan.out, "\033[")) << plan.out;
  EXPECT_TRUE(contains(plan.out, "changes pending on 4 of 4 ports")) << plan.out;

  const auto json = rocectl({"plan", "--config", file.string(), "--json"});
  EXPECT_EQ(json.exit_code, 2);
  const Json doc = Json::parse(json.out);
  EXPECT_EQ(doc["changes_pending"], true);
  ASSERT_EQ(doc["ports"].size(), 4u);
  for (const Json& port : doc["ports"]) {
    EXPECT_EQ(port["in_sync"], false) << port.dump();
    EXPECT_EQ(port["disruptive"], true) << port.dump();
    EXPECT_EQ(port["roce_v2_gid_index"], 3) << port.dump();
    EXPECT_EQ(port["changes"][0]["setting"], "dcbx") << port.dump();
  }

  ASSERT_EQ(rocectl({"apply", "--config", file.string()}).exit_code, 0);
  const auto after = rocectl({"plan", "--config", file.string(), "--json"});
  EXPECT_EQ(after.exit_code, 0) << after.out;
  EXPECT_EQ(Json::parse(after.out)["changes_pending"], false);
}

TEST_F(PlanCli, WarnsWhenTheGidIndexJobsUseIsNotTheRoceV2One) {
  const fs::path file = config("ports: {netdevs: [\"*\"]}\nprofile:\n  roce: {gid_index: 5}\n");
  const auto plan = rocectl({"plan", "--config", file.string(), "--json"});
  const Json doc = Json::parse(plan.out);
  ASSERT_EQ(doc["ports"].size(), 4u);
  for (const Json& port : doc["ports"]) {
    ASSERT_EQ(port["warnings"].size(), 1u) << port.dump();
    EXPECT_EQ(port["warnings"][0], "RoCE v2 GID index is 3, the config says jobs use 5");
  }
  const auto same =
      rocectl({"plan", "--config",
               config("ports: {netdevs: [\"*\"]}\nprofile:\n  roce: {gid_index: 3}\n")});
  EXPECT_FALSE(contains(same.out, "jobs use")) << same.out;
}

TEST_F(PlanCli, UnknownPortAndMissingConfigAreErrors) {
  const fs::path file = config("ports: {netdevs: [\"*\"]}\n");
  const auto unknown = rocectl({"plan", "--config", file.string(), "--port", "lan9"});
  EXPECT_EQ(unknown.exit_code, 1);
  const auto missing = rocectl({"plan", "--config", (dir_ / "nope.yaml").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(contains(missing.err, "nope.yaml")) << missing.err;
}

TEST_F(PlanCli, NcclEnvNamesTheDevicesTheGidIndexAndTheTrafficClass) {
  const auto env =
      rocectl({"nccl-env", "--config", config("ports: {netdevs: [\"*\"]}\n").string()});
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_EQ(env.out,
            "export NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1\n"
            "export NCCL_IB_GID_INDEX=3\n"
            "export NCCL_IB_TC=106\n");
}

TEST_F(PlanCli, NcclEnvLeavesOutWhatDiffersBetweenPorts) {
  const auto env = rocectl({"nccl-env", "--config",
                            config("ports: {netdevs: [lan2, lan3]}\n"
                                   "overrides:\n  lan3: {roce: {tos: 138}, dscp_map: {34: 3}}\n")
                                .string()});
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_TRUE(contains(env.out, "export NCCL_IB_HCA==mlx5_0:1,mlx5_1:1\n")) << env.out;
  EXPECT_TRUE(contains(env.out, "export NCCL_IB_GID_INDEX=3\n")) << env.out;
  EXPECT_TRUE(contains(env.out, "# NCCL_IB_TC left unset")) << env.out;
  EXPECT_FALSE(contains(env.out, "export NCCL_IB_TC=")) << env.out;
}

}  // namespace
}  // namespace roced
