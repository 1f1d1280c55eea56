// SPDX-License-Identifier: Apache-2.0
// The roced binary with its storm watchdog on a private "system bus": StormDetected,
// StormRemediated, StormRestored and StormEscalated arrive for what happens on the simulated node,
// with what they say, and GetStorms tells the same story afterwards.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sdbus-c++/sdbus-c++.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "daemon/dbus/names.hpp"
#include "daemon/dbus/sdbus_compat.hpp"
#include "node_files.hpp"
#include "private_bus.hpp"
#include "run_command.hpp"
#include "sim_node.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;

// lan3: an RX storm that disable-pfc ends. lan4: a TX storm whose NIC ignores stall prevention.
// The storms are injected once roced is polling, so a slow start cannot miss them.
constexpr const char* kScenario =
    "name: storms-on-the-bus\n"
    "traffic:\n"
    "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
    "  - {port: lan4, priority: 3, direction: rx, rate: 100G}\n";

// Two seconds each: long enough that stall prevention is judged (and fails) while lan4 still storms
// however late a poll runs on a busy machine.
constexpr const char* kStorms =
    "events:\n"
    "  - {at: 0s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 2s}\n"
    "  - {at: 0s, kind: pfc_storm, port: lan4, priority: 3, direction: tx, duration: 2s,\n"
    "     ignores_remediation: true}\n";

constexpr const char* kWatchdog =
    "watchdog: {enabled: true, poll_interval: 10ms, detection_time: 50ms, "
    "restoration_time: 300ms, action: {rx: disable-pfc, tx: stall-prevention}}\n";

class RocedStormsOnTheBus : public test::SimNode {
  // disable-pfc flaps the link, and restoration then waits seconds for the carrier
  // (DisablePfcOnLinksThatTrain). These tests time the signals of 1 s storms: links train at once.
  std::optional<uint32_t> link_training_ms() const override { return 0; }

 protected:
  static std::string scenario_path() {
    return "/tmp/roced-storms-dbus-" + std::to_string(::getpid()) + ".yaml";
  }
  std::string scenario_file() const override {
    test::write_file(scenario_path(), kScenario);
    return scenario_path();
  }

  void SetUp() override {
    test::SimNode::SetUp();
    if (HasFatalFailure()) return;
    config_ = dir_ / "roced.yaml";
    test::write_file(config_, std::string(test::kLosslessConfig) + kWatchdog);
    bus_ = std::make_unique<test::PrivateBus>(std::string(ROCED_SOURCE_DIR) +
                                              "/packaging/dbus/io.roced.Daemon1.conf");
    ::setenv("DBUS_SYSTEM_BUS_ADDRESS", bus_->address().c_str(), 1);
    // Listening before roced runs: the match on its well-known name holds once it owns it.
    connection_ = sdbus::createSystemBusConnection();
    proxy_ = dbus::make_proxy(*connection_, dbus::kBusName, dbus::kObjectPath);
    proxy_->uponSignal("StormDetected")
        .onInterface(dbus::kInterface)
        .call([this](const std::string& netdev, uint32_t priority, const std::string& direction,
                     double latency, const std::string& message) {
          add({"StormDetected", netdev, priority, direction, "", latency, message});
        });
    proxy_->uponSignal("StormRemediated")
        .onInterface(dbus::kInterface)
        .call([this](const std::string& netdev, uint32_t priority, const std::string& direction,
                     const std::string& action, const std::string& message) {
          add({"StormRemediated", netdev, priority, direction, action, 0, message});
        });
    proxy_->uponSignal("StormRestored")
        .onInterface(dbus::kInterface)
        .call([this](const std::string& netdev, uint32_t priority, const std::string& direction,
                     double duration, const std::string& message) {
          add({"StormRestored", netdev, priority, direction, "", duration, message});
        });
    proxy_->uponSignal("StormEscalated")
        .onInterface(dbus::kInterface)
        .call([this](const std::string& netdev, uint32_t priority, const std::string& direction,
                     const std::string& reason, bool critical, const std::string& message) {
          add({"StormEscalated", netdev, priority, direction, reason + (critical ? "!" : ""), 0,
               message});
        });
    dbus::finish_signals(*proxy_);
    connection_->enterEventLoopAsync();

    log_ = dir_ / "roced.log";
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::execl(ROCED_BINARY, ROCED_BINARY, "--sim", dir_.c_str(), "--config", config_.c_str(),
              "--log-target", "console", "--no-metrics", static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }

  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    if (connection_) connection_->leaveEventLoop();
    proxy_.reset();
    connection_.reset();
    bus_.reset();
    std::filesystem::remove(scenario_path());  // written for the node, in SimNode::SetUp
    ::unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
    test::SimNode::TearDown();
  }

  struct Signal {
    std::string name, netdev;
    uint32_t priority;
    std::string direction, detail;  // action, or reason ("!" = critical)
    double seconds;                 // latency or duration
    std::string message;
  };
  void add(Signal signal) {
    std::lock_guard lock(mutex_);
    signals_.push_back(std::move(signal));
    changed_.notify_all();
  }
  std::vector<Signal> signals() {
    std::lock_guard lock(mutex_);
    return signals_;
  }
  // Generous: this is not a speed test.
  bool wait_for(const std::function<bool(const std::vector<Signal>&)>& done) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 60s, [&] { return done(signals_); });
  }
  // roced owns its name and its watchdog has polled: a storm injected now is one it watches begin.
  // Real time: the patience is only for a daemon that never gets there.
  bool wait_until_polling() {
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < give_up) {
      const auto answer =
          test::run_command({"busctl", "--address=" + bus_->address(), "--json=short", "call",
                             dbus::kBusName, dbus::kObjectPath, dbus::kInterface, "GetStorms"});
      if (answer.exit_code == 0) {
        const Json storms =
            Json::parse(Json::parse(answer.out).at("data").at(0).get<std::string>());
        polls_before_storms = storms.at("polls").get<uint64_t>();
        if (polls_before_storms > 0) return true;
      }
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }
  std::vector<std::string> names_for(const std::string& netdev) {
    std::vector<std::string> out;
    for (const auto& s : signals()) {
      if (s.netdev == netdev) out.push_back(s.name);
    }
    return out;
  }

  fs::path config_, log_;
  std::unique_ptr<test::PrivateBus> bus_;
  std::unique_ptr<sdbus::IConnection> connection_;
  std::unique_ptr<sdbus::IProxy> proxy_;
  pid_t pid_ = -1;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Signal> signals_;
  uint64_t polls_before_storms = 0;
};

TEST_F(RocedStormsOnTheBus, EveryStormSignalArrivesWithWhatHappened) {
  ASSERT_TRUE(wait_until_polling()) << test::read_file(log_);
  const fs::path storms_file = dir_.parent_path() / (dir_.filename().string() + "-storms.yaml");
  test::write_file(storms_file, kStorms);
  const auto injected =
      test::run_command({ROCE_SIM_BINARY, "inject", dir_.string(), storms_file.string()});
  fs::remove(storms_file);
  ASSERT_EQ(injected.exit_code, 0) << injected.out << injected.err;

  const bool both_restored = wait_for([](const std::vector<Signal>& all) {
    int restored = 0;
    for (const auto& s : all) restored += s.name == "StormRestored";
    return restored == 2;
  });
  ASSERT_TRUE(both_restored) << test::read_file(log_);

  EXPECT_EQ(names_for("lan3"),
            (std::vector<std::string>{"StormDetected", "StormRemediated", "StormRestored"}));
  EXPECT_EQ(names_for("lan4"),
            (std::vector<std::string>{"StormDetected", "StormEscalated", "StormRestored"}));
  for (const auto& s : signals()) {
    EXPECT_EQ(s.priority, 3u) << s.name;
    EXPECT_EQ(s.direction, s.netdev == "lan3" ? "rx" : "tx") << s.name;
    EXPECT_FALSE(s.message.empty()) << s.name;
    // Real processes on a real clock: only what holds however late a poll runs. The precise
    // latencies and durations are checked on simulated time (watchdog.StormDetector*).
    if (s.name == "StormDetected") {
      EXPECT_GE(s.seconds, 0.050) << s.message;  // never before the detection time
    }
    if (s.name == "StormRemediated") {
      EXPECT_EQ(s.detail, "disable-pfc");
    }
    if (s.name == "StormEscalated") {
      EXPECT_EQ(s.detail, "remediation-failed!") << s.message;
    }
    if (s.name == "StormRestored") {
      EXPECT_GT(s.seconds, 1.0) << s.message;  // the storms lasted 2 s
      EXPECT_LT(s.seconds, 60.0) << s.message;
    }
  }

  // StormRestored says the action is being undone (docs/dbus.md): GetStorms tells once it is.
  // Real time: the patience is for an undo that never comes.
  const auto get_storms_now = [&] {
    const auto answer =
        test::run_command({"busctl", "--address=" + bus_->address(), "--json=short", "call",
                           dbus::kBusName, dbus::kObjectPath, dbus::kInterface, "GetStorms"});
    EXPECT_EQ(answer.exit_code, 0) << answer.err;
    return answer.exit_code == 0
               ? Json::parse(Json::parse(answer.out).at("data").at(0).get<std::string>())
               : Json::object({{"storms", Json::array()}});
  };
  const auto undone = [](const Json& all) {
    for (const Json& storm : all.at("storms")) {
      if (storm.at("netdev") == "lan3" && storm.at("direction") == "rx") {
        return storm.at("action_in_effect") == false;
      }
    }
    return false;
  };
  Json storms = get_storms_now();
  const auto undo_patience = std::chrono::steady_clock::now() + 60s;
  while (!undone(storms) && std::chrono::steady_clock::now() < undo_patience) {
    std::this_thread::sleep_for(20ms);
    storms = get_storms_now();
  }
  EXPECT_EQ(storms.at("enabled"), true);
  EXPECT_EQ(storms.at("poll_interval_ms"), 10);
  EXPECT_GT(storms.at("polls").get<uint64_t>(), polls_before_storms);
  int seen = 0;
  for (const Json& storm : storms.at("storms")) {
    const std::string where =
        storm.at("netdev").get<std::string>() + "/" + storm.at("direction").get<std::string>();
    const bool lan3 = where == "lan3/rx";
    const bool lan4 = where == "lan4/tx";
    EXPECT_EQ(storm.at("detections"), lan3 || lan4 ? 1 : 0) << where;
    EXPECT_EQ(storm.at("active"), false) << where;
    if (!lan3 && !lan4) {
      EXPECT_TRUE(storm.at("last_action").is_null()) << storm.dump();
    }
    if (lan3) {
      ++seen;
      EXPECT_EQ(storm.at("actions").at("disable-pfc").at("ok"), 1) << storm.dump();
      EXPECT_EQ(storm.at("escalations").at("remediation-failed"), 0) << storm.dump();
      // Restored: PFC is back, and the action that was taken is still told.
      EXPECT_EQ(storm.at("action_in_effect"), false) << storm.dump();
      EXPECT_EQ(storm.at("last_action"), Json({{"action", "disable-pfc"}, {"result", "ok"}}))
          << storm.dump();
    }
    if (lan4) {
      ++seen;
      EXPECT_EQ(storm.at("actions").at("stall-prevention").at("ok"), 1) << storm.dump();
      EXPECT_EQ(storm.at("escalations").at("remediation-failed"), 1) << storm.dump();
      EXPECT_EQ(storm.at("last_action").at("action"), "stall-prevention") << storm.dump();
    }
  }
  EXPECT_EQ(seen, 2) << storms.dump();

  // A reload that changes the section reaches the running watchdog, its storms' history kept.
  test::write_file(config_, std::string(test::kLosslessConfig) +
                                "watchdog: {enabled: true, poll_interval: 20ms, "
                                "detection_time: 60ms, restoration_time: 500ms, action: alert}\n");
  const auto reload =
      test::run_command({"busctl", "--address=" + bus_->address(), "--json=short", "call",
                         dbus::kBusName, dbus::kObjectPath, dbus::kInterface, "Reload"});
  ASSERT_EQ(reload.exit_code, 0) << reload.err;
  EXPECT_EQ(Json::parse(reload.out).at("data").at(0), true) << reload.out;
  const auto after =
      test::run_command({"busctl", "--address=" + bus_->address(), "--json=short", "call",
                         dbus::kBusName, dbus::kObjectPath, dbus::kInterface, "GetStorms"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  const Json now = Json::parse(Json::parse(after.out).at("data").at(0).get<std::string>());
  EXPECT_EQ(now.at("poll_interval_ms"), 20) << now.dump();
  EXPECT_EQ(now.at("restoration_time_ms"), 500) << now.dump();
  EXPECT_EQ(now.at("action").at("rx"), "alert") << now.dump();
  EXPECT_GE(now.at("polls").get<uint64_t>(), storms.at("polls").get<uint64_t>());
  for (const Json& storm : now.at("storms")) {
    const std::string where =
        storm.at("netdev").get<std::string>() + "/" + storm.at("direction").get<std::string>();
    const bool stormed = where == "lan3/rx" || where == "lan4/tx";
    EXPECT_EQ(storm.at("detections"), stormed ? 1 : 0) << where;
  }
  EXPECT_NE(test::read_file(log_).find("PFC storm watchdog reconfigured: poll 20 ms"),
            std::string::npos)
      << test::read_file(log_);

  // Switched off by a reload, and on again: no restart.
  const auto reload_with = [&](const std::string& watchdog) {
    test::write_file(config_, std::string(test::kLosslessConfig) + "watchdog: " + watchdog + "\n");
    const auto answer =
        test::run_command({"busctl", "--address=" + bus_->address(), "--json=short", "call",
                           dbus::kBusName, dbus::kObjectPath, dbus::kInterface, "Reload"});
    ASSERT_EQ(answer.exit_code, 0) << answer.err;
    EXPECT_EQ(Json::parse(answer.out).at("data").at(0), true) << answer.out;
  };
  const auto get_storms = [&] {
    const auto answer =
        test::run_command({"busctl", "--address=" + bus_->address(), "--json=short", "call",
                           dbus::kBusName, dbus::kObjectPath, dbus::kInterface, "GetStorms"});
    EXPECT_EQ(answer.exit_code, 0) << answer.err;
    return Json::parse(Json::parse(answer.out).at("data").at(0).get<std::string>());
  };
  ASSERT_NO_FATAL_FAILURE(reload_with("{enabled: false}"));
  const Json off = get_storms();
  EXPECT_EQ(off.at("enabled"), false) << off.dump();
  EXPECT_TRUE(off.at("storms").empty()) << off.dump();
  EXPECT_NE(test::read_file(log_).find("PFC storm watchdog switched by reload: off"),
            std::string::npos)
      << test::read_file(log_);

  ASSERT_NO_FATAL_FAILURE(reload_with("{enabled: true, poll_interval: 10ms, action: alert}"));
  const Json on = get_storms();
  EXPECT_EQ(on.at("enabled"), true) << on.dump();
  EXPECT_EQ(on.at("poll_interval_ms"), 10) << on.dump();
  // The history of the storms before stays; the polls go on from where they were.
  for (const Json& storm : on.at("storms")) {
    const std::string where =
        storm.at("netdev").get<std::string>() + "/" + storm.at("direction").get<std::string>();
    EXPECT_EQ(storm.at("detections"), where == "lan3/rx" || where == "lan4/tx" ? 1 : 0) << where;
  }
  // Real time here: the patience is for a loop that never starts again.
  const auto polls = on.at("polls").get<uint64_t>();
  const auto give_up = std::chrono::steady_clock::now() + 60s;
  while (get_storms().at("polls").get<uint64_t>() <= polls &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_GT(get_storms().at("polls").get<uint64_t>(), polls) << "no poll after switching it on";
}

}  // namespace
}  // namespace roced
