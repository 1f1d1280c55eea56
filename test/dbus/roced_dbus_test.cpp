// SPDX-License-Identifier: Apache-2.0
// The roced binary on a private "system bus": the service attaches the D-Bus API after its first
// reconcile, answers busctl, routes Reload through the service (STATUS= and logs follow), and
// leaves the bus on SIGTERM.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "daemon/dbus/names.hpp"
#include "node_files.hpp"
#include "private_bus.hpp"
#include "run_command.hpp"
#include "sim_exec.hpp"
#include "sim_node.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using test::contains;

class RocedOnTheBus : public test::SimNode {
 protected:
  void SetUp() override {
    test::SimNode::SetUp();
    if (HasFatalFailure()) return;
    config_ = dir_ / "roced.yaml";
    test::write_file(config_, test::kLosslessConfig);
    bus_ = std::make_unique<test::PrivateBus>(std::string(ROCED_SOURCE_DIR) +
                                              "/packaging/dbus/io.roced.Daemon1.conf");
    log_ = dir_ / "roced.log";
    const test::ExecImage image({ROCED_BINARY, "--sim", dir_.string(), "--config", config_.string(),
                                 "--log-target", "console"},
                                {"DBUS_SYSTEM_BUS_ADDRESS=" + bus_->address()});
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      image.exec();
      ::_exit(127);
    }
  }

  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    bus_.reset();
    test::SimNode::TearDown();
  }

  test::CommandResult call(const std::string& method) const {
    return test::run_command({"busctl", "--address=" + bus_->address(), "--json=short", "call",
                              dbus::kBusName, dbus::kObjectPath, dbus::kInterface, method});
  }

  std::string status_line() const {
    return test::run_command({"busctl", "--address=" + bus_->address(), "get-property",
                              dbus::kBusName, dbus::kObjectPath, dbus::kInterface, "StatusLine"})
        .out;
  }
  test::CommandResult rocectl(const std::string& command) const {
    return rocectl(std::vector<std::string>{command});
  }
  test::CommandResult rocectl(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {"env", "DBUS_SYSTEM_BUS_ADDRESS=" + bus_->address(),
                                     ROCECTL_BINARY, "--sim", dir_.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_command(argv);
  }

  // The violations of docs/schema/roced.<name>.v1.json by `document` (python3-jsonschema); empty
  // when it conforms.
  std::string schema_violations(const std::string& name, const std::string& document) const {
    const fs::path file = dir_ / ("document-" + std::to_string(documents_++) + ".json");
    test::write_file(file, document);
    const std::string source = ROCED_SOURCE_DIR;
    const auto check =
        test::run_command({"python3", source + "/test/schema/check_json.py",
                           source + "/docs/schema/roced." + name + ".v1.json", file.string()});
    if (check.exit_code == 0) return "";
    return check.out + check.err + (check.out.empty() && check.err.empty() ? "failed" : "");
  }

  // GetStatus once roced has claimed the name (after its first reconcile).
  // The status once roced is ready (its first checks done: the bus answers before that).
  Json status_when_up() const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!contains(test::read_file(log_), "ready: ") &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    while (std::chrono::steady_clock::now() < deadline) {
      const auto result = call("GetStatus");
      if (result.exit_code == 0) {
        return Json::parse(Json::parse(result.out).at("data").at(0).get<std::string>());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return nullptr;
  }

  fs::path config_;
  fs::path log_;
  mutable int documents_ = 0;
  std::unique_ptr<test::PrivateBus> bus_;
  pid_t pid_ = -1;
};

TEST_F(RocedOnTheBus, ServesStatusReloadsThroughTheServiceAndLeavesOnSigterm) {
  const Json status = status_when_up();
  ASSERT_FALSE(status.is_null()) << test::read_file(log_);
  ASSERT_EQ(status.at("ports").size(), 4u) << status.dump();
  for (const Json& port : status.at("ports")) {
    EXPECT_EQ(port.at("condition"), "in-sync") << port.dump();
  }
  EXPECT_TRUE(contains(test::read_file(log_), "D-Bus API: io.roced.Daemon1"))
      << test::read_file(log_);

  test::write_file(config_, std::string(test::kLosslessConfig) + "  mtu: lots\n");
  const auto reload = call("Reload");
  ASSERT_EQ(reload.exit_code, 0) << reload.err;
  const Json answer = Json::parse(reload.out).at("data");
  EXPECT_EQ(answer.at(0), false) << reload.out;
  EXPECT_TRUE(contains(answer.at(1).dump(), "profile.mtu")) << reload.out;
  // The service's own reload path logs what SIGHUP's does.
  EXPECT_TRUE(contains(test::read_file(log_), "keeping the running configuration"))
      << test::read_file(log_);
  // The daemon's status line says so, on the bus as in STATUS=.
  EXPECT_TRUE(contains(status_line(), "reload failed, running the previous configuration"))
      << status_line();

  // rocectl reload, the unit's ExecReload: its exit status is the reload's outcome.
  const auto refused = rocectl("reload");
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_TRUE(contains(refused.err, "roced.yaml:")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "keeps running the configuration it had")) << refused.err;
  test::write_file(config_, std::string(test::kLosslessConfig));
  const auto reloaded = rocectl("reload");
  EXPECT_EQ(reloaded.exit_code, 0) << reloaded.err;
  EXPECT_FALSE(contains(status_line(), "reload failed")) << status_line();

  ::kill(pid_, SIGTERM);
  int status_code = 0;
  ASSERT_EQ(::waitpid(pid_, &status_code, 0), pid_);
  pid_ = -1;
  EXPECT_TRUE(WIFEXITED(status_code) && WEXITSTATUS(status_code) == 0) << test::read_file(log_);
  EXPECT_NE(call("GetStatus").exit_code, 0) << "the name is released";
}

// rocectl check, a health check's command, against the real daemon: OK while every port is in
// sync, CRITICAL once a port drifts (under report nothing corrects it) and once roced is gone.
// rocectl status, informational, still exits 0 with the drifted port and shows its link and PFC.
// A bus that comes up after roced (a pod's bus container, a restarted dbus.service): roced keeps
// the ports right meanwhile and offers its API once the bus is there, without a restart.
TEST_F(RocedOnTheBus, ABusThatComesLaterIsFoundWithoutARestart) {
  // This roced's bus is not there yet: the fixture's stays idle.
  ::kill(pid_, SIGTERM);
  ::waitpid(pid_, nullptr, 0);
  const fs::path socket = dir_ / "late-bus";
  const fs::path log = dir_ / "roced-late.log";
  const test::ExecImage image({ROCED_BINARY, "--sim", dir_.string(), "--config", config_.string(),
                               "--log-target", "console"},
                              {"DBUS_SYSTEM_BUS_ADDRESS=unix:path=" + socket.string()});
  pid_ = ::fork();
  ASSERT_GE(pid_, 0);
  if (pid_ == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    image.exec();
    ::_exit(127);
  }
  const auto logged = [&](const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!contains(test::read_file(log), text)) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  };
  ASSERT_TRUE(logged("ready: ")) << test::read_file(log);
  EXPECT_TRUE(contains(test::read_file(log), "D-Bus API not offered")) << test::read_file(log);

  test::PrivateBus late(std::string(ROCED_SOURCE_DIR) + "/packaging/dbus/io.roced.Daemon1.conf",
                        socket.string());
  ASSERT_TRUE(logged("on the system bus, now that it is there")) << test::read_file(log);
  const auto status =
      test::run_command({"busctl", "--address=" + late.address(), "get-property", dbus::kBusName,
                         dbus::kObjectPath, dbus::kInterface, "StatusLine"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_TRUE(contains(status.out, "in sync")) << status.out;
}

// The bus goes away under a running roced and comes back (dbus.service restarted, a pod's bus
// container restarted): roced offers its API on the new one, without a restart.
TEST_F(RocedOnTheBus, ABusThatComesBackIsFoundAgain) {
  ASSERT_FALSE(status_when_up().is_null()) << test::read_file(log_);
  const std::string policy =
      std::string(ROCED_SOURCE_DIR) + "/packaging/dbus/io.roced.Daemon1.conf";
  const std::string socket = bus_->address().substr(std::string("unix:path=").size());
  bus_.reset();  // its folder goes with it; the new one listens at the same path
  const auto logged = [&](const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!contains(test::read_file(log_), text)) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  };
  ASSERT_TRUE(logged("D-Bus API gone with the bus")) << test::read_file(log_);
  fs::create_directories(fs::path(socket).parent_path());
  bus_ = std::make_unique<test::PrivateBus>(policy, socket);
  ASSERT_TRUE(logged("on the system bus, now that it is there")) << test::read_file(log_);
  EXPECT_TRUE(contains(status_line(), "in sync")) << status_line();
  ::kill(pid_, SIGTERM);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
  bus_.reset();
  fs::remove_all(fs::path(socket).parent_path());
}

TEST_F(RocedOnTheBus, CheckSaysOkThenCriticalWhenAPortDriftsOrRocedStops) {
  ASSERT_FALSE(status_when_up().is_null()) << test::read_file(log_);
  const auto ok = rocectl("check");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out.rfind("ROCE OK - 4 ports in sync", 0), 0u) << ok.out;
  const auto shown = rocectl("status");
  EXPECT_TRUE(contains(shown.out, "  link     up 400 Gb/s, mtu 9000, pfc 3\n")) << shown.out;

  test::write_file(config_,
                   std::string(test::kLosslessConfig) + "daemon:\n  drift_policy: report\n");
  ASSERT_EQ(rocectl("reload").exit_code, 0);
  const auto set = test::sim_exec(dir_, {"dcb", "pfc", "set", "dev", "lan3", "prio-pfc", "3:off"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  test::CommandResult check;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    check = rocectl(std::vector<std::string>{"check", "--verbose"});
  } while (check.exit_code != 2 && std::chrono::steady_clock::now() < deadline);
  EXPECT_EQ(check.exit_code, 2) << check.out << test::read_file(log_);
  EXPECT_EQ(check.out.rfind("ROCE CRITICAL - lan3 drifted (pfc.priorities", 0), 0u) << check.out;
  const auto drifted = rocectl("status");
  EXPECT_EQ(drifted.exit_code, 0) << "status is informational: " << drifted.out;
  EXPECT_TRUE(contains(drifted.out, "lan3 (mlx5_1:1): drifted")) << drifted.out;

  ::kill(pid_, SIGTERM);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
  const auto gone = rocectl("check");
  EXPECT_EQ(gone.exit_code, 2) << gone.out;
  EXPECT_EQ(gone.out.rfind("ROCE CRITICAL - roced is not running", 0), 0u) << gone.out;
}

// Every JSON document rocectl prints has one schema, whoever answers: roced over D-Bus or rocectl
// reading the ports itself. Each output is checked against docs/schema, and the two status
// documents carry the same keys in the same order.
// qualify --write would fight the daemon (it puts back what qualify changes): refused, nothing
// written; the read-only run goes ahead beside it.
TEST_F(RocedOnTheBus, QualifyWriteIsRefusedWhileRocedRunsForTheNode) {
  ASSERT_FALSE(status_when_up().is_null());
  const fs::path out = dir_ / "qualify";
  fs::create_directories(out);
  const auto refused =
      rocectl({"qualify", "--write", "--links-may-flap", "--port", "lan2", "--out", out.string()});
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_TRUE(contains(refused.err, "roced runs for this node")) << refused.err;
  EXPECT_FALSE(fs::exists(out / "roced-qualify.json"));
  const auto read_only = rocectl({"qualify", "--port", "lan2", "--out", out.string()});
  EXPECT_NE(read_only.exit_code, 1) << read_only.err;
  EXPECT_TRUE(fs::exists(out / "roced-qualify.json"));
}

TEST_F(RocedOnTheBus, EveryJsonDocumentMatchesItsSchemaWhoeverAnswers) {
  ASSERT_FALSE(status_when_up().is_null()) << test::read_file(log_);
  const std::string config = config_.string();
  const fs::path broken = dir_ / "broken.yaml";
  test::write_file(broken, "profile:\n  mtu: lots\n  pfc: {priorities: [9]\n");
  const struct {
    std::string schema;
    std::vector<std::string> args;
    int exit_code;
  } runs[] = {
      {"status", {"status", "--json"}, 0},
      {"status", {"status", "--json", "--direct"}, 0},
      {"status", {"status", "--json", "--direct", "--port", "lan3", "--port", "lan9"}, 1},
      {"plan", {"plan", "--json"}, 0},
      {"plan", {"plan", "--json", "--direct", "--config", config}, 0},
      {"plan", {"apply", "--check", "--json"}, 0},
      {"apply", {"apply", "--json"}, 0},
      {"apply", {"apply", "--json", "--diff", "--direct", "--config", config}, 0},
      {"validate", {"validate", "--json", config}, 0},
      {"validate", {"validate", "--json", broken.string()}, 1},
      {"validate", {"validate", "--json", (dir_ / "absent.yaml").string()}, 1},
  };
  using Ordered = nlohmann::ordered_json;
  std::map<std::string, Ordered> status_by_answer;
  for (const auto& run : runs) {
    std::string command;
    for (const auto& arg : run.args) command += " " + arg;
    SCOPED_TRACE("rocectl" + command);
    const auto result = rocectl(run.args);
    EXPECT_EQ(result.exit_code, run.exit_code) << result.err;
    EXPECT_EQ(schema_violations(run.schema, result.out), "") << result.out;
    const Ordered doc = Ordered::parse(result.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << result.out;
    EXPECT_EQ(doc.value("schema", ""), "roced." + run.schema + "/v1");
    if (run.schema == "status" && run.exit_code == 0) status_by_answer[doc["answered_by"]] = doc;
  }
  // The same keys in the same order from roced and from rocectl, down to what was read back.
  ASSERT_EQ(status_by_answer.size(), 2u);
  const auto key_order = [](const Ordered& object) {
    std::vector<std::string> keys;
    for (const auto& item : object.items()) keys.push_back(item.key());
    return keys;
  };
  const Ordered& from_roced = status_by_answer["roced"];
  const Ordered& from_rocectl = status_by_answer["rocectl"];
  EXPECT_EQ(key_order(from_roced), key_order(from_rocectl));
  ASSERT_EQ(from_roced["ports"].size(), from_rocectl["ports"].size());
  for (size_t i = 0; i < from_roced["ports"].size(); ++i) {
    const auto& a = from_roced["ports"][i];
    const auto& b = from_rocectl["ports"][i];
    EXPECT_EQ(a["netdev"], b["netdev"]);
    EXPECT_EQ(key_order(a), key_order(b));
    EXPECT_EQ(key_order(a["observed"]), key_order(b["observed"]));
  }
}

// An edit not reloaded yet: rocectl plan shows the file's plan (the disruption a reload would
// make), says that the file differs from what roced runs, and apply makes roced take it first.
// An invalid edit is said with its line and changes nothing.
TEST_F(RocedOnTheBus, PlanShowsTheEditedFileAndApplyHasRocedTakeIt) {
  ASSERT_FALSE(status_when_up().is_null()) << test::read_file(log_);
  std::string edited = test::kLosslessConfig;
  edited.replace(edited.find("mtu: 9000"), 9, "mtu: 4200");
  test::write_file(config_, edited);

  const auto plan = rocectl("plan");
  EXPECT_EQ(plan.exit_code, 2) << plan.out << plan.err;
  EXPECT_TRUE(contains(plan.out, "9000 -> 4200")) << plan.out;
  EXPECT_TRUE(contains(plan.err, "differs from the configuration roced runs (profile changed"))
      << plan.err;

  test::write_file(config_, std::string(test::kLosslessConfig) + "  mtu: lots\n");
  const auto invalid = rocectl("plan");
  EXPECT_EQ(invalid.exit_code, 1) << invalid.out << invalid.err;
  EXPECT_TRUE(contains(invalid.err, "profile.mtu")) << invalid.err;
  EXPECT_TRUE(contains(invalid.err, "roced keeps running the configuration it has")) << invalid.err;

  test::write_file(config_, edited);
  const auto applied = rocectl(std::vector<std::string>{"apply", "--yes"});
  EXPECT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_TRUE(contains(applied.err, "roced took")) << applied.err;
  const auto link = test::sim_exec(dir_, {"ip", "link", "show", "dev", "lan3"});
  EXPECT_TRUE(contains(link.out, "mtu 4200")) << link.out;
  const auto settled = rocectl("plan");
  EXPECT_EQ(settled.exit_code, 0) << settled.out << settled.err;
  EXPECT_FALSE(contains(settled.err, "differs")) << settled.err;
}

// Links that train for seconds after each PFC change, one port at a time: the first apply takes
// a while. The bus answers during it (so does everything that starts with it: the endpoint, the
// storm watchdog), and a rocectl apply made meanwhile goes through roced, whose pacing then
// holds for both, instead of finding no daemon and writing the ports beside it.
class RocedStartingOnTheBus : public RocedOnTheBus {
  std::optional<uint32_t> link_training_ms() const override { return std::nullopt; }
};

TEST_F(RocedStartingOnTheBus, AnswersDuringTheFirstApplyAndRocectlAppliesThroughIt) {
  // Once roced holds the node's lock (it logs "starting on" right after): from then on rocectl
  // knows it runs, bus or not yet.
  const auto patience = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!contains(test::read_file(log_), "starting on") &&
         std::chrono::steady_clock::now() < patience) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto applied = rocectl(std::vector<std::string>{"apply", "--yes"});
  EXPECT_EQ(applied.exit_code, 0) << applied.out << applied.err << test::read_file(log_);
  EXPECT_TRUE(contains(applied.err, "over D-Bus")) << applied.err;
  // The first answer on the bus came while roced was still starting.
  const std::string log = test::read_file(log_);
  const auto serving = log.find("watching and serving; the ports' first checks go on");
  const auto ready = log.find("ready: ");
  ASSERT_NE(serving, std::string::npos) << log;
  ASSERT_NE(ready, std::string::npos) << log;
  EXPECT_LT(serving, ready) << log;
  EXPECT_LT(log.find("D-Bus API: io.roced.Daemon1"), ready) << log;
  const Json status = status_when_up();
  for (const Json& port : status.at("ports")) {
    EXPECT_EQ(port.at("condition"), "in-sync") << port.dump();
  }
}

}  // namespace
}  // namespace roced
