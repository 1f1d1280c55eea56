// SPDX-License-Identifier: Apache-2.0
// The D-Bus API end to end: a private dbus-daemon with the shipped policy, roced's Service over a
// Reconciler against a roce-sim node, called with busctl, with rocectl, and as user nobody. The
// signals are dbus_signals_test's, on the in-process node and its clock.
#include <gtest/gtest.h>
#include <sdbus-c++/sdbus-c++.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "daemon/config/config.hpp"
#include "daemon/dbus/names.hpp"
#include "daemon/dbus/service.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "node_files.hpp"
#include "os/system.hpp"
#include "private_bus.hpp"
#include "run_as.hpp"
#include "run_command.hpp"
#include "sim/transport/simulated_system.hpp"
#include "sim_node.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kConfig = test::kLosslessConfig;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : ",") + part;
  return out;
}

class DbusApi : public test::SimNode {
 protected:
  // The shipped policy; the permissive fixture below has none.
  virtual std::string policy_file() const {
    return std::string(ROCED_SOURCE_DIR) + "/packaging/dbus/io.roced.Daemon1.conf";
  }

  void SetUp() override {
    test::SimNode::SetUp();
    if (HasFatalFailure()) return;
    config_ = dir_ / "roced.yaml";
    std::ofstream(config_) << kConfig;
    bus_ = std::make_unique<test::PrivateBus>(policy_file());
    // Where sd-bus (ours, rocectl's, busctl's) finds "the system bus".
    ::setenv("DBUS_SYSTEM_BUS_ADDRESS", bus_->address().c_str(), 1);
    system_ = std::make_unique<System>(roce_sim::simulated_system(dir_));
    auto loaded = config::load_file(config_.string());
    ASSERT_TRUE(loaded.ok());
    reconciler_ = std::make_unique<reconcile::Reconciler>(*system_, *loaded.config);
    service_ = std::make_unique<dbus::Service>(
        *reconciler_,
        dbus::DaemonInfo{
            "9.8.7", config_.string(), fs::canonical(dir_).string(), system_->description, {}});
    service_->start();
    reconciler_->start();
  }

  void TearDown() override {
    service_.reset();
    reconciler_.reset();
    bus_.reset();
    ::unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
    test::SimNode::TearDown();
  }

  std::vector<std::string> busctl_args(std::vector<std::string> args) const {
    args.insert(args.begin(), {"busctl", "--address=" + bus_->address(), "--json=short"});
    return args;
  }
  std::vector<std::string> call_args(const std::string& method) const {
    return busctl_args({"call", dbus::kBusName, dbus::kObjectPath, dbus::kInterface, method});
  }
  // The method's one string result, parsed: busctl prints {"type":"s","data":["..."]}.
  Json call_json(const std::string& method) const {
    const auto result = test::run_command(call_args(method));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    if (result.exit_code != 0) return nullptr;
    return Json::parse(Json::parse(result.out).at("data").at(0).get<std::string>());
  }
  test::CommandResult rocectl(std::vector<std::string> args) const {
    args.insert(args.begin(), {ROCECTL_BINARY, "--sim", dir_.string()});
    return test::run_command(args);
  }

  fs::path config_;
  std::unique_ptr<test::PrivateBus> bus_;
  std::unique_ptr<System> system_;
  std::unique_ptr<reconcile::Reconciler> reconciler_;
  std::unique_ptr<dbus::Service> service_;
};

TEST_F(DbusApi, BusctlGetsThePlanOfEveryPortInSyncAfterStart) {
  const Json plan = call_json("GetPlan");
  ASSERT_TRUE(plan.is_object());
  ASSERT_EQ(plan["ports"].size(), 4u) << plan.dump(2);
  std::vector<std::string> names;
  for (const auto& port : plan["ports"]) {
    names.push_back(port["netdev"]);
    EXPECT_TRUE(port["in_sync"].get<bool>()) << port.dump(2);
    EXPECT_EQ(port["changes"].size(), 0u);
  }
  EXPECT_EQ(joined(names), "lan2,lan3,lan4,lan5");
  EXPECT_FALSE(plan["changes_pending"].get<bool>());
}

TEST_F(DbusApi, BusctlGetsTheStatusOfEveryPort) {
  const Json status = call_json("GetStatus");
  ASSERT_TRUE(status.is_object());
  EXPECT_EQ(status["daemon"]["version"], "9.8.7");
  EXPECT_EQ(status["daemon"]["config"], config_.string());
  ASSERT_EQ(status["ports"].size(), 4u) << status.dump(2);
  const Json& lan3 = status["ports"][1];
  EXPECT_EQ(lan3["netdev"], "lan3");
  EXPECT_EQ(lan3["condition"], "in-sync") << lan3.dump(2);
  EXPECT_EQ(lan3["drift"].size(), 0u);
  EXPECT_EQ(lan3["consecutive_failures"], 0);
  // What the daemon read back: PFC on priority 3 only, as configured.
  ASSERT_TRUE(lan3["observed"].is_object()) << lan3.dump(2);
  EXPECT_TRUE(lan3["last_check"].is_string());
}

TEST_F(DbusApi, PropertiesSayWhichConfigAndNode) {
  const auto result = test::run_command(busctl_args(
      {"get-property", dbus::kBusName, dbus::kObjectPath, dbus::kInterface, "ConfigPath"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(Json::parse(result.out)["data"], config_.string());
  const auto sim = test::run_command(
      busctl_args({"get-property", dbus::kBusName, dbus::kObjectPath, dbus::kInterface, "SimDir"}));
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_EQ(Json::parse(sim.out)["data"], fs::canonical(dir_).string());
}

TEST_F(DbusApi, RocectlTalksToTheDaemonAndSaysSo) {
  const auto status = rocectl({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.out << status.err;
  EXPECT_TRUE(contains(status.err, "from roced 9.8.7 over D-Bus")) << status.err;
  EXPECT_TRUE(contains(status.out, "lan3 (")) << status.out;
  EXPECT_TRUE(contains(status.out, ": in-sync")) << status.out;

  const auto status_json = rocectl({"status", "--json", "--port", "lan4"});
  ASSERT_EQ(status_json.exit_code, 0) << status_json.err;
  const Json doc = Json::parse(status_json.out);
  ASSERT_EQ(doc["ports"].size(), 1u);
  EXPECT_EQ(doc["ports"][0]["netdev"], "lan4");

  const auto plan = rocectl({"plan"});
  EXPECT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  EXPECT_TRUE(contains(plan.err, "over D-Bus")) << plan.err;
  EXPECT_TRUE(contains(plan.out, "all 4 ports in sync")) << plan.out;

  const auto apply = rocectl({"apply"});
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_TRUE(contains(apply.err, "over D-Bus")) << apply.err;
  EXPECT_TRUE(contains(apply.out, "4 ports: 4 in sync")) << apply.out;
}

TEST_F(DbusApi, RocectlPlanOverDbusPrintsWhatItPrintsDirectly) {
  // The daemon's plan read back prints the same document rocectl makes itself.
  const auto over_bus = rocectl({"plan", "--json"});
  const auto direct = rocectl({"plan", "--json", "--direct", "--config", config_.string()});
  ASSERT_EQ(over_bus.exit_code, 0) << over_bus.err;
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_TRUE(contains(over_bus.err, "over D-Bus"));
  EXPECT_FALSE(contains(direct.err, "over D-Bus")) << direct.err;
  EXPECT_EQ(Json::parse(over_bus.out), Json::parse(direct.out));
}

TEST_F(DbusApi, RocectlReadsDirectlyWhenTheDaemonServesAnotherNodeOrConfig) {
  // The real machine is not the node the daemon serves.
  const auto other_config = dir_ / "other.yaml";
  std::ofstream(other_config) << "ports:\n  netdevs: [lan2]\nprofile:\n  mtu: 1500\n";
  const auto plan = rocectl({"plan", "--config", other_config.string()});
  EXPECT_FALSE(contains(plan.err, "over D-Bus")) << plan.err;
  EXPECT_EQ(plan.exit_code, 2) << plan.out << plan.err;  // MTU 9000 -> 1500 pending
  EXPECT_TRUE(contains(plan.out, "mtu")) << plan.out;

  const auto real = test::run_command({ROCECTL_BINARY, "status", "--port", "lo"});
  EXPECT_FALSE(contains(real.err, "over D-Bus")) << real.err;
}

TEST_F(DbusApi, ReloadReportsABrokenFileAndKeepsRunning) {
  const auto good = test::run_command(call_args("Reload"));
  ASSERT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(Json::parse(good.out)["data"][0], true) << good.out;

  std::ofstream(config_) << "profile:\n  mtu: lots\n";
  const auto bad = test::run_command(call_args("Reload"));
  ASSERT_EQ(bad.exit_code, 0) << bad.err;
  const Json reply = Json::parse(bad.out);
  EXPECT_EQ(reply["data"][0], false) << bad.out;
  ASSERT_GE(reply["data"][1].size(), 1u) << bad.out;
  EXPECT_TRUE(contains(reply["data"][1][0].get<std::string>(), "roced.yaml:2:")) << bad.out;
  // The running configuration still holds: every port is in sync with MTU 9000.
  const Json plan = call_json("GetPlan");
  ASSERT_TRUE(plan.is_object());
  EXPECT_FALSE(plan["changes_pending"].get<bool>()) << plan.dump(2);
}

TEST_F(DbusApi, NobodyMayReadButNotApplyOrReload) {
  const auto status = test::run_as(test::kNobody, test::kNobody, call_args("GetStatus"));
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(Json::parse(status.out)["type"], "s");
  const auto plan = test::run_as(test::kNobody, test::kNobody, call_args("GetPlan"));
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  const auto storms = test::run_as(test::kNobody, test::kNobody, call_args("GetStorms"));
  ASSERT_EQ(storms.exit_code, 0) << storms.err;
  EXPECT_FALSE(Json::parse(Json::parse(storms.out)["data"][0].get<std::string>())["enabled"]);
  const auto version = test::run_as(test::kNobody, test::kNobody,
                                    busctl_args({"get-property", dbus::kBusName, dbus::kObjectPath,
                                                 dbus::kInterface, "Version"}));
  EXPECT_EQ(version.exit_code, 0) << version.err;

  // The bus refuses before the daemon sees the call: the policy file is what says no.
  for (const char* method : {"Apply", "Reload"}) {
    const auto refused = test::run_as(test::kNobody, test::kNobody, call_args(method));
    EXPECT_NE(refused.exit_code, 0) << method << ": " << refused.out;
    EXPECT_TRUE(contains(refused.err, "Access denied")) << method << ": " << refused.err;
    EXPECT_TRUE(contains(bus_->log(), std::string("member=\"") + method + "\""))
        << method << ": " << bus_->log();
  }
  EXPECT_TRUE(contains(bus_->log(), "Rejected send message")) << bus_->log();
  // rocectl names the error.
  const auto apply =
      test::run_as(test::kNobody, test::kNobody, {ROCECTL_BINARY, "--sim", dir_.string(), "apply"});
  EXPECT_EQ(apply.exit_code, 1) << apply.out << apply.err;
  EXPECT_TRUE(contains(apply.err, "org.freedesktop.DBus.Error.AccessDenied")) << apply.err;
  // And reads through the daemon what it could not read itself.
  const auto read = test::run_as(test::kNobody, test::kNobody,
                                 {ROCECTL_BINARY, "--sim", dir_.string(), "status"});
  EXPECT_EQ(read.exit_code, 0) << read.out << read.err;
  EXPECT_TRUE(contains(read.err, "over D-Bus")) << read.err;
}

// Without the policy file (a bus that lets anyone call anything) the daemon still refuses.
class DbusApiWithoutPolicy : public DbusApi {
 protected:
  std::string policy_file() const override { return {}; }
};

TEST_F(DbusApiWithoutPolicy, TheDaemonItselfRefusesNobodyApplyAndReload) {
  const auto apply =
      test::run_as(test::kNobody, test::kNobody, {ROCECTL_BINARY, "--sim", dir_.string(), "apply"});
  EXPECT_EQ(apply.exit_code, 1) << apply.out << apply.err;
  EXPECT_TRUE(contains(apply.err,
                       "only root may call Apply on io.roced.Daemon1 "
                       "(org.freedesktop.DBus.Error.AccessDenied)"))
      << apply.err;
  const auto reload = test::run_as(test::kNobody, test::kNobody, call_args("Reload"));
  EXPECT_NE(reload.exit_code, 0) << reload.out;
  EXPECT_TRUE(contains(reload.err, "Access denied")) << reload.err;
  // Not the bus: it let both through.
  EXPECT_FALSE(contains(bus_->log(), "Rejected send message")) << bus_->log();
  const auto status = test::run_as(test::kNobody, test::kNobody, call_args("GetStatus"));
  EXPECT_EQ(status.exit_code, 0) << status.err;
  // Root still may.
  const Json applied = call_json("Apply");
  ASSERT_TRUE(applied.is_object());
  EXPECT_TRUE(applied["ok"].get<bool>()) << applied.dump(2);
  EXPECT_FALSE(applied["changed"].get<bool>()) << applied.dump(2);
}

}  // namespace
}  // namespace roced
