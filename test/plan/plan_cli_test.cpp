// SPDX-License-Identifier: Apache-2.0
// `rocectl plan` and `rocectl nccl-env` against a running roce-sim (default node: lan2..lan5 on
// mlx5_0..mlx5_3, firmware defaults, RoCE v2 IPv4 GID at index 3 on every port).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "run_command.hpp"
#include "sim_node.hpp"
#include "test/support/build_paths.hpp"

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
            "export NCCL_SOCKET_IFNAME==lan2,lan3,lan4,lan5\n"
            "export NCCL_IB_GID_INDEX=3\n"
            "export NCCL_IB_TC=106\n"
            "export UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1\n"
            "export UCX_IB_GID_INDEX=3\n"
            "export UCX_IB_TRAFFIC_CLASS=106\n");
}

// The same variables for an EnvironmentFile= (or docker --env-file) and as one JSON document.
TEST_F(PlanCli, NcclEnvAsAnEnvFileAndAsJson) {
  const std::string file = config("ports: {netdevs: [lan2, lan3]}\n").string();
  const auto env = rocectl({"nccl-env", "--config", file, "--format", "env"});
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_EQ(env.out,
            "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1\n"
            "NCCL_SOCKET_IFNAME==lan2,lan3\n"
            "NCCL_IB_GID_INDEX=3\n"
            "NCCL_IB_TC=106\n"
            "UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1\n"
            "UCX_IB_GID_INDEX=3\n"
            "UCX_IB_TRAFFIC_CLASS=106\n");
  const auto json = rocectl({"nccl-env", "--config", file, "--json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const Json doc = Json::parse(json.out);
  EXPECT_EQ(doc.at("schema"), "roced.nccl-env/v1");
  EXPECT_EQ(doc.at("for"), "host");
  EXPECT_EQ(doc.at("variables").at("NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(doc.at("variables").at("UCX_IB_TRAFFIC_CLASS"), "106");
  EXPECT_TRUE(doc.at("in_pod").empty());
  const fs::path document = dir_ / "nccl-env.json";
  std::ofstream(document) << json.out;
  const std::string source = ROCED_SOURCE_DIR;
  const auto schema =
      test::run_command({"python3", source + "/test/schema/check_json.py",
                         source + "/docs/schema/roced.nccl-env.v1.json", document.string()});
  EXPECT_EQ(schema.exit_code, 0) << schema.out << schema.err;
  // The pods' values are read in the pod: no env file can carry them.
  const auto pods_env = rocectl({"nccl-env", "--config", file, "--pods", "--format", "env"});
  EXPECT_EQ(pods_env.exit_code, 1);
  EXPECT_TRUE(contains(pods_env.err, "--format env cannot carry them")) << pods_env.err;
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

// --output: the file jobs source, written whole with mode 0644, rewritten only when it changes.
TEST_F(PlanCli, NcclEnvOutputWritesTheFileOnlyWhenItChanges) {
  const std::string file = config("ports: {netdevs: [lan2, lan3]}\n").string();
  const std::string out = (dir_ / "nccl.env").string();
  const auto first = rocectl({"nccl-env", "--config", file, "--output", out});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "");
  EXPECT_EQ(first.err, "rocectl: wrote " + out + "\n");
  std::ifstream written(out);
  const std::string text{std::istreambuf_iterator<char>(written), {}};
  EXPECT_EQ(text, rocectl({"nccl-env", "--config", file}).out);
  EXPECT_EQ(fs::status(out).permissions(), fs::perms(0644));
  const auto again = rocectl({"nccl-env", "--config", file, "--output", out});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err, "");  // unchanged: nothing written, nothing said

  const auto nowhere =
      rocectl({"nccl-env", "--config", file, "--output", (dir_ / "no/such/dir").string()});
  EXPECT_EQ(nowhere.exit_code, 1);
  EXPECT_TRUE(contains(nowhere.err, "cannot create a temporary file")) << nowhere.err;
}

TEST_F(PlanCli, NcclEnvEveryNeedsAnOutputAndADuration) {
  const std::string file = config("ports: {netdevs: [lan2]}\n").string();
  const std::string out = (dir_ / "nccl.env").string();
  const auto alone = rocectl({"nccl-env", "--config", file, "--every", "60s"});
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_TRUE(contains(alone.err, "--every needs --output FILE")) << alone.err;
  for (const std::string bad : {"", "60x", "0s", "500ms", "25h"}) {
    const auto run = rocectl({"nccl-env", "--config", file, "--output", out, "--every=" + bad});
    EXPECT_EQ(run.exit_code, 1) << bad;
    EXPECT_TRUE(contains(run.err, "--every takes a duration")) << bad << ": " << run.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

// --every as the sidecar runs it: the file at once, then SIGTERM ends it with status 0 (as a
// container's PID 1 too, where a signal with no handler is ignored).
TEST_F(PlanCli, NcclEnvEveryWritesAtOnceAndStopsOnSigterm) {
  const std::string file = config("ports: {netdevs: [lan2, lan3]}\n").string();
  const std::string out = (dir_ / "nccl.env").string();
  int err_pipe[2];
  ASSERT_EQ(::pipe(err_pipe), 0);
  const test::ExecImage image({ROCECTL_BINARY, "--sim", dir_.string(), "nccl-env", "--config", file,
                               "--output", out, "--every", "1h"});
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    image.exec();
    ::_exit(127);
  }
  ::close(err_pipe[1]);
  // Its first line comes once the file is written: no time to guess.
  std::string err;
  char c = 0;
  while (::read(err_pipe[0], &c, 1) == 1 && c != '\n') err += c;
  EXPECT_EQ(err,
            "rocectl: " + out +
                " written: NCCL_IB_GID_INDEX 3 (new), NCCL_IB_HCA =mlx5_0:1,mlx5_1:1 (new), "
                "NCCL_IB_TC 106 (new), NCCL_SOCKET_IFNAME =lan2,lan3 (new), UCX_IB_GID_INDEX 3 "
                "(new), UCX_IB_TRAFFIC_CLASS 106 (new), UCX_NET_DEVICES mlx5_0:1,mlx5_1:1 (new)");
  EXPECT_TRUE(fs::exists(out));
  ASSERT_EQ(::kill(child, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::string rest;
  while (::read(err_pipe[0], &c, 1) == 1) rest += c;
  ::close(err_pipe[0]);
  EXPECT_EQ(rest, "rocectl: stopping\n");
  EXPECT_TRUE(fs::exists(out));  // the jobs' file stays: the node's settings did not go away
}

// Eight rails, each with 63 pods on macvlan whose GID entries fill its table
// (sim/nodes/eight-rail-pods.yaml).
class PodsCli : public PlanCli {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/eight-rail-pods.yaml";
  }
  void inject(const std::string& events) const {
    const fs::path file = dir_ / "inject.yaml";
    std::ofstream(file) << "events:\n" << events;
    const auto injected =
        test::run_command({ROCE_SIM_BINARY, "inject", dir_.string(), file.string()});
    ASSERT_EQ(injected.exit_code, 0) << injected.err;
  }
  // The node rewrites its files at 10 Hz: waits until mlx5_0's GID slot `index` holds `gid`.
  void await_gid(int index, const std::string& gid) const {
    const fs::path file = dir_ / "sys/class/infiniband/mlx5_0/ports/1/gids" / std::to_string(index);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      std::string text;
      std::getline(std::ifstream(file), text);
      if (text == gid) return;
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << file << " holds " << text;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
};

const std::string kEmptyGid = "0000:0000:0000:0000:0000:0000:0000:0000";

TEST_F(PodsCli, NcclEnvGivesTheHostsIndexAndSaysWhatHoldsInPods) {
  const fs::path file = config("ports: {netdevs: [\"rail*\"]}\n");
  const auto host = rocectl({"nccl-env", "--config", file.string()});
  EXPECT_EQ(host.exit_code, 0) << host.err;
  EXPECT_TRUE(contains(host.out, "export NCCL_IB_GID_INDEX=3\n")) << host.out;
  // 63 pods x 4 entries, less the one a full table dropped, on each of the 8 rails.
  EXPECT_TRUE(contains(host.out,
                       "# 2008 GID entries on 8 of the ports belong to netdevs in other "
                       "network namespaces (net1): pods on macvlan.\n"))
      << host.out;
  EXPECT_TRUE(contains(host.out, "rocectl nccl-env --pods")) << host.out;

  const auto pods = rocectl({"nccl-env", "--config", file.string(), "--pods"});
  EXPECT_EQ(pods.exit_code, 0) << pods.err;
  EXPECT_FALSE(contains(pods.out, "export NCCL_IB_GID_INDEX")) << pods.out;
  EXPECT_TRUE(contains(pods.out, "export NCCL_IB_ROCE_VERSION_NUM=2\n")) << pods.out;
  EXPECT_TRUE(contains(pods.out, "export NCCL_IB_ADDR_FAMILY=AF_INET\n")) << pods.out;
  EXPECT_TRUE(contains(pods.out, "export NCCL_IB_ADDR_RANGE=\"$(ip -o -4 addr show dev net1 "))
      << pods.out;
  EXPECT_TRUE(contains(pods.out, "export NCCL_IB_TC=106\n")) << pods.out;

  // A rail without pods has nothing to say about them.
  inject("  - {at: 0s, kind: pods, port: rail0, stop: 63}\n");
  await_gid(4, kEmptyGid);
  const auto fewer = rocectl({"nccl-env", "--config", file.string()});
  EXPECT_TRUE(contains(fewer.out, "# 1757 GID entries on 7 of the ports")) << fewer.out;
}

// Pods with a netdev on each rail (sim/nodes/multi-rail-pods.yaml: net1 on rail0, net2 on rail1).
class MultiRailPodsCli : public PodsCli {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/multi-rail-pods.yaml";
  }
};

TEST_F(MultiRailPodsCli, NcclEnvLooksUpThePodsIndexOnEveryRail) {
  const std::string file = config("ports: {netdevs: [\"rail*\"]}\n").string();
  const auto pods = rocectl({"nccl-env", "--config", file, "--pods"});
  EXPECT_EQ(pods.exit_code, 0) << pods.err;
  EXPECT_TRUE(contains(pods.out, "export NCCL_SOCKET_IFNAME==net1,net2\n")) << pods.out;
  // One range cannot name an address per rail: no NCCL_IB_ADDR_RANGE, and not net1 alone.
  EXPECT_FALSE(contains(pods.out, "NCCL_IB_ADDR_RANGE=")) << pods.out;
  EXPECT_TRUE(contains(pods.out, "for rail in mlx5_0:1:net1 mlx5_1:1:net2; do")) << pods.out;
  EXPECT_TRUE(contains(pods.out, "export NCCL_IB_GID_INDEX=$index UCX_IB_GID_INDEX=$index"))
      << pods.out;
  EXPECT_TRUE(contains(pods.out, "export UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1\n")) << pods.out;
  const Json doc = Json::parse(rocectl({"nccl-env", "--config", file, "--pods", "--json"}).out);
  EXPECT_EQ(doc.at("for"), "pods");
  ASSERT_EQ(doc.at("in_pod").size(), 1u) << doc.dump();
  EXPECT_EQ(doc.at("in_pod").at(0).at("sets"),
            Json::array({"NCCL_IB_GID_INDEX", "UCX_IB_GID_INDEX"}));

  // The script run as the pod would, against the node's sysfs: pod 2's addresses are
  // 10.200.0.2 and 10.201.0.2, whose RoCE v2 GID is index 9 on both rails (after the host's four
  // entries and pod 1's four).
  std::string script = doc.at("in_pod").at(0).at("shell").get<std::string>();
  const std::string sys = (dir_ / "sys/class/infiniband").string();
  const std::string kSys = "/sys/class/infiniband";
  for (auto at = script.find(kSys); at != std::string::npos;
       at = script.find(kSys, at + sys.size())) {
    script.replace(at, kSys.size(), sys);
  }

  const std::string fake_ip =
      "ip() { case \"$6\" in net1) echo '9: net1 inet 10.200.0.2/16 scope global';; "
      "net2) echo '9: net2 inet 10.201.0.2/16 scope global';; esac; }\n";
  const auto run = test::run_command(
      {"/bin/sh", "-c", fake_ip + script + "\necho \"$NCCL_IB_GID_INDEX $UCX_IB_GID_INDEX\""});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "9 9\n") << run.err;
}

TEST_F(PodsCli, APlanSaysWhenPodsLeftNoGidEntryForTheHostsAddress) {
  const fs::path file = config("ports: {netdevs: [rail0]}\n");
  // The host's address goes, a new pod takes its two entries, and the address comes back.
  inject("  - {at: 0s, kind: address, port: rail0, remove: [192.168.100.10/24]}\n");
  await_gid(3, kEmptyGid);
  inject("  - {at: 0s, kind: pods, port: rail0, start: 1}\n");
  await_gid(3, "0000:0000:0000:0000:0000:ffff:0ac8:0040");  // the 64th pod, 10.200.0.64
  inject("  - {at: 0s, kind: address, port: rail0, add: [192.168.100.10/24]}\n");
  const auto plan = rocectl({"plan", "--config", file.string(), "--json"});
  const Json doc = Json::parse(plan.out);
  ASSERT_EQ(doc["ports"].size(), 1u) << plan.out;
  EXPECT_TRUE(doc["ports"][0]["roce_v2_gid_index"].is_null()) << plan.out;
  ASSERT_EQ(doc["ports"][0]["warnings"].size(), 1u) << plan.out;
  EXPECT_EQ(doc["ports"][0]["warnings"][0],
            "no RoCE v2 GID with an IPv4 address on rail0: the GID table is full (255 entries, "
            "253 of them of netdevs in other network namespaces: net1, pods), so the kernel had "
            "no entry left for the address");
}

// Pods whose netdev is named like the host's ports (sim/nodes/pods-named-like-ports.yaml): their
// GID entries are told from the host's by address, not by the name sysfs prints.
class PodsNamedLikePortsCli : public PodsCli {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/pods-named-like-ports.yaml";
  }
};

TEST_F(PodsNamedLikePortsCli, NcclEnvCountsThePodsNamedLikeAPortAsPods) {
  const auto env =
      rocectl({"nccl-env", "--config", config("ports: {netdevs: [\"*\"]}\n").string()});
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_TRUE(contains(env.out, "export NCCL_IB_GID_INDEX=3\n")) << env.out;
  EXPECT_TRUE(contains(env.out,
                       "# 32 GID entries on 2 of the ports belong to netdevs in other network "
                       "namespaces (eth1): pods on macvlan.\n"))
      << env.out;
}

TEST_F(PodsNamedLikePortsCli, APodNamedLikeThePortIsNotTheHostsGid) {
  const fs::path file = config("ports: {netdevs: [eth1]}\n");
  // The host's address goes, a pod named eth1 takes its two slots, and the address comes back
  // after the pods' entries.
  inject("  - {at: 0s, kind: address, port: eth1, remove: [192.168.100.10/24]}\n");
  await_gid(3, kEmptyGid);
  inject("  - {at: 0s, kind: pods, port: eth1, start: 1}\n");
  await_gid(3, "0000:0000:0000:0000:0000:ffff:0ac8:0005");  // the 5th pod, 10.200.0.5
  inject("  - {at: 0s, kind: address, port: eth1, add: [192.168.100.10/24]}\n");
  await_gid(23, "0000:0000:0000:0000:0000:ffff:c0a8:640a");  // after the pod's link-local pair
  const auto plan = rocectl({"plan", "--config", file.string(), "--json"});
  const Json doc = Json::parse(plan.out);
  ASSERT_EQ(doc["ports"].size(), 1u) << plan.out;
  EXPECT_EQ(doc["ports"][0]["roce_v2_gid_index"], 23) << plan.out;
  const auto status = rocectl({"status", "--direct", "--port", "eth1"});
  EXPECT_TRUE(contains(status.out, "v2/IPv4 index 23 (::ffff:192.168.100.10)")) << status.out;
}

}  // namespace
}  // namespace roced
