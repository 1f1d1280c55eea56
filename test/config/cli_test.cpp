// SPDX-License-Identifier: Apache-2.0
// `rocectl validate` and `roced --check-config`: exit codes and what they print.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_command.hpp"
#include "test/support/build_paths.hpp"

namespace {

using roced::test::run_command;

const std::string kExample = std::string(ROCED_SOURCE_DIR) + "/packaging/roced.yaml";

class ConfigCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("roced-config-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const auto path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(ConfigCli, ValidateAcceptsTheShippedExample) {
  const auto result = run_command({ROCECTL_BINARY, "validate", kExample});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find(kExample + ": valid (drivers: mlx5_core; netdevs: *; 0 overrides)"),
            std::string::npos)
      << result.out;
  EXPECT_EQ(result.err, "");
}

// `validate -` reads standard input (a file rendered by a tool, piped before it is written).
TEST_F(ConfigCli, ValidateReadsStandardInput) {
  const auto good = run_command(
      {"/bin/sh", "-c",
       std::string("printf 'ports: {netdevs: [lan2]}\\n' | ") + ROCECTL_BINARY + " validate -"});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("<stdin>: valid (drivers: mlx5_core; netdevs: lan2; 0 overrides)"),
            std::string::npos)
      << good.out;
  const auto bad = run_command(
      {"/bin/sh", "-c",
       std::string("printf 'profile:\\n  mtu: 50\\n' | ") + ROCECTL_BINARY + " validate --json -"});
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  const auto json = nlohmann::json::parse(bad.out);
  EXPECT_EQ(json.at("valid"), false);
  EXPECT_EQ(json.at("diagnostics").at(0).at("file"), "<stdin>") << bad.out;
}

// A file that is not there says so, and how to name another.
TEST_F(ConfigCli, AMissingFileSaysHowToNameAnother) {
  const auto result = run_command({ROCECTL_BINARY, "plan", "--config", "/nonexistent/roced.yaml"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("rocectl: there is no /nonexistent/roced.yaml (--config FILE reads "
                            "another file)"),
            std::string::npos)
      << result.err;
}

// validate takes the file as its argument: the hint says so, not --config (which it refuses).
TEST_F(ConfigCli, ValidateOnAMissingFileHintsItsOwnArgument) {
  const auto result = run_command({ROCECTL_BINARY, "validate", "/nonexistent/roced.yaml"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("rocectl: there is no /nonexistent/roced.yaml (rocectl validate FILE "
                            "checks another file)"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("--config"), std::string::npos) << result.err;
}

TEST_F(ConfigCli, CheckConfigAcceptsTheShippedExample) {
  const auto result = run_command({ROCED_BINARY, "--check-config", kExample});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find(kExample + ": valid"), std::string::npos) << result.out;
}

TEST_F(ConfigCli, BothRejectABadFileWithFileLineColumnField) {
  const auto path = write("bad.yaml", "profile:\n  pfc:\n    priorities: [9]\n  mtu: 50\n");
  for (const auto& argv : std::vector<std::vector<std::string>>{
           std::vector<std::string>{ROCECTL_BINARY, "validate", path},
           std::vector<std::string>{ROCED_BINARY, "--check-config", path}}) {
    const auto result = run_command(argv);
    EXPECT_EQ(result.exit_code, 1) << argv[0];
    EXPECT_NE(result.err.find(path + ":3:18: profile.pfc.priorities: 9 is not a priority (0-7)\n" +
                              path + ":4:8: profile.mtu: 50 is not an MTU"),
              std::string::npos)
        << result.err;
    EXPECT_EQ(result.out.find("valid ("), std::string::npos) << result.out;
  }
}

TEST_F(ConfigCli, WarningsDoNotInvalidate) {
  const auto path = write("warn.yaml", "profile:\n  mtu: 1500\n");
  for (const auto& argv : std::vector<std::vector<std::string>>{
           std::vector<std::string>{ROCECTL_BINARY, "validate", path},
           std::vector<std::string>{ROCED_BINARY, "--check-config", path}}) {
    const auto result = run_command(argv);
    EXPECT_EQ(result.exit_code, 0) << argv[0] << result.err;
    EXPECT_NE(result.err.find(path + ":2:8: warning: profile.mtu: MTU 1500 is below 4200"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.out.find(path + ": valid"), std::string::npos) << result.out;
  }
}

TEST_F(ConfigCli, ValidateJson) {
  const auto path =
      write("bad.yaml", "profile:\n  mtu: 1500\n  roce: {tos: 256}\nports: {netdevs: [lan2]}\n");
  const auto result = run_command({ROCECTL_BINARY, "validate", "--json", path});
  EXPECT_EQ(result.exit_code, 1);
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json.at("valid"), false);
  ASSERT_EQ(json.at("diagnostics").size(), 2u) << result.out;
  const auto& warning = json["diagnostics"][0];
  EXPECT_EQ(warning.at("severity"), "warning");
  EXPECT_EQ(warning.at("line"), 2);
  const auto& error = json["diagnostics"][1];
  EXPECT_EQ(error.at("severity"), "error");
  EXPECT_EQ(error.at("file"), path);
  EXPECT_EQ(error.at("line"), 3);
  EXPECT_EQ(error.at("column"), 15);
  EXPECT_EQ(error.at("field"), "profile.roce.tos");
  EXPECT_NE(error.at("message").get<std::string>().find("256 is not a ToS byte"),
            std::string::npos);

  const auto good = run_command({ROCECTL_BINARY, "validate", "--json", kExample});
  EXPECT_EQ(good.exit_code, 0);
  const auto good_json = nlohmann::json::parse(good.out);
  EXPECT_EQ(good_json.at("valid"), true);
  EXPECT_TRUE(good_json.at("diagnostics").empty());
}

TEST_F(ConfigCli, MissingFileIsNamed) {
  const std::string path = (dir_ / "absent.yaml").string();
  const auto validate = run_command({ROCECTL_BINARY, "validate", path});
  EXPECT_EQ(validate.exit_code, 1);
  EXPECT_NE(validate.err.find(path + ": cannot read the file"), std::string::npos) << validate.err;
  const auto check = run_command({ROCED_BINARY, "--check-config", path});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.err.find(path + ": cannot read the file"), std::string::npos) << check.err;
}

TEST_F(ConfigCli, ValidateUsage) {
  EXPECT_EQ(run_command({ROCECTL_BINARY, "validate"}).exit_code, 1);
  EXPECT_EQ(run_command({ROCECTL_BINARY, "validate", "a.yaml", "b.yaml"}).exit_code, 1);
  EXPECT_EQ(run_command({ROCECTL_BINARY, "validate", "--frobnicate", kExample}).exit_code, 1);
  const auto help = run_command({ROCECTL_BINARY, "validate", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: rocectl validate"), std::string::npos);
}

TEST_F(ConfigCli, RocedRefusesBadArgumentsAndAMissingConfig) {
  for (const auto& argv : std::vector<std::vector<std::string>>{
           std::vector<std::string>{ROCED_BINARY, "--frobnicate"},
           std::vector<std::string>{ROCED_BINARY, "--sim"},
           std::vector<std::string>{ROCED_BINARY, "--check-config"}}) {
    const auto result = run_command(argv);
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("usage: roced"), std::string::npos) << result.err;
  }
  // Service mode with a file that is not there: named, and nothing started.
  const auto missing =
      run_command({ROCED_BINARY, "--config", "/nonexistent/roced.yaml", "--log-target", "console"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/roced.yaml: cannot read the file"), std::string::npos)
      << missing.err;
  const auto version = run_command({ROCED_BINARY, "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("roced ", 0), 0u) << version.out;
  const auto help = run_command({ROCED_BINARY, "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--check-config FILE"), std::string::npos);
}

TEST_F(ConfigCli, EveryBadCorpusFileFailsBoth) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ROCED_BAD_CONFIGS)) {
    const std::string path = entry.path().string();
    ++files;
    EXPECT_EQ(run_command({ROCECTL_BINARY, "validate", path}).exit_code, 1) << path;
    EXPECT_EQ(run_command({ROCED_BINARY, "--check-config", path}).exit_code, 1) << path;
  }
  EXPECT_GT(files, 0);
}

// Offline on the node: the text roced serves at the alert's runbook_url.
TEST(RocectlRunbook, PrintsAnAlertsSectionAndNamesTheAlertsForAnUnknownOne) {
  const auto section = run_command({ROCECTL_BINARY, "runbook", "RocePfcStormActive"});
  EXPECT_EQ(section.exit_code, 0) << section.err;
  EXPECT_EQ(section.out.rfind("## RocePfcStormActive\n", 0), 0u) << section.out;
  EXPECT_NE(section.out.find("What to do:"), std::string::npos) << section.out;
  EXPECT_EQ(section.out.find("## RocePauseStormWarningEvents"), std::string::npos);
  const auto unknown = run_command({ROCECTL_BINARY, "runbook", "RocePfcStorm"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no alert or finding 'RocePfcStorm'"), std::string::npos)
      << unknown.err;
  EXPECT_NE(unknown.err.find("the runbook's alerts: RoceConfigDriftHeld"), std::string::npos)
      << unknown.err;
  const auto whole = run_command({ROCECTL_BINARY, "runbook"});
  EXPECT_EQ(whole.exit_code, 0);
  EXPECT_NE(whole.out.find("## RocedCollectorFailing\n"), std::string::npos);
  EXPECT_EQ(run_command({ROCECTL_BINARY, "runbook", "RoceLinkDown", "extra"}).exit_code, 1);
}

// A finding's id, as the status, the journal and roced_finding name it.
TEST(RocectlRunbook, PrintsWhatAFindingMeansAndWhatToDo) {
  const auto found = run_command({ROCECTL_BINARY, "runbook", "kernel_lockdown"});
  EXPECT_EQ(found.exit_code, 0) << found.err;
  EXPECT_EQ(found.out.rfind("kernel_lockdown (warning, from settings)\n", 0), 0u) << found.out;
  EXPECT_NE(found.out.find("\nWhat to do: "), std::string::npos) << found.out;
}

}  // namespace
