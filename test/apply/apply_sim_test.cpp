// SPDX-License-Identifier: Apache-2.0
// `rocectl apply` against a running roce-sim (default node: lan2..lan5, inbox driver, firmware
// defaults), checked with unmodified iproute2 and ethtool through `roce-sim exec`, the sim's files
// and its write counter (DIR/roce-sim.writes).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "node_files.hpp"
#include "run_command.hpp"
#include "sim_exec.hpp"
#include "sim_node.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

using test::contains;
using test::read_file;
using test::read_writes;
using test::write_file;
constexpr const char* kConfig = test::kLosslessConfig;

class ApplySim : public test::SimNode {
 protected:
  void SetUp() override {
    test::SimNode::SetUp();
    config_ = dir_ / "roced.yaml";
    write_file(config_, kConfig);
  }

  test::CommandResult rocectl(std::vector<std::string> args) const {
    args.insert(args.begin(), {ROCECTL_BINARY, "--sim", dir_.string()});
    return test::run_command(args);
  }
  test::CommandResult apply(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"apply", "--config", config_.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return rocectl(args);
  }
  // A command of unmodified iproute2 / ethtool against the node; its stdout.
  std::string exec(std::vector<std::string> command) const {
    const auto result = test::sim_exec(dir_, command);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.out;
  }
  std::string pci_of(const std::string& netdev) const {
    return fs::read_symlink(dir_ / "sys/class/net" / netdev / "device").filename().string();
  }
  // File writes reach the sim through inotify, after the writer is done. Inotify events come in
  // order, so once a write of our own shows in the counter, every earlier one has been counted.
  // The write is a same-value one to lan2's np_cnp_dscp: it counts one on lan2.
  std::map<std::string, uint64_t> writes_after_barrier() const {
    const fs::path knob = dir_ / "debug/mlx5" / pci_of("lan2") / "cc_params/np_cnp_dscp";
    const uint64_t before = read_writes(dir_)["total"];
    write_file(knob, read_file(knob));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (read_writes(dir_)["total"] <= before && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return read_writes(dir_);
  }

  fs::path config_;
};

TEST_F(ApplySim, ConfiguresEveryPortAsIproute2AndEthtoolShow) {
  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "4 ports: 4 applied")) << result.out;

  const std::string pfc = exec({"dcb", "pfc", "show", "dev", "lan3"});
  EXPECT_TRUE(contains(pfc, "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off")) << pfc;
  EXPECT_TRUE(contains(pfc, "delay 10")) << pfc;
  const std::string app = exec({"dcb", "-N", "app", "show", "dev", "lan3"});
  EXPECT_TRUE(contains(app, " 26:3 ")) << app;
  EXPECT_TRUE(contains(app, " 48:6 ")) << app;
  const std::string ets = exec({"dcb", "ets", "show", "dev", "lan3"});
  EXPECT_TRUE(contains(ets, "tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:strict 7:ets")) << ets;
  EXPECT_TRUE(contains(ets, "tc-bw 0:10 1:10 2:10 3:50 4:10 5:5")) << ets;
  EXPECT_TRUE(contains(ets, "prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7")) << ets;
  const std::string dcbx = exec({"dcb", "dcbx", "show", "dev", "lan3"});
  EXPECT_TRUE(contains(dcbx, "host")) << dcbx;
  const std::string link = exec({"ip", "link", "show", "lan3"});
  EXPECT_TRUE(contains(link, " mtu 9000 ")) << link;
  const std::string stall = exec({"ethtool", "--get-tunable", "lan3", "pfc-prevention-tout"});
  EXPECT_TRUE(contains(stall, "pfc-prevention-tout: 100")) << stall;  // auto reads back as 100

  const fs::path cm = dir_ / "config/rdma_cm/mlx5_1/ports/1";
  EXPECT_EQ(read_file(cm / "default_roce_mode"), "RoCE v2\n");
  EXPECT_EQ(read_file(cm / "default_roce_tos"), "106\n");
  const fs::path cc = dir_ / "debug/mlx5" / pci_of("lan3") / "cc_params";
  EXPECT_EQ(read_file(cc / "np_cnp_prio_mode"), "0\n");
  EXPECT_EQ(read_file(cc / "np_cnp_prio"), "6\n");
  EXPECT_EQ(read_file(cc / "np_cnp_dscp"), "48\n");

  const auto plan = rocectl({"plan", "--config", config_.string()});
  EXPECT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  EXPECT_TRUE(contains(plan.out, "all 4 ports in sync")) << plan.out;
}

TEST_F(ApplySim, OneWriteRequestPerFeatureAndASecondApplyWritesNothing) {
  const auto first = apply({"--json"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const Json applied = Json::parse(first.out);
  EXPECT_EQ(applied["changed"], true);
  EXPECT_EQ(applied["ok"], true);
  const auto after_first = writes_after_barrier();
  // Per port: DCBX, the APP table (one add), ETS, MTU, 802.3x pause, PFC (priorities and cable
  // length), stall prevention, np_cnp_prio_mode, np_cnp_prio, the rdma_cm mkdir and ToS (the mode
  // already reads RoCE v2) = 11; lan2 has the barrier write on top.
  EXPECT_EQ(after_first.at("lan2"), 12u);
  EXPECT_EQ(after_first.at("lan3"), 11u);
  EXPECT_EQ(after_first.at("lan4"), 11u);
  EXPECT_EQ(after_first.at("lan5"), 11u);

  const auto second = apply({"--json"});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  const Json again = Json::parse(second.out);
  EXPECT_EQ(again["changed"], false);
  EXPECT_EQ(again["ok"], true);
  ASSERT_EQ(again["ports"].size(), 4u);
  for (const auto& port : again["ports"]) {
    EXPECT_EQ(port["outcome"], "in-sync") << port.dump();
    EXPECT_EQ(port["changes"].size(), 0u);
  }
  auto after_second = writes_after_barrier();
  // Only the second barrier write moved the counter.
  EXPECT_EQ(after_second["total"], after_first.at("total") + 1);
  EXPECT_EQ(after_second["lan2"], after_first.at("lan2") + 1);
  EXPECT_EQ(after_second["lan3"], after_first.at("lan3"));
  EXPECT_EQ(after_second["lan4"], after_first.at("lan4"));
  EXPECT_EQ(after_second["lan5"], after_first.at("lan5"));
}

// maxrate: a setting the profile manages only when it names it; one setmaxrate per port, read
// back by iproute2, and a second apply has nothing to do.
TEST_F(ApplySim, TcRateCapsAreWrittenOnceAndReadBackByDcb) {
  write_file(config_, std::string(kConfig) + "  maxrate: [0, 0, 0, 0, 0, 0, 400, 40000]\n");
  const auto plan = rocectl({"plan", "--config", config_.string(), "--port", "lan3"});
  EXPECT_TRUE(contains(plan.out, "maxrate")) << plan.out;
  EXPECT_TRUE(contains(plan.out, "no caps -> tc 6:400Mbit 7:40Gbit")) << plan.out;

  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  // ieee_maxrate is in kbit/s (include/uapi/linux/dcbnl.h; mlx5's MLX5E_100MB is 100000).
  // iproute2 before 6.18 reads it as bytes/s and shows 1/125 of the rate ("dcb: fix tc-maxrate
  // unit conversions"); bookworm has 6.1.
  const std::string version = exec({"dcb", "-V"});
  const bool bytes_per_second = contains(version, "iproute2-6.") &&
                                !contains(version, "iproute2-6.18") &&
                                !contains(version, "iproute2-6.19");
  const std::string shown = exec({"dcb", "maxrate", "show", "dev", "lan3"});
  EXPECT_TRUE(contains(shown, bytes_per_second ? "6:3200Kbit 7:320Mbit" : "6:400Mbit 7:40Gbit"))
      << version << shown;

  const auto again = rocectl({"plan", "--config", config_.string()});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_TRUE(contains(again.out, "all 4 ports in sync")) << again.out;
}

TEST_F(ApplySim, CheckPlansOnlyAndDiffShowsThePlan) {
  const auto before = writes_after_barrier();
  const auto check = apply({"--check"});
  EXPECT_EQ(check.exit_code, 2) << check.out << check.err;
  EXPECT_TRUE(contains(check.out, "pfc.priorities    none -> 3")) << check.out;
  const auto check_json = apply({"--check", "--json"});
  EXPECT_EQ(check_json.exit_code, 2);
  EXPECT_EQ(Json::parse(check_json.out)["changes_pending"], true);
  const auto after_check = writes_after_barrier();
  EXPECT_EQ(after_check.at("total"), before.at("total") + 1);  // the barrier only

  const auto diff = apply({"--diff", "--port", "lan4"});
  EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  const size_t plan_line = diff.out.find("lan4 (mlx5_2:1, RoCE v2 GID 3): 11 changes");
  const size_t result_line = diff.out.find("lan4: applied 11 changes");
  EXPECT_NE(plan_line, std::string::npos) << diff.out;
  EXPECT_NE(result_line, std::string::npos) << diff.out;
  EXPECT_LT(plan_line, result_line);
  EXPECT_FALSE(contains(diff.out, "lan3")) << diff.out;  // --port keeps the others untouched

  const auto lan4_done = apply({"--check", "--port", "lan4"});
  EXPECT_EQ(lan4_done.exit_code, 0) << lan4_done.out;
  EXPECT_EQ(apply({"--check", "--port", "lan3"}).exit_code, 2);
}

// A file that names no port installs roced idle: --check says so and exits 0 (its JSON a plan
// with no port and "idle"), so a rollout can check an idle node; a file whose ports are not on
// the node is still an error, and so is applying an idle file.
TEST_F(ApplySim, CheckOfAFileNamingNoPortSaysIdle) {
  const auto before = writes_after_barrier();
  write_file(dir_ / "idle.yaml", "profile:\n  mtu: 4200\n");
  const std::string idle = (dir_ / "idle.yaml").string();
  const auto json = rocectl({"apply", "--check", "--json", "--direct", "--config", idle});
  EXPECT_EQ(json.exit_code, 0) << json.out << json.err;
  const auto document = Json::parse(json.out);
  EXPECT_EQ(document["schema"], "roced.plan/v1");
  EXPECT_EQ(document["ports"], Json::array());
  EXPECT_EQ(document["changes_pending"], false);
  EXPECT_EQ(document["idle"], "ports.netdevs names no port");
  const auto text = rocectl({"apply", "--check", "--config", idle});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_TRUE(contains(text.out, "idle: ports.netdevs names no port")) << text.out;
  EXPECT_EQ(rocectl({"apply", "--config", idle}).exit_code, 1);
  const auto plan = rocectl({"plan", "--direct", "--config", idle});
  EXPECT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  EXPECT_TRUE(contains(plan.err, "idle: ports.netdevs names no port")) << plan.err;

  write_file(dir_ / "absent.yaml", "ports:\n  netdevs: [lan9]\n");
  const auto absent =
      rocectl({"apply", "--check", "--json", "--config", (dir_ / "absent.yaml").string()});
  EXPECT_EQ(absent.exit_code, 1) << absent.out;
  const auto after = writes_after_barrier();
  EXPECT_EQ(after.at("total"), before.at("total") + 1);  // the barrier only
}

// On a terminal (script(1) gives rocectl one), changes that take links down are named and asked
// for; "n" writes nothing, "y" applies. Without a terminal (every other test) nothing is asked.
TEST_F(ApplySim, OnATerminalLinkFlapsAreAskedForFirst) {
  const auto on_a_terminal = [&](const std::string& answer, const std::string& extra) {
    const std::string command = std::string(ROCECTL_BINARY) + " --sim " + dir_.string() +
                                " apply --config " + config_.string() + extra;
    return test::run_command(
        {"sh", "-c", "printf '" + answer + "\\n' | script -qec '" + command + "' /dev/null"});
  };
  const auto before = writes_after_barrier();
  const auto declined = on_a_terminal("n", "");
  EXPECT_EQ(declined.exit_code, 1) << declined.out << declined.err;
  EXPECT_TRUE(contains(declined.out, "These changes take the link down")) << declined.out;
  EXPECT_TRUE(contains(declined.out, "lan3: mtu, pfc.priorities")) << declined.out;
  EXPECT_TRUE(contains(declined.out, "One port at a time")) << declined.out;
  EXPECT_TRUE(contains(declined.out, "nothing applied")) << declined.out;
  EXPECT_EQ(writes_after_barrier().at("total"), before.at("total") + 1);  // the barrier only

  const auto confirmed = on_a_terminal("y", "");
  EXPECT_EQ(confirmed.exit_code, 0) << confirmed.out << confirmed.err;
  EXPECT_TRUE(contains(confirmed.out, "4 ports: 4 applied")) << confirmed.out;
}

TEST_F(ApplySim, OnATerminalYesDoesNotAsk) {
  const std::string command = std::string(ROCECTL_BINARY) + " --sim " + dir_.string() +
                              " apply --yes --config " + config_.string();
  const auto result =
      test::run_command({"sh", "-c", "script -qec '" + command + "' /dev/null < /dev/null"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_FALSE(contains(result.out, "Apply?")) << result.out;
  EXPECT_TRUE(contains(result.out, "4 ports: 4 applied")) << result.out;
}

// What takes links down is coloured on a terminal, unless NO_COLOR is set (no-color.org).
TEST_F(ApplySim, OnATerminalDisruptiveChangesAreColoured) {
  const auto plan_on_a_terminal = [&](const std::string& environment) {
    const std::string command = environment + std::string(ROCECTL_BINARY) + " --sim " +
                                dir_.string() + " plan --config " + config_.string();
    return test::run_command({"sh", "-c", "script -qec '" + command + "' /dev/null < /dev/null"});
  };
  const auto coloured = plan_on_a_terminal("");
  EXPECT_EQ(coloured.exit_code, 2) << coloured.out << coloured.err;
  EXPECT_TRUE(contains(coloured.out, "\033[1;31mdisrupts traffic\033[0m")) << coloured.out;
  const auto plain = plan_on_a_terminal("NO_COLOR=1 ");
  EXPECT_EQ(plain.exit_code, 2) << plain.out << plain.err;
  EXPECT_TRUE(contains(plain.out, "disrupts traffic")) << plain.out;
  EXPECT_FALSE(contains(plain.out, "\033[")) << plain.out;
}

TEST_F(ApplySim, BadInputWritesNothing) {
  const auto before = writes_after_barrier();
  write_file(dir_ / "bad.yaml", "profile:\n  mtu: lots\n");
  const auto bad = rocectl({"apply", "--config", (dir_ / "bad.yaml").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.err, "bad.yaml:2:")) << bad.err;
  const auto unknown = apply({"--port", "lan9"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_TRUE(contains(unknown.err, "lan9 is not a port")) << unknown.err;
  const auto flag = apply({"--bogus"});
  EXPECT_EQ(flag.exit_code, 1);
  const auto after = writes_after_barrier();
  EXPECT_EQ(after.at("total"), before.at("total") + 1);  // the barrier only
}

// Every file of the bad-config corpus (test/config/bad, "# expect: L:C: field: text" on its first
// line) makes `rocectl apply` fail with that diagnostic and leaves the node untouched.
TEST_F(ApplySim, EveryBadConfigOfTheCorpusNamesItsErrorAndWritesNothing) {
  const fs::path corpus = fs::path(ROCED_SOURCE_DIR) / "test/config/bad";
  const auto before = writes_after_barrier();
  int files = 0;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    const std::string path = entry.path().string();
    std::string first_line;
    std::getline(std::ifstream(entry.path()) >> std::ws, first_line);
    // As test/config/corpus_test.cpp: an empty field is a problem of the whole document.
    static const std::regex pattern(R"(^# expect: (\d+):(\d+): ([^ ]*): (.+)$)");
    std::smatch match;
    ASSERT_TRUE(std::regex_match(first_line, match, pattern)) << path;
    const std::string field = match[3];
    const std::string where = path + ":" + std::string(match[1]) + ":" + std::string(match[2]) +
                              ": " + (field.empty() ? "" : field + ": ");
    const std::string text = match[4];
    const auto result = rocectl({"apply", "--config", path});
    EXPECT_EQ(result.exit_code, 1) << path;
    const size_t at = result.err.find(where);
    EXPECT_NE(at, std::string::npos) << "wanted " << where << "\n" << result.err;
    if (at != std::string::npos) {
      const std::string line = result.err.substr(at, result.err.find('\n', at) - at);
      EXPECT_TRUE(contains(line, text)) << "wanted '" << text << "' in: " << line;
    }
  }
  EXPECT_GE(files, 20);
  const auto after = writes_after_barrier();
  EXPECT_EQ(after.at("total"), before.at("total") + 1);  // the barrier only
}

// A scenario that makes the next MTU set on lan3 fail from the start.
class ApplyWithFailingMtu : public ApplySim {
 protected:
  // Written where the test's DIR does not exist yet; removed with the test.
  fs::path scenario_path() const {
    return fs::temp_directory_path() /
           ("roced-apply-scenario-" + std::to_string(::getpid()) + ".yaml");
  }
  std::string scenario_file() const override {
    write_file(scenario_path(), scenario());
    return scenario_path().string();
  }
  virtual std::string scenario() const {
    return "name: mtu-fails\n"
           "events:\n"
           "  - {at: 0s, kind: netlink_errors, port: lan3, errno: EIO, op: mtu}\n";
  }
  void TearDown() override {
    ApplySim::TearDown();
    fs::remove(scenario_path());
  }
};

TEST_F(ApplyWithFailingMtu, FailedPortIsRolledBackTheOthersApplied) {
  const std::vector<std::vector<std::string>> shows = {
      {"dcb", "pfc", "show", "dev", "lan3"},
      {"dcb", "ets", "show", "dev", "lan3"},
      {"dcb", "-N", "app", "show", "dev", "lan3"},
      {"dcb", "dcbx", "show", "dev", "lan3"},
  };
  std::vector<std::string> before;
  for (const auto& show : shows) before.push_back(exec(show));

  const auto result = apply({"--json"});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  const Json json = Json::parse(result.out);
  EXPECT_EQ(json["ok"], false);
  EXPECT_EQ(json["changed"], true);
  ASSERT_EQ(json["ports"].size(), 4u);
  std::map<std::string, Json> ports;
  for (const auto& port : json["ports"]) ports[port["netdev"]] = port;
  EXPECT_EQ(ports["lan2"]["outcome"], "applied");
  EXPECT_EQ(ports["lan4"]["outcome"], "applied");
  EXPECT_EQ(ports["lan5"]["outcome"], "applied");
  const Json& lan3 = ports["lan3"];
  EXPECT_EQ(lan3["outcome"], "rolled-back") << lan3.dump(2);
  EXPECT_EQ(lan3["changes"].back()["setting"], "mtu");
  EXPECT_EQ(lan3["changes"].back()["ok"], false);
  EXPECT_TRUE(contains(lan3["error"].get<std::string>(), "EIO")) << lan3["error"];
  std::vector<std::string> undone;
  for (const auto& step : lan3["rollback"]) {
    EXPECT_EQ(step["ok"], true) << step.dump();
    undone.push_back(step["setting"]);
  }
  // MTU goes before PFC: what was written before it is undone, in reverse.
  EXPECT_EQ(undone, (std::vector<std::string>{"ets", "trust", "dscp_map", "dcbx"}));
  EXPECT_TRUE(contains(result.err, "lan3: rolled-back: mtu: EIO")) << result.err;

  for (size_t i = 0; i < shows.size(); ++i) {
    EXPECT_EQ(exec(shows[i]), before[i]) << shows[i][1] << " of lan3 differs after the rollback";
  }
  EXPECT_TRUE(contains(exec({"ip", "link", "show", "lan3"}), " mtu 1500 "));
  EXPECT_TRUE(contains(exec({"dcb", "pfc", "show", "dev", "lan2"}), "3:on"));
}

class ApplyWithBusyMtu : public ApplyWithFailingMtu {
 protected:
  std::string scenario() const override {
    return "name: mtu-busy\n"
           "events:\n"
           "  - {at: 0s, kind: netlink_errors, port: lan3, errno: EBUSY, count: 2, op: mtu}\n";
  }
};

TEST_F(ApplyWithBusyMtu, TransientErrorIsRetriedAndApplied) {
  const auto result = apply({"--json", "--port", "lan3"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  const Json json = Json::parse(result.out);
  ASSERT_EQ(json["ports"].size(), 1u);
  const Json& lan3 = json["ports"][0];
  EXPECT_EQ(lan3["outcome"], "applied");
  for (const auto& step : lan3["changes"]) {
    EXPECT_EQ(step["ok"], true);
    EXPECT_EQ(step["attempts"], step["setting"] == "mtu" ? 3 : 1) << step.dump();
  }
  EXPECT_TRUE(contains(exec({"ip", "link", "show", "lan3"}), " mtu 9000 "));
}

// The OFED driver's knobs: per-priority ECN enable files and DCQCN knobs under their OFED names.
class ApplyOfedNode : public ApplySim {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/dual-port-ofed.yaml";
  }
};

TEST_F(ApplyOfedNode, EcnPrioritiesAndDcqcnKnobs) {
  write_file(config_,
             "ports:\n"
             "  netdevs: [ens1f0np0]\n"
             "profile:\n"
             "  ecn:\n"
             "    priorities: [3]\n"
             "    dcqcn: {rp_ai_rate: 10, np_min_time_between_cnps: 8}\n");
  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "ecn.priorities                      0,1,2,3,4,5,6,7 -> 3"))
      << result.out;
  const fs::path ecn = dir_ / "sys/class/net/ens1f0np0/ecn";
  for (const char* point : {"roce_np", "roce_rp"}) {
    for (int priority = 0; priority < 8; ++priority) {
      EXPECT_EQ(read_file(ecn / point / "enable" / std::to_string(priority)),
                priority == 3 ? "1\n" : "0\n")
          << point << " " << priority;
    }
  }
  EXPECT_EQ(read_file(ecn / "roce_rp/rpg_ai_rate"), "10\n");
  EXPECT_EQ(read_file(ecn / "roce_np/min_time_between_cnps"), "8\n");
  const auto again = apply({"--check"});
  EXPECT_EQ(again.exit_code, 0) << again.out;
}

// An SR-IOV node: eight rails with 16 VFs each. A glob that matches the VFs' names (rail0v3 is
// "rail*") still configures the eight rails alone: a VF shares its PF's port and mlx5 gives it
// no DCB, so roced never writes one.
class ApplySriovSim : public ApplySim {
 protected:
  // The node rewrites its files at 10 Hz: the status once `file` reads `text`.
  void await_file(const fs::path& file, const std::string& text) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (read_file(file) != text) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << file << " holds " << read_file(file);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/eight-rail-sriov.yaml";
  }
  // The lossless profile on `netdevs` (a YAML list) instead of lan2..lan5.
  void select(const std::string& netdevs) const {
    std::string config = kConfig;
    config.replace(config.find("[lan2, lan3, lan4, lan5]"), 24, netdevs);
    write_file(config_, config);
  }
  // Every rail was written, and none of its 16 functions named rail<N><suffix><M>.
  void expect_rails_written_and_no_function(const std::vector<std::string>& suffixes) const {
    auto writes = read_writes(dir_);  // rocectl's file writes are synchronous on the sim
    for (int rail = 0; rail < 8; ++rail) {
      const std::string pf = "rail" + std::to_string(rail);
      EXPECT_GT(writes[pf], 0u) << pf;
      for (int vf = 0; vf < 16; ++vf) {
        for (const std::string& suffix : suffixes) {
          const std::string name = pf + suffix + std::to_string(vf);
          ASSERT_EQ(writes.count(name), 1u) << name << " is not in the node";
          EXPECT_EQ(writes[name], 0u) << name << " was written";
        }
      }
    }
  }
};

TEST_F(ApplySriovSim, AGlobConfiguresTheRailsAndNeverWritesAVf) {
  select("[\"rail*\"]");
  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "8 ports: 8 applied")) << result.out;
  expect_rails_written_and_no_function({"v"});
  // The VFs are the kernel's: no DCB on them at all.
  const auto vf_dcb = test::sim_exec(dir_, {"dcb", "pfc", "show", "dev", "rail3v7"});
  EXPECT_NE(vf_dcb.exit_code, 0);
  EXPECT_TRUE(contains(vf_dcb.err, "Operation not supported")) << vf_dcb.err;

  // One line per port for its VFs, not one per VF (128 here), in numeric order; JSON keeps each.
  const auto plan = rocectl({"plan", "--config", config_.string()});
  EXPECT_TRUE(contains(plan.out,
                       "not managed (functions of a port: name one in ports.netdevs to manage "
                       "it):\n  rail0: 16 VFs (rail0v0-rail0v15)\n  rail1: 16 VFs"))
      << plan.out << plan.err;
  EXPECT_TRUE(contains(plan.out, "  rail7: 16 VFs (rail7v0-rail7v15)\n")) << plan.out;
  const auto json = rocectl({"plan", "--config", config_.string(), "--json"});
  EXPECT_TRUE(contains(json.out, "\"rail3v7 (VF 7 of rail3)\"")) << json.out;
  // Status reads the rails and counts their VFs; a VF is read when asked for.
  const auto status = rocectl({"status", "--direct"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_TRUE(contains(status.out, "  vfs      16 not managed (rail3v0-rail3v15; ")) << status.out;
  EXPECT_FALSE(contains(status.out, "\nrail3v7 ")) << status.out;
  const auto listed = Json::parse(rocectl({"status", "--direct", "--json"}).out);
  ASSERT_EQ(listed["functions"].size(), 128u) << listed["functions"].dump();
  EXPECT_TRUE(std::any_of(listed["functions"].begin(), listed["functions"].end(),
                          [](const Json& f) {
                            return f["netdev"] == "rail3v7" && f["role"] == "vf" &&
                                   f["of"] == "rail3" && f["detail"] == "VF 7 of rail3";
                          }))
      << listed["functions"].dump();
  const auto one = rocectl({"status", "--direct", "--port", "rail3v7"});
  EXPECT_TRUE(contains(one.out, "DCB is not supported by this device (EOPNOTSUPP)")) << one.out;
}

// A VF named exactly is managed for what the kernel lets a VF do: its MTU. Every DCB setting and
// stall prevention is reported unsupported with the kernel's EOPNOTSUPP, never written.
TEST_F(ApplySriovSim, AVfNamedExactlyGetsItsMtuAndNoDcb) {
  select("[rail3v7]");
  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "1 port: 1 applied")) << result.out;
  EXPECT_TRUE(contains(result.out,
                       "pfc.priorities     unsupported: DCB is not supported by this "
                       "device (EOPNOTSUPP)"))
      << result.out;
  EXPECT_EQ(read_file(dir_ / "sys/class/net/rail3v7/mtu"), "9000\n");
  auto writes = read_writes(dir_);
  EXPECT_EQ(writes["rail3v7"], 1u);  // the MTU set alone: no DCB request counts as a write
  EXPECT_EQ(writes["rail3"], 0u);
}

// The same node with the e-switch in switchdev mode: each VF also has a representor, a netdev of
// its rail's own PCI function (so it sees the rail's RDMA device and debugfs there) and without
// DCB. A glob reaches neither; a representor named exactly gets its MTU and nothing of its rail.
class ApplySwitchdevSim : public ApplySriovSim {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/eight-rail-switchdev.yaml";
  }
};

TEST_F(ApplySwitchdevSim, AGlobConfiguresTheRailsAndNeverWritesAVfOrARepresentor) {
  select("[\"rail*\"]");
  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "8 ports: 8 applied")) << result.out;
  expect_rails_written_and_no_function({"v", "npf0vf"});
  const auto rep_dcb = test::sim_exec(dir_, {"dcb", "pfc", "show", "dev", "rail3npf0vf7"});
  EXPECT_NE(rep_dcb.exit_code, 0);
  EXPECT_TRUE(contains(rep_dcb.err, "Operation not supported")) << rep_dcb.err;

  const auto plan = rocectl({"plan", "--config", config_.string()});
  EXPECT_TRUE(contains(plan.out, "  rail0: 16 representors (rail0npf0vf0-rail0npf0vf15)\n"))
      << plan.out << plan.err;
  EXPECT_TRUE(contains(plan.out, "  rail7: 16 VFs (rail7v0-rail7v15)\n")) << plan.out;
  const auto json = rocectl({"plan", "--config", config_.string(), "--json"});
  EXPECT_TRUE(contains(json.out, "\"rail3npf0vf7 (representor pf0vf7 of rail3)\"")) << json.out;
  const auto status = rocectl({"status", "--direct"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_TRUE(contains(status.out, "  vfs      16 not managed (rail3v0-rail3v15; ")) << status.out;
  EXPECT_TRUE(contains(status.out, "  reps     16 not managed (rail3npf0vf0-rail3npf0vf15; "))
      << status.out;
}

// A representor is no owner of its rail's RDMA device nor of the DCQCN knobs under its PCI
// function: named exactly, it gets its MTU, and nothing of rail3 is written through it.
TEST_F(ApplySwitchdevSim, ARepresentorNamedExactlyGetsItsMtuAndNothingOfItsRail) {
  select("[rail3npf0vf7]");
  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "1 port: 1 applied")) << result.out;
  EXPECT_TRUE(
      contains(result.out, "roce.tos           unsupported: no RDMA device for rail3npf0vf7"))
      << result.out;
  EXPECT_TRUE(contains(result.out, "unsupported: no ECN/DCQCN knobs on this representor"))
      << result.out;
  EXPECT_EQ(read_file(dir_ / "sys/class/net/rail3npf0vf7/mtu"), "9000\n");
  auto writes = read_writes(dir_);
  EXPECT_EQ(writes["rail3npf0vf7"], 1u);  // the MTU alone
  EXPECT_EQ(writes["rail3"], 0u);
  EXPECT_EQ(read_file(dir_ / "sys/class/net/rail3/mtu"), "1500\n");
}

// RoCE LAG (sim/nodes/roce-lag.yaml): lan2 and lan3, the two ports of one ConnectX-7, are slaves
// of bond0 (802.3ad), whose RDMA device is mlx5_bond_0 on lan2's PCI function; lan4 and lan5
// beside them.
// What mlx5 keeps per port (DCB, stall prevention) goes to each slave, the MTU to the bond and
// its slaves, and rdma_cm and the DCQCN knobs to the bond's RDMA device: the bond is written no
// DCB, a slave nothing of the RDMA device.
class ApplyRoceLagSim : public ApplySriovSim {
 protected:
  std::string node_file() const override { return std::string(ROCED_SIM_NODES) + "/roce-lag.yaml"; }
  void inject(const std::string& events) const {
    const fs::path file = dir_ / "inject.yaml";
    write_file(file, "events:\n" + events);
    const auto injected =
        test::run_command({ROCE_SIM_BINARY, "inject", dir_.string(), file.string()});
    ASSERT_EQ(injected.exit_code, 0) << injected.err;
  }
};

TEST_F(ApplyRoceLagSim, EachSettingGoesWhereTheKernelKeepsIt) {
  select("[\"*\"]");
  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "5 ports: 5 applied")) << result.out;
  EXPECT_TRUE(contains(result.out,
                       "  elsewhere: dcbx, trust, dscp_map, ets, global_pause, pfc.priorities, "
                       "pfc.cable_length, stall_prevention: a bond has no DCB of its own: set on "
                       "its slaves (lan2, lan3)\n"))
      << result.out;
  EXPECT_TRUE(contains(result.out,
                       "  elsewhere: roce.rdma_cm_mode, roce.tos: a slave of bond0: the RoCE "
                       "LAG's RDMA device mlx5_bond_0 is the bond's\n"))
      << result.out;

  // DCB on both slaves, as iproute2 reads it; the bond has none to read.
  for (const std::string slave : {"lan2", "lan3"}) {
    EXPECT_TRUE(contains(exec({"dcb", "pfc", "show", "dev", slave}),
                         "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"))
        << slave;
  }
  const auto bond_dcb = test::sim_exec(dir_, {"dcb", "pfc", "show", "dev", "bond0"});
  EXPECT_NE(bond_dcb.exit_code, 0);
  EXPECT_TRUE(contains(bond_dcb.err, "Operation not supported")) << bond_dcb.err;
  for (const std::string netdev : {"bond0", "lan2", "lan3", "lan4", "lan5"}) {
    EXPECT_EQ(read_file(dir_ / "sys/class/net" / netdev / "mtu"), "9000\n") << netdev;
  }
  // rdma_cm on the LAG's device; the PFs' own devices are gone, and nothing made them again.
  EXPECT_EQ(read_file(dir_ / "config/rdma_cm/mlx5_bond_0/ports/1/default_roce_tos"), "106\n");
  EXPECT_FALSE(fs::exists(dir_ / "config/rdma_cm/mlx5_0"));
  EXPECT_FALSE(fs::exists(dir_ / "config/rdma_cm/mlx5_1"));
  // The DCQCN knobs are the LAG device's, under lan2's function (cong.c): CNPs on priority 6.
  EXPECT_EQ(read_file(dir_ / "debug/mlx5" / pci_of("lan2") / "cc_params/np_cnp_prio_mode"), "0\n");
  EXPECT_FALSE(fs::exists(dir_ / "debug/mlx5" / pci_of("lan3") / "cc_params"));

  const auto plan = rocectl({"plan", "--config", config_.string()});
  EXPECT_TRUE(contains(plan.out, "all 5 ports in sync")) << plan.out << plan.err;
  EXPECT_TRUE(contains(plan.out, "lan2, lan3 (slave of bond0): in sync")) << plan.out;

  const auto status = rocectl({"status", "--direct"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(status.out.rfind("bond0 ", 0), 0u) << status.out;
  EXPECT_TRUE(contains(status.out,
                       "  bond     802.3ad, RoCE LAG mlx5_bond_0 (active, hash): lan2 active/up, "
                       "lan3 active/up\n"))
      << status.out;
  EXPECT_TRUE(contains(status.out,
                       "  bond     slave of bond0 (802.3ad, RoCE LAG mlx5_bond_0 (active, hash)): "
                       "active, mii up\n"))
      << status.out;
  const auto json = Json::parse(rocectl({"status", "--direct", "--json"}).out);
  const auto& bond = json["ports"][0]["observed"];
  EXPECT_EQ(bond["netdev"], "bond0");
  EXPECT_EQ(bond["role"], "bond");
  EXPECT_EQ(bond["bond"]["lag_device"], "mlx5_bond_0");
  EXPECT_EQ(bond["bond"]["slaves"][1]["netdev"], "lan3");
  EXPECT_TRUE(contains(bond["pfc"]["error"].get<std::string>(), "elsewhere: a bond has no DCB"))
      << bond.dump();
}

// Slaves that the configuration gives different DCB: flows hashed to one would be lossless and
// to the other not. Said on the bond, by name and key.
TEST_F(ApplyRoceLagSim, SlavesGivenDifferentDcbAreNamedOnTheBond) {
  select("[\"*\"]");
  write_file(config_, read_file(config_) + "overrides:\n  lan3: {pfc: {priorities: [3, 4]}}\n");
  const auto plan = rocectl({"plan", "--config", config_.string()});
  EXPECT_TRUE(contains(
      plan.out,
      "  warning: roce_lag_slaves_differ: the RoCE LAG's slaves lan2 and lan3 are given different "
      "pfc.priorities: flows hashed to one slave would not be treated as on the "
      "other\n"))
      << plan.out << plan.err;
}

// The bond managed with one slave excluded: DCB would be on lan2 only and flows hashed to lan3
// lossy, and the bond's MTU would change lan3's too. Said as critical on the bond, in the plan
// and by the daemon's status; the plan's lines name only the slave that gets the DCB.
TEST_F(ApplyRoceLagSim, ABondManagedWithoutOneOfItsSlavesIsCritical) {
  select("[\"*\"]\n  exclude: [lan3]");
  const auto plan = rocectl({"plan", "--config", config_.string()});
  EXPECT_TRUE(contains(plan.out,
                       "critical: roce_lag_slave_unmanaged: the RoCE LAG's slave lan3 is not "
                       "managed: DCB is set on lan2 only, so flows hashed to lan3 are lossy"))
      << plan.out << plan.err;
  EXPECT_TRUE(contains(plan.out, "set on its managed slaves (lan2), not on lan3")) << plan.out;
  EXPECT_FALSE(contains(plan.out, "set on its slaves (lan2, lan3)")) << plan.out;
}

// A slave whose link goes down (the switch side) leaves the bond up on the other: the status
// shows it, and mlx5's LAG maps all traffic to the first port (lag/mapping in hash mode).
TEST_F(ApplyRoceLagSim, ASlaveDownLeavesTheBondUpOnTheOther) {
  inject("  - {at: 0s, kind: link_flap, port: lan3, down_for: 1h}\n");
  await_file(dir_ / "sys/class/net/lan3/bonding_slave/mii_status", "down\n");
  await_file(dir_ / "debug/mlx5" / pci_of("lan3") / "lag/mapping", "1\n");
  EXPECT_EQ(read_file(dir_ / "sys/class/net/bond0/carrier"), "1\n");
  // `ip` reads the slave's bond from its IFLA_MASTER.
  EXPECT_TRUE(contains(exec({"ip", "link", "show", "lan3"}), " master bond0 ")) << "lan3";
  const auto status = rocectl({"status", "--direct"});
  EXPECT_TRUE(contains(status.out, "(active, hash): lan2 active/up, lan3 backup/down\n"))
      << status.out;
  EXPECT_TRUE(contains(status.out,
                       "  bond     slave of bond0 (802.3ad, RoCE LAG mlx5_bond_0 "
                       "(active, hash)): backup, mii down\n"))
      << status.out;
}

// VLAN and macvlan devices over a port in the host's namespace: their addresses are the port's
// GIDs, but DCB is the port's and the MTU the site's network configuration owns. Listed under the
// port, never written, and their smaller MTU's cost to RoCE said.
class ApplyUppersSim : public ApplySriovSim {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/host-uppers.yaml";
  }
};

TEST_F(ApplyUppersSim, UppersAreListedUnderTheirPortAndNeverWritten) {
  const auto before = rocectl({"status", "--direct"});
  EXPECT_FALSE(contains(before.out, "other RDMA ports")) << before.out;

  select("[\"lan*\"]");
  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "2 ports: 2 applied")) << result.out;
  EXPECT_FALSE(contains(result.out, "lan2.100")) << result.out;
  EXPECT_FALSE(contains(result.out, "mv2")) << result.out;
  for (const std::string upper : {"lan2.100", "mv2"}) {
    EXPECT_EQ(read_file(dir_ / "sys/class/net" / upper / "mtu"), "1500\n") << upper;
  }
  EXPECT_EQ(read_file(dir_ / "sys/class/net/lan2/mtu"), "9000\n");

  // What iproute2 and ethtool say of them: the VLAN over its port, no DCB of its own.
  const std::string link = exec({"ip", "-d", "link", "show", "lan2.100"});
  EXPECT_TRUE(contains(link, "lan2.100@lan2:")) << link;
  EXPECT_TRUE(contains(link, "vlan protocol 802.1Q id 100 <REORDER_HDR>")) << link;
  EXPECT_TRUE(contains(exec({"ethtool", "-i", "lan2.100"}), "driver: 802.1Q VLAN Support"));
  const auto dcb = test::sim_exec(dir_, {"dcb", "pfc", "show", "dev", "lan2.100"});
  EXPECT_NE(dcb.exit_code, 0);
  EXPECT_TRUE(contains(dcb.err, "Operation not supported")) << dcb.err;

  const auto status = rocectl({"status", "--direct"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_TRUE(contains(status.out,
                       "  uppers   lan2.100 (VLAN, mtu 1500), mv2 (mtu 1500); not "
                       "managed\n"))
      << status.out;
  EXPECT_TRUE(contains(status.out,
                       "  warning  RoCE over lan2.100's addresses gets path MTU 1024, not 4096: "
                       "rdma_cm takes it from that netdev's MTU (1500)\n"))
      << status.out;
  EXPECT_FALSE(contains(status.out, "other RDMA ports")) << status.out;
  const auto json = Json::parse(rocectl({"status", "--direct", "--json"}).out);
  ASSERT_EQ(json["functions"].size(), 2u) << json["functions"].dump();
  EXPECT_EQ(json["functions"][0]["netdev"], "lan2.100");
  EXPECT_EQ(json["functions"][0]["role"], "upper");
  EXPECT_EQ(json["functions"][0]["of"], "lan2");
  EXPECT_EQ(json["functions"][0]["detail"], "VLAN of lan2");
  EXPECT_EQ(json["functions"][0]["mtu"], 1500);
  EXPECT_EQ(json["functions"][1]["detail"], "upper device of lan2");

  // An upper's MTU may not exceed its port's (vlan_dev_change_mtu: ERANGE); with the port at
  // 9000 it may, and the warning goes.
  EXPECT_EQ(exec({"ip", "link", "set", "lan2.100", "mtu", "9000"}), "");
  await_file(dir_ / "sys/class/net/lan2.100/mtu", "9000\n");
  const auto after = rocectl({"status", "--direct"});
  EXPECT_TRUE(contains(after.out, "  uppers   lan2.100 (VLAN, mtu 9000), mv2 (mtu 1500)"))
      << after.out;
  EXPECT_FALSE(contains(after.out, "lan2.100's addresses")) << after.out;
}

// Named exactly (it has no driver to select it by), an upper is managed for its MTU alone: the rest
// is its port's, and the plan says whose.
TEST_F(ApplyUppersSim, ANamedUpperGetsItsMtuAndThePlanSaysWhereTheRestIs) {
  select("[lan2.100]\n  drivers: []");
  const auto plan = rocectl({"plan", "--config", config_.string()});
  EXPECT_TRUE(contains(plan.out, "lan2.100 (mlx5_0:1, RoCE v2 GID 5): 1 change")) << plan.out;
  EXPECT_TRUE(contains(plan.out,
                       "  elsewhere: dcbx, trust, dscp_map, ets, global_pause, pfc.priorities, "
                       "pfc.cable_length, stall_prevention: an upper device has no DCB of its "
                       "own: its traffic takes lan2's\n"))
      << plan.out;
  EXPECT_TRUE(contains(plan.out,
                       "  elsewhere: roce.rdma_cm_mode, roce.tos: its GIDs are on lan2's RDMA "
                       "device mlx5_0\n"))
      << plan.out;
}

// The kernel's rules for an upper's MTU, as the node keeps them: not above its port's, and
// brought down with it.
TEST_F(ApplyUppersSim, AnUppersMtuFollowsItsPortsDown) {
  const auto too_big = test::sim_exec(dir_, {"ip", "link", "set", "lan2.100", "mtu", "9000"});
  EXPECT_NE(too_big.exit_code, 0);
  EXPECT_TRUE(contains(too_big.err, "Numerical result out of range")) << too_big.err;
  EXPECT_EQ(exec({"ip", "link", "set", "lan2", "mtu", "9000"}), "");
  EXPECT_EQ(exec({"ip", "link", "set", "mv2", "mtu", "9000"}), "");
  EXPECT_EQ(exec({"ip", "link", "set", "lan2", "mtu", "4200"}), "");
  await_file(dir_ / "sys/class/net/mv2/mtu", "4200\n");
  EXPECT_EQ(read_file(dir_ / "sys/class/net/lan2.100/mtu"), "1500\n");
}

// Sub-functions (BlueField, Spectrum-X) in switchdev: each has a netdev of its own on an
// auxiliary device, driver mlx5_core.sf, and a representor on its PF. Neither is managed unless
// named; a glob that matches their names writes nothing to them.
class ApplySubFunctionSim : public ApplySriovSim {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/switchdev-sfs.yaml";
  }
};

TEST_F(ApplySubFunctionSim, SubFunctionsAreListedUnderTheirPortAndNeverWritten) {
  select("[\"lan*\"]");
  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "2 ports: 2 applied")) << result.out;
  auto writes = read_writes(dir_);
  EXPECT_GT(writes["lan2"], 0u);
  for (const std::string function : {"lan2s0", "lan2s1", "lan2npf0sf0", "lan2npf0sf1"}) {
    ASSERT_EQ(writes.count(function), 1u) << function << " is not in the node";
    EXPECT_EQ(writes[function], 0u) << function << " was written";
  }
  // An SF is no vport group manager: no DCB (en_dcbnl.c mlx5e_dcbnl_build_netdev).
  const auto sf_dcb = test::sim_exec(dir_, {"dcb", "pfc", "show", "dev", "lan2s0"});
  EXPECT_NE(sf_dcb.exit_code, 0);
  EXPECT_TRUE(contains(sf_dcb.err, "Operation not supported")) << sf_dcb.err;
  EXPECT_TRUE(contains(exec({"ethtool", "-i", "lan2s0"}), "bus-info: mlx5_core.sf.1"));

  const auto plan = rocectl({"plan", "--config", config_.string()});
  EXPECT_TRUE(contains(plan.out, "  lan2: 2 SFs (lan2s0, lan2s1)\n")) << plan.out << plan.err;
  EXPECT_TRUE(contains(plan.out, "  lan2: 4 representors (")) << plan.out;
  const auto status = rocectl({"status", "--direct"});
  EXPECT_TRUE(contains(status.out,
                       "  sfs      2 not managed (lan2s0, lan2s1; --port NAME reads "
                       "one)\n"))
      << status.out;
  const auto json = Json::parse(rocectl({"status", "--direct", "--json"}).out);
  bool listed = false;
  for (const auto& function : json["functions"]) {
    if (function["netdev"] != "lan2s1") continue;
    listed = true;
    EXPECT_EQ(function["role"], "sf");
    EXPECT_EQ(function["of"], "lan2");
    EXPECT_EQ(function["detail"], "SF 1 of lan2");
  }
  EXPECT_TRUE(listed) << json["functions"].dump();
}

// Named exactly, an SF gets what the kernel lets it have: its MTU; its DCB is unsupported.
TEST_F(ApplySubFunctionSim, ASubFunctionNamedExactlyGetsItsMtu) {
  select("[lan2s0]");
  const auto result = apply();
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_TRUE(contains(result.out, "1 port: 1 applied")) << result.out;
  EXPECT_EQ(read_file(dir_ / "sys/class/net/lan2s0/mtu"), "9000\n");
  EXPECT_EQ(read_file(dir_ / "sys/class/net/lan2/mtu"), "1500\n");
  EXPECT_TRUE(contains(result.out,
                       "pfc.priorities     unsupported: DCB is not supported by this "
                       "device (EOPNOTSUPP)"))
      << result.out;
}

}  // namespace
}  // namespace roced
