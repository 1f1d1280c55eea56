// SPDX-License-Identifier: Apache-2.0
// `rocectl status` against a running roce-sim (the default node: lan2..lan5 on mlx5_0..mlx5_3),
// and a DCB change made through the server showing up in what rocectl reports.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>

#include "dcb/client.hpp"
#include "run_command.hpp"
#include "sim/transport/simulated_system.hpp"
#include "sim_exec.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::run_command;

const std::string kRocectl = ROCECTL_BINARY;
const std::string kRoceSim = ROCE_SIM_BINARY;

class SimNode : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/roced-status-sim-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    server_ = ::fork();
    ASSERT_GE(server_, 0);
    if (server_ == 0) {
      ::execl(kRoceSim.c_str(), kRoceSim.c_str(), "run", "--dir", dir_.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Ready once the pid file exists (uapi/roce_sim.h); a generous deadline for a loaded machine.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!fs::exists(dir_ / "roce-sim.pid")) {
      int status = 0;
      ASSERT_EQ(::waitpid(server_, &status, WNOHANG), 0) << "roce-sim exited during start-up";
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "roce-sim did not become ready";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  void TearDown() override {
    if (server_ > 0) {
      ::kill(server_, SIGTERM);
      int status = 0;
      ::waitpid(server_, &status, 0);
    }
    fs::remove_all(dir_);
  }

  json status_json() {
    auto result = run_command({kRocectl, "status", "--sim", dir_.string(), "--json"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return json::parse(result.out);
  }

  // What rocectl read of the port (the entry's "observed"). `name` a string_view: see port_plan in
  // test/plan/plan_model_test.cpp (GCC 13+ -Wdangling-reference).
  static const json& port(const json& report, std::string_view name) {
    for (const auto& p : report["ports"]) {
      if (p["netdev"] == name) return p["observed"];
    }
    throw std::runtime_error("no port " + std::string(name) + " in the report");
  }

  // PFC priorities of each port, e.g. {"lan2": [3], "lan3": []}.
  std::map<std::string, json> pfc_by_port(const json& report) {
    std::map<std::string, json> out;
    for (const auto& p : report["ports"]) {
      out[p["netdev"]] = p["observed"]["pfc"]["enabled_priorities"];
    }
    return out;
  }

  void expect_pfc_on_3_for_lan2_only() {
    // The set is applied synchronously by the server, but poll anyway: nothing timing-sensitive.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::map<std::string, json> pfc;
    for (;;) {
      pfc = pfc_by_port(status_json());
      if (pfc["lan2"] == json::array({3}) || std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(pfc["lan2"], json::array({3}));
    for (const char* other : {"lan3", "lan4", "lan5"}) {
      EXPECT_EQ(pfc[other], json::array()) << other;
    }
  }

  fs::path dir_;
  pid_t server_ = -1;
};

TEST_F(SimNode, StatusJsonReportsTheDefaultNode) {
  const json report = status_json();
  ASSERT_EQ(report["ports"].size(), 4u) << report.dump(2);
  int n = 0;
  for (const char* name : {"lan2", "lan3", "lan4", "lan5"}) {
    SCOPED_TRACE(name);
    const json& p = port(report, name);
    EXPECT_EQ(p["driver"], "mlx5_core");
    EXPECT_EQ(p["rdma_device"], "mlx5_" + std::to_string(n++));
    // The sim's ib_device links to the PCI function, as mlx5_ib's does.
    EXPECT_EQ(p["rdma_driver"], "mlx5_core");
    EXPECT_EQ(p["link"]["mtu"], 1500) << p["link"].dump();
    EXPECT_EQ(p["roce_v2_ipv4"]["index"], 3) << p["roce_v2_ipv4"].dump();
    EXPECT_EQ(p["roce_v2_ipv4"]["type"], "RoCE v2");
    EXPECT_EQ(p["trust"], "pcp") << p["trust"].dump();
    EXPECT_EQ(p["pfc"]["enabled_priorities"], json::array()) << p["pfc"].dump();
    EXPECT_EQ(p["driver_info"]["driver"], "mlx5_core") << p["driver_info"].dump();
    EXPECT_FALSE(p["ecn"].contains("error")) << p["ecn"].dump();
    EXPECT_EQ(p["rdma_cm"]["configured"], false) << p["rdma_cm"].dump();
  }
  EXPECT_EQ(port(report, "lan2")["roce_v2_ipv4"]["ipv4"], "192.168.2.10");
  EXPECT_EQ(port(report, "lan5")["roce_v2_ipv4"]["ipv4"], "192.168.5.10");
  // Reading status never creates the rdma_cm group.
  EXPECT_FALSE(fs::exists(dir_ / "config/rdma_cm/mlx5_0"));
}

TEST_F(SimNode, StatusTextShowsEveryPort) {
  for (const auto& argv : {std::vector<std::string>{kRocectl, "status", "--sim", dir_.string()},
                           std::vector<std::string>{kRocectl, "--sim", dir_.string(), "status"}}) {
    auto result = run_command(argv);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    for (const char* needle : {"lan2", "lan3", "lan4", "lan5", "mlx5_0", "mtu 1500",
                               "v2/IPv4 index 3 (::ffff:192.168.2.10)", "trust pcp"}) {
      EXPECT_NE(result.out.find(needle), std::string::npos) << needle << "\n" << result.out;
    }
  }
}

TEST_F(SimNode, PortFilterSelectsOnePort) {
  auto result =
      run_command({kRocectl, "status", "--sim", dir_.string(), "--json", "--port", "lan4"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json report = json::parse(result.out);
  ASSERT_EQ(report["ports"].size(), 1u);
  EXPECT_EQ(report["ports"][0]["netdev"], "lan4");
}

TEST_F(SimNode, PfcSetThroughNetlinkShowsForThatPortOnly) {
  System system = roce_sim::simulated_system(dir_);
  dcb::DcbClient client(system);
  auto current = client.get("lan2");
  ASSERT_TRUE(current.ok()) << current.error().message;
  ASSERT_TRUE(current->pfc.has_value());
  dcb::Pfc pfc = *current->pfc;
  pfc.enabled_mask = 0x08;
  auto set = client.set_pfc("lan2", pfc);
  ASSERT_TRUE(set.ok()) << set.error().message;
  expect_pfc_on_3_for_lan2_only();
}

#if ROCED_HAVE_SHIM
TEST_F(SimNode, PfcSetByIproute2DcbShowsForThatPortOnly) {
  auto result = test::sim_exec(dir_, {"dcb", "pfc", "set", "dev", "lan2", "prio-pfc", "3:on"});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  expect_pfc_on_3_for_lan2_only();
}
#endif

}  // namespace
}  // namespace roced
