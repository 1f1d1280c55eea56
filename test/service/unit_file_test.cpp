// SPDX-License-Identifier: Apache-2.0
// systemd/roced.service checked with systemd's own tools: `systemd-analyze verify` (on a copy
// whose ExecStart and ExecReload are this build's roced and rocectl, since verify wants the
// binaries to exist) and the
// offline security rating, which must stay below 2.2 (systemd/README.md explains every point).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "run_command.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class UnitFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/roced-unit-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::string unit = read_file(ROCED_UNIT_FILE);
    const std::string shipped = "ExecStart=/usr/sbin/roced ";
    const auto at = unit.find(shipped);
    ASSERT_NE(at, std::string::npos) << "the unit starts /usr/sbin/roced";
    unit.replace(at, shipped.size(), std::string("ExecStart=") + ROCED_BINARY + " ");
    const std::string reload = "ExecReload=/usr/bin/rocectl ";
    const auto reload_at = unit.find(reload);
    ASSERT_NE(reload_at, std::string::npos) << "the unit reloads with /usr/bin/rocectl";
    unit.replace(reload_at, reload.size(), std::string("ExecReload=") + ROCECTL_BINARY + " ");
    unit_ = dir_ / "roced.service";
    std::ofstream(unit_) << unit;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  fs::path unit_;
};

TEST_F(UnitFile, SystemdAnalyzeVerifyPasses) {
  // --man=no: the man pages Documentation= names are the package's (deb_lifecycle.sh checks
  // them installed); this tree's are not on the machine's man path.
  const auto result = test::run_command({"systemd-analyze", "verify", "--man=no", unit_.string()});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  // verify reports unknown keys and bad values as warnings and still exits 0.
  EXPECT_EQ(result.err, "") << result.err;
}

TEST_F(UnitFile, SecurityExposureIsBelowTwo) {
  const auto result =
      test::run_command({"systemd-analyze", "security", "--offline=true", unit_.string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const std::regex overall(R"(Overall exposure level for roced\.service: ([0-9]+\.[0-9]+))");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(result.out, match, overall)) << result.out << result.err;
  const double exposure = std::stod(match[1].str());
  EXPECT_LT(exposure, 2.2) << result.out;
  std::cout << "systemd-analyze security: exposure " << exposure << "\n";
}

TEST_F(UnitFile, NotifyWatchdogAndReloadAreWiredToRoced) {
  const std::string unit = read_file(ROCED_UNIT_FILE);
  for (const char* line : {"Type=notify\n", "NotifyAccess=main\n", "WatchdogSec=30s\n",
                           "ExecReload=/usr/bin/rocectl reload\n", "Restart=on-failure\n",
                           "ExecStart=/usr/sbin/roced --config /etc/roced/roced.yaml\n",
                           "CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW\n"}) {
    EXPECT_NE(unit.find(line), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace roced
