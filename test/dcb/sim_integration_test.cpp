// SPDX-License-Identifier: Apache-2.0
// The same production clients against a running roce-sim (the default node: lan2..lan5 on mlx5).
// The server binary comes from the build (ROCE_SIM_BINARY); each test starts its own node.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "dcb/client.hpp"
#include "ethtool/ethtool.hpp"
#include "link/link.hpp"
#include "sim/transport/simulated_system.hpp"
#include "test/support/build_paths.hpp"

extern char** environ;

namespace roced {
namespace {

namespace fs = std::filesystem;

class SimNode : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/roced-sim-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::string binary = ROCE_SIM_BINARY;
    std::string dir = dir_.string();
    std::vector<char*> argv = {binary.data(), const_cast<char*>("run"), const_cast<char*>("--dir"),
                               dir.data(), nullptr};
    ASSERT_EQ(::posix_spawn(&server_, binary.c_str(), nullptr, nullptr, argv.data(), environ), 0);
    // Ready when the pid file exists (uapi/roce_sim.h); poll with a generous deadline.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!fs::exists(dir_ / "roce-sim.pid")) {
      int status = 0;
      ASSERT_EQ(::waitpid(server_, &status, WNOHANG), 0) << "roce-sim exited during start-up";
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "roce-sim did not become ready";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    system_ = roce_sim::simulated_system(dir_);
  }
  void TearDown() override {
    if (server_ > 0) {
      ::kill(server_, SIGTERM);
      int status = 0;
      ::waitpid(server_, &status, 0);
    }
    fs::remove_all(dir_);
  }

  fs::path dir_;
  pid_t server_ = -1;
  System system_;
};

bool has_counter(const std::vector<NamedCounter>& counters, const std::string& name) {
  return std::any_of(counters.begin(), counters.end(),
                     [&](const NamedCounter& c) { return c.name == name; });
}

// A kernel's store() has done its work when write() returns, and a configfs mkdir has made the
// group's attributes (cma_configfs make_cma_dev): the simulated node's files are as synchronous,
// so a write read back as verified is one the model holds.
TEST_F(SimNode, FileWritesTakeEffectBeforeTheCallReturns) {
  const std::string group = "/sys/kernel/config/rdma_cm/mlx5_0";
  ASSERT_TRUE(system_.files->make_dir(group).ok());
  ASSERT_TRUE(system_.files->exists(group + "/ports/1/default_roce_tos"));
  auto lan2_writes = [&] {
    std::ifstream in(dir_ / "roce-sim.writes");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("lan2 ", 0) == 0) return std::stoi(line.substr(5));
    }
    return -1;
  };
  EXPECT_EQ(lan2_writes(), 1);  // the mkdir
  for (int i = 1; i <= 20; ++i) {
    const auto written =
        system_.files->write(group + "/ports/1/default_roce_tos", std::to_string(100 + i) + "\n");
    ASSERT_TRUE(written.ok()) << written.error().message;
    ASSERT_EQ(lan2_writes(), 1 + i) << "write " << i << " returned before the model took it";
  }
}

TEST_F(SimNode, LinksAreListedAndMtuChangesReadBack) {
  LinkClient links(system_);
  auto all = links.list();
  ASSERT_TRUE(all.ok()) << all.error().message;
  for (const char* name : {"lan2", "lan3", "lan4", "lan5"}) {
    auto it =
        std::find_if(all->begin(), all->end(), [&](const LinkInfo& l) { return l.name == name; });
    ASSERT_NE(it, all->end()) << name;
    EXPECT_EQ(it->mtu, 1500u) << name;
  }
  ASSERT_TRUE(links.set_mtu("lan2", 4200).ok());
  EXPECT_EQ(links.get("lan2")->mtu, 4200u);
  // The file tree follows at its next refresh; the minute only stops a hang.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (system_.files->read("/sys/class/net/lan2/mtu").value_or("") != "4200\n" &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(system_.files->read("/sys/class/net/lan2/mtu").value_or(""), "4200\n");
  auto missing = links.get("lan9");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ENODEV);
}

TEST_F(SimNode, EthtoolDriverInfoStatsAndTunable) {
  EthtoolClient ethtool(system_);
  auto info = ethtool.driver_info("lan2");
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->driver, "mlx5_core");
  EXPECT_EQ(info->firmware.rfind("28.39.1002", 0), 0u) << info->firmware;
  auto stats = ethtool.stats("lan2");
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_TRUE(has_counter(*stats, "rx_prio3_bytes"));

  ASSERT_TRUE(ethtool.set_pfc_prevention_timeout("lan2", 0xffff).ok());
  // mlx5 stores auto as its 100 ms critical watermark and reads that back, not 0xffff.
  EXPECT_EQ(ethtool.pfc_prevention_timeout("lan2").value_or(0), 100);
  auto bad = ethtool.set_pfc_prevention_timeout("lan2", 50);  // mlx5: 80..8000, 0 or 0xffff
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, EINVAL);
}

TEST_F(SimNode, DcbSettingsReadBackAndChangeTheStatsSet) {
  dcb::DcbClient client(system_);
  EthtoolClient ethtool(system_);
  ASSERT_TRUE(client.set_dcbx("lan2", dcb::kDcbxHost | dcb::kDcbxVerIeee).ok());
  EXPECT_EQ(client.get_dcbx("lan2").value_or(0) & dcb::kDcbxHost, dcb::kDcbxHost);
  auto refused = client.set_dcbx("lan2", dcb::kDcbxLldManaged | dcb::kDcbxVerIeee);
  ASSERT_FALSE(refused.ok());

  auto before = client.get("lan2");
  ASSERT_TRUE(before.ok()) << before.error().message;
  ASSERT_TRUE(before->pfc.has_value());
  dcb::Pfc pfc = *before->pfc;
  pfc.enabled_mask = 0x08;
  ASSERT_TRUE(client.set_pfc("lan2", pfc).ok());
  auto after = client.get("lan2");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->pfc->enabled_mask, 0x08);
  // mlx5 adds the pause counters of a PFC-enabled priority to the string set.
  auto stats = ethtool.stats("lan2");
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_TRUE(has_counter(*stats, "rx_prio3_pause"));

  ASSERT_TRUE(client.add_apps("lan2", {{5, 3, 26}, {5, 6, 48}}).ok());
  auto with_apps = client.get("lan2");
  ASSERT_TRUE(with_apps.ok());
  EXPECT_EQ(dcb::trust_from_apps(with_apps->apps), dcb::Trust::Dscp);
  EXPECT_EQ(dcb::dscp_map_from_apps(with_apps->apps)[26], 3);

  ASSERT_TRUE(before->ets.has_value());
  dcb::Ets bad_ets = *before->ets;
  bad_ets.tc_tsa.fill(dcb::Tsa::Ets);
  bad_ets.tc_tx_bw = {50, 40, 0, 0,
                      0,  0,  0, 0};  // sums to 90: mlx5 says -EINVAL in the status byte
  auto ets = client.set_ets("lan2", bad_ets);
  ASSERT_FALSE(ets.ok());
  EXPECT_EQ(ets.error().code, EINVAL) << ets.error().message;

  auto unknown = client.get("lan9");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ENODEV);
}

}  // namespace
}  // namespace roced
