// SPDX-License-Identifier: Apache-2.0
// rocectl qualify as a person runs it, against a roce-sim process: the files it writes, the
// refusal of --write without --links-may-flap, and SIGINT in the middle of a link flap, after
// which the port reads as before. Real time here (a process), but nothing is asserted about how
// long anything took; waits are bounded only against a hang.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "dcb/client.hpp"
#include "link/link.hpp"
#include "sim/model/node_file.hpp"
#include "sim/transport/simulated_system.hpp"
#include "test/support/build_paths.hpp"
#include "test/support/exec_image.hpp"
#include "test/support/node_files.hpp"
#include "test/support/run_command.hpp"
#include "test/support/sim_node.hpp"

namespace roced::test {
namespace {

namespace fs = std::filesystem;

struct Seen {
  uint8_t dcbx = 0;
  uint8_t pfc = 0;
  uint16_t delay = 0;
  size_t apps = 0;
  uint32_t mtu = 0;
  bool operator==(const Seen&) const = default;
};

class QualifyCommand : public SimNode {
 protected:
  // Long enough that SIGINT lands while the link trains.
  std::optional<uint32_t> link_training_ms() const override { return 1500; }
  void SetUp() override {
    SimNode::SetUp();
    out_ = dir_ / "out";
    fs::create_directories(out_);
  }
  Seen seen(const std::string& netdev) {
    System system = roce_sim::simulated_system(dir_);
    Seen out;
    out.dcbx = dcb::DcbClient(system).get_dcbx(netdev).value_or(0xff);
    auto state = dcb::DcbClient(system).get(netdev);
    EXPECT_TRUE(state.ok() && state->pfc);
    if (state.ok() && state->pfc) {
      out.pfc = state->pfc->enabled_mask;
      out.delay = state->pfc->delay;
      out.apps = state->apps.size();
    }
    out.mtu = LinkClient(system).get(netdev).value_or(LinkInfo{}).mtu;
    return out;
  }
  std::vector<std::string> rocectl(std::vector<std::string> args) {
    std::vector<std::string> argv = {ROCECTL_BINARY, "--sim", dir_.string(),
                                     "qualify",      "--out", out_.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  // What python3-jsonschema finds wrong with `file` against docs/schema/roced.qualify.v1.json.
  static std::string schema_violations(const fs::path& file) {
    const std::string source = ROCED_SOURCE_DIR;
    const auto check = run_command({"python3", source + "/test/schema/check_json.py",
                                    source + "/docs/schema/roced.qualify.v1.json", file.string()});
    return check.exit_code == 0 ? "" : check.out + check.err;
  }
  // Runs rocectl with `args`, sends SIGINT once its stderr shows `marker`; its exit status and
  // stderr. The wait for the marker is bounded only by rocectl's own end.
  std::pair<int, std::string> interrupted_at(const std::vector<std::string>& args,
                                             const std::string& marker) {
    int err_pipe[2];
    if (::pipe(err_pipe) != 0) return {-1, "pipe failed"};
    const ExecImage image(rocectl(args));
    const pid_t child = ::fork();
    if (child == 0) {
      ::dup2(err_pipe[1], STDERR_FILENO);
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, STDOUT_FILENO);
      ::close(err_pipe[0]);
      ::close(err_pipe[1]);
      image.exec();
      ::_exit(127);
    }
    ::close(err_pipe[1]);
    std::string err;
    char buffer[512];
    bool signalled = false;
    for (ssize_t n; (n = ::read(err_pipe[0], buffer, sizeof buffer)) > 0;) {
      err.append(buffer, static_cast<size_t>(n));
      if (!signalled && contains(err, marker)) {
        ::kill(child, SIGINT);
        signalled = true;
      }
    }
    ::close(err_pipe[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (!signalled) return {-1, "never saw \"" + marker + "\": " + err};
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, err};
  }
  fs::path out_;
};

TEST_F(QualifyCommand, ReadOnlyWritesTheReportAndANodeRoceSimLoads) {
  const auto writes = read_writes(dir_);
  const auto result = run_command(rocectl({"--port", "lan2", "--json"}));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto stdout_report = nlohmann::json::parse(result.out);
  const auto report = nlohmann::json::parse(read_file(out_ / "roced-qualify.json"));
  EXPECT_EQ(stdout_report, report);
  EXPECT_EQ(report["schema"], "roced.qualify/v1");
  EXPECT_EQ(schema_violations(out_ / "roced-qualify.json"), "");
  EXPECT_EQ(report["mode"], "read-only");
  EXPECT_EQ(report["summary"]["differs"], 0);
  ASSERT_EQ(report["ports"].size(), 1u);
  EXPECT_EQ(report["ports"][0]["netdev"], "lan2");
  EXPECT_EQ(report["ports"][0]["model"], "ConnectX-7");
  EXPECT_NO_THROW(roce_sim::load_node_file(out_ / "roced-qualify-node.yaml"));
  EXPECT_EQ(read_writes(dir_), writes) << "a read-only run wrote to the node";
}

TEST_F(QualifyCommand, WriteWithoutTheOperatorsWordIsRefusedWithHowLongTheLinksGoDown) {
  const auto writes = read_writes(dir_);
  const auto result = run_command(rocectl({"--write", "--port", "lan2", "--port", "lan3"}));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, "lan2: the link goes down 2 times, about 6 s")) << result.err;
  EXPECT_TRUE(contains(result.err, "about 12 s in all")) << result.err;
  EXPECT_TRUE(contains(result.err, "--write --links-may-flap")) << result.err;
  EXPECT_EQ(read_writes(dir_), writes);
  EXPECT_FALSE(fs::exists(out_ / "roced-qualify.json"));
}

TEST_F(QualifyCommand, SigintWhileALinkTrainsPutsThePortBack) {
  const Seen before = seen("lan2");
  // The progress lines come on stderr; the first PFC change is the moment to stop it.
  const auto [code, err] =
      interrupted_at({"--write", "--links-may-flap", "--port", "lan2"}, "PFC -> ");
  EXPECT_EQ(code, 130) << err;
  EXPECT_TRUE(contains(err, "stopped: putting everything back")) << err;
  EXPECT_EQ(seen("lan2"), before) << err;
  const auto report = nlohmann::json::parse(read_file(out_ / "roced-qualify.json"));
  EXPECT_EQ(schema_violations(out_ / "roced-qualify.json"), "");
  EXPECT_EQ(report["interrupted"], true);
  const auto& touched = report["ports"][0]["touched"];
  ASSERT_FALSE(touched.empty());
  for (const auto& item : touched) EXPECT_EQ(item["restored"], true) << item.dump();
}

// No switch here: --listen would wait its full 600 s; SIGINT ends it and the report is written.
TEST_F(QualifyCommand, SigintEndsAListenAndTheReportIsStillWritten) {
  const auto [code, err] =
      interrupted_at({"--listen", "600", "--port", "lan2"}, "listening for the switches");
  EXPECT_EQ(code, 130) << err;
  const auto report = nlohmann::json::parse(read_file(out_ / "roced-qualify.json"));
  EXPECT_EQ(report["interrupted"], true);
  EXPECT_EQ(report["mode"], "read-only");
}

// A VF named with --port is qualified (its checks are worth a bug report) but not captured: the
// node file roce-sim can load has its physical port only, as docs/qualify.md says.
class QualifySriovNode : public QualifyCommand {
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/eight-rail-sriov.yaml";
  }
};

TEST_F(QualifySriovNode, AVfNamedIsReportedButNotCapturedInTheNodeFile) {
  const auto result = run_command(rocectl({"--port", "rail3", "--port", "rail3v7", "--json"}));
  EXPECT_NE(result.exit_code, 1) << result.err;
  const auto report = nlohmann::json::parse(read_file(out_ / "roced-qualify.json"));
  ASSERT_EQ(report["ports"].size(), 2u);
  const std::string node = read_file(out_ / "roced-qualify-node.yaml");
  EXPECT_NO_THROW(roce_sim::load_node_file(out_ / "roced-qualify-node.yaml")) << node;
  EXPECT_NE(
      node.find("# rail3v7 (mlx5_core): a function on a port (VF, SF, representor), left out"),
      std::string::npos)
      << node;
  EXPECT_EQ(node.find("rail3v7", node.find("left out") + 1), std::string::npos) << node;
}

}  // namespace
}  // namespace roced::test
