// SPDX-License-Identifier: Apache-2.0
// rocectl's command line: usage, help, exit codes; no simulated node needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_command.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;
using test::run_command;

const std::string kRocectl = ROCECTL_BINARY;

TEST(RocectlCli, HelpExitsZero) {
  auto top = run_command({kRocectl, "--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("usage: rocectl"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("status"), std::string::npos);
  auto status = run_command({kRocectl, "status", "--help"});
  EXPECT_EQ(status.exit_code, 0);
  EXPECT_NE(status.out.find("usage: rocectl status [--json] [--sim DIR] [--port NAME]"),
            std::string::npos)
      << status.out;
}

TEST(RocectlCli, UnknownCommandIsAUsageError) {
  auto result = run_command({kRocectl, "frobnicate"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("unknown command \"frobnicate\""), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("usage: rocectl"), std::string::npos) << result.err;
  // The synopsis, not the whole help: the mistake stays on the screen.
  EXPECT_EQ(result.err.find("commands:"), std::string::npos) << result.err;
}

// A typo names the command it was likely meant to be.
TEST(RocectlCli, AMistypedCommandSuggestsTheNearestOne) {
  auto result = run_command({kRocectl, "plann"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("unknown command \"plann\" (did you mean 'plan'?)"), std::string::npos)
      << result.err;
  auto far = run_command({kRocectl, "frobnicate"});
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

TEST(RocectlCli, VersionIsThePackagesVersion) {
  auto result = run_command({kRocectl, "--version"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("rocectl ", 0), 0u) << result.out;
  EXPECT_GT(result.out.size(), std::string("rocectl \n").size()) << result.out;
}

TEST(RocectlCli, NoCommandIsAUsageError) {
  auto result = run_command({kRocectl});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("no command given"), std::string::npos) << result.err;
}

TEST(RocectlCli, BadStatusArgumentsAreUsageErrors) {
  auto missing_dir = run_command({kRocectl, "status", "--sim"});
  EXPECT_EQ(missing_dir.exit_code, 1);
  EXPECT_NE(missing_dir.err.find("--sim needs a directory"), std::string::npos) << missing_dir.err;
  auto unknown = run_command({kRocectl, "status", "--bogus"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("unknown argument \"--bogus\""), std::string::npos) << unknown.err;
  auto no_port = run_command({kRocectl, "status", "--port"});
  EXPECT_EQ(no_port.exit_code, 1);
}

class EmptyNode : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/roced-cli-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    fs::create_directories(dir_ / "sys/class/net");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(EmptyNode, NoMlx5PortIsExitOneWithAClearMessage) {
  for (const auto& argv : {std::vector<std::string>{kRocectl, "status", "--sim", dir_.string()},
                           std::vector<std::string>{kRocectl, "--sim", dir_.string(), "status"}}) {
    auto result = run_command(argv);
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("no mlx5 port found on simulated node at " + dir_.string()),
              std::string::npos)
        << result.err;
  }
}

TEST_F(EmptyNode, UnknownPortIsExitOne) {
  auto result = run_command({kRocectl, "status", "--sim", dir_.string(), "--port", "lan9"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("no network interface named \"lan9\""), std::string::npos)
      << result.err;
}

TEST_F(EmptyNode, NotASimulatedNodeIsExitOne) {
  fs::remove_all(dir_ / "sys");
  auto result = run_command({kRocectl, "status", "--sim", dir_.string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("is not a simulated node"), std::string::npos) << result.err;
}

TEST_F(EmptyNode, UnreachableServerGivesPerFieldErrorsAndExitOne) {
  // A port exists in sysfs, but nothing serves netlink or ethtool: each piece says why, and
  // without its link the port counts as not read.
  fs::create_directories(dir_ / "sys/class/net/vethA");
  std::ofstream(dir_ / "sys/class/net/vethA/ifindex") << "7\n";
  auto result =
      run_command({kRocectl, "status", "--json", "--sim", dir_.string(), "--port", "vethA"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("cannot read vethA"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("is 'roce-sim run --dir"), std::string::npos) << result.err;
  auto json = nlohmann::json::parse(result.out);
  ASSERT_EQ(json["ports"].size(), 1u);
  EXPECT_EQ(json["ports"][0]["netdev"], "vethA");
  // The link could not be read, so the port was not: the entry's error says why.
  EXPECT_TRUE(json["ports"][0]["error"].is_string()) << json["ports"][0].dump();
  const auto& port = json["ports"][0]["observed"];
  EXPECT_TRUE(port["link"].contains("error")) << port["link"].dump();
  EXPECT_TRUE(port["pfc"].contains("error")) << port["pfc"].dump();
  EXPECT_EQ(port["gids"]["error"], "absent: no RDMA device for vethA");
}

}  // namespace
}  // namespace roced
