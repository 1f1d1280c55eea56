// SPDX-License-Identifier: Apache-2.0
// The D-Bus signals as a subscriber sees them: roced's Service over a Reconciler on roce-sim's
// node in this process and its simulated clock, on a private dbus-daemon with the shipped policy.
// A foreign PFC change is signalled drifted then corrected; a driver reload, a failing write and a
// foreign tool are signalled vanished, appeared, apply-failed and corrected, in that order.
#include <gtest/gtest.h>
#include <sdbus-c++/sdbus-c++.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <mutex>

#include "daemon/config/config.hpp"
#include "daemon/dbus/names.hpp"
#include "daemon/dbus/sdbus_compat.hpp"
#include "daemon/dbus/service.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "dcb/client.hpp"
#include "in_process_node.hpp"
#include "node_files.hpp"
#include "private_bus.hpp"
#include "sim/model/scenario.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr uint8_t kPfcWanted = 1U << 3;

// The signals one test saw, in order, as "PortDrifted lan3 pfc.priorities" lines.
class SignalLog {
 public:
  void add(std::string line) {
    const std::lock_guard lock(mutex_);
    lines_.push_back(std::move(line));
  }
  std::vector<std::string> lines() const {
    const std::lock_guard lock(mutex_);
    return lines_;
  }
  // Where the first line starting with `prefix` is; -1 when none.
  int index_of(const std::string& prefix) const {
    const auto all = lines();
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].rfind(prefix, 0) == 0) return static_cast<int>(i);
    }
    return -1;
  }
  // Where the last one is; -1 when none.
  int last_index_of(const std::string& prefix) const {
    const auto all = lines();
    for (size_t i = all.size(); i > 0; --i) {
      if (all[i - 1].rfind(prefix, 0) == 0) return static_cast<int>(i - 1);
    }
    return -1;
  }
  bool has(const std::string& prefix) const { return index_of(prefix) >= 0; }
  std::string text() const {
    std::string out;
    for (const auto& line : lines()) out += line + "\n";
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : ",") + part;
  return out;
}

class DbusSignals : public test::InProcessNode {
 protected:
  virtual std::string scenario() const { return {}; }

  void SetUp() override {
    InProcessNode::SetUp();
    if (HasFatalFailure()) return;
    if (!scenario().empty()) node_->play(roce_sim::parse_scenario_yaml(scenario(), "s.yaml"));
    config_ = dir_ / "roced.yaml";
    std::ofstream(config_) << test::kLosslessConfig;
    bus_ = std::make_unique<test::PrivateBus>(std::string(ROCED_SOURCE_DIR) +
                                              "/packaging/dbus/io.roced.Daemon1.conf");
    // Where sd-bus finds "the system bus".
    ::setenv("DBUS_SYSTEM_BUS_ADDRESS", bus_->address().c_str(), 1);
    auto loaded = config::load_file(config_.string());
    ASSERT_TRUE(loaded.ok());
    reconcile::ReconcilerOptions options;
    options.time = &time_;
    reconciler_ = std::make_unique<reconcile::Reconciler>(system_, *loaded.config, options);
    service_ = std::make_unique<dbus::Service>(
        *reconciler_,
        dbus::DaemonInfo{
            "9.8.7", config_.string(), fs::canonical(dir_).string(), system_.description, {}});
    service_->start();
    subscribe();
    reconciler_->start();
  }

  void TearDown() override {
    if (connection_) connection_->leaveEventLoop();
    proxy_.reset();
    connection_.reset();
    service_.reset();
    reconciler_.reset();
    bus_.reset();
    ::unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
    InProcessNode::TearDown();
  }

  // Every port signal into log_, from before the reconciler starts.
  void subscribe() {
    connection_ = sdbus::createSystemBusConnection();
    proxy_ = dbus::make_proxy(*connection_, dbus::kBusName, dbus::kObjectPath);
    for (const char* name : {"PortDrifted", "PortCorrected"}) {
      proxy_->uponSignal(name)
          .onInterface(dbus::kInterface)
          .call([this, name](const std::string& netdev, const std::vector<std::string>& settings) {
            log_.add(std::string(name) + " " + netdev + " " + joined(settings));
          });
    }
    for (const char* name : {"PortAppeared", "PortVanished"}) {
      proxy_->uponSignal(name)
          .onInterface(dbus::kInterface)
          .call([this, name](const std::string& netdev) {
            log_.add(std::string(name) + " " + netdev);
          });
    }
    proxy_->uponSignal("ApplyFailed")
        .onInterface(dbus::kInterface)
        .call([this](const std::string& netdev, const std::string& message) {
          log_.add("ApplyFailed " + netdev + " " + message);
        });
    dbus::finish_signals(*proxy_);
    connection_->enterEventLoopAsync();
  }

  // Moves the clock on, 10 ms at a time, until `done()`.
  bool run_until(const std::function<bool()>& done) { return time_.advance_until(done, 10ms); }

  uint8_t pfc_mask(const std::string& netdev) {
    uint8_t mask = 0;
    node_->inspect([&](roce_sim::Node& node) { mask = node.find(netdev)->pfc_enabled(); });
    return mask;
  }

  fs::path config_;
  std::unique_ptr<test::PrivateBus> bus_;
  std::unique_ptr<reconcile::Reconciler> reconciler_;
  std::unique_ptr<dbus::Service> service_;
  std::unique_ptr<sdbus::IConnection> connection_;
  std::unique_ptr<sdbus::IProxy> proxy_;
  SignalLog log_;
};

TEST_F(DbusSignals, ExternalPfcChangeIsSignalledAsDriftedThenCorrected) {
  // The first configuration is signalled as a correction of each port; then a foreign tool.
  ASSERT_TRUE(run_until([&] {
    return log_.has("PortCorrected lan2 ") && log_.has("PortCorrected lan3 ") &&
           log_.has("PortCorrected lan4 ") && log_.has("PortCorrected lan5 ");
  })) << log_.text();
  const size_t before = log_.lines().size();
  {
    System foreign = node_->system();
    dcb::DcbClient client(foreign);
    auto state = client.get("lan3");
    ASSERT_TRUE(state.ok() && state->pfc);
    dcb::Pfc pfc = *state->pfc;
    pfc.enabled_mask = 1U << 4;
    ASSERT_TRUE(client.set_pfc("lan3", pfc).ok());
  }
  ASSERT_TRUE(run_until([&] {
    const auto lines = log_.lines();
    return std::any_of(lines.begin() + static_cast<long>(before), lines.end(),
                       [](const std::string& l) { return l.rfind("PortCorrected lan3 ", 0) == 0; });
  })) << log_.text();
  const auto lines = log_.lines();
  const std::vector<std::string> after(lines.begin() + static_cast<long>(before), lines.end());
  ASSERT_GE(after.size(), 2u) << log_.text();
  EXPECT_EQ(after[0], "PortDrifted lan3 pfc.priorities") << log_.text();
  EXPECT_EQ(after[1], "PortCorrected lan3 pfc.priorities") << log_.text();
  for (const auto& line : lines) EXPECT_FALSE(line.rfind("ApplyFailed", 0) == 0) << line;
  EXPECT_EQ(pfc_mask("lan3"), kPfcWanted);
}

class DbusSignalsPortLifecycle : public DbusSignals {
 protected:
  std::string scenario() const override {
    return "name: lifecycle\n"
           "events:\n"
           "  - {at: 4s, kind: driver_reload, port: lan4, down_for: 1s}\n"
           "  - {at: 4s, kind: netlink_errors, port: lan5, errno: EIO, op: pfc}\n"
           "  - {at: 4500ms, kind: foreign_tool, port: lan5, set: {pfc: [4]}}\n";
  }
};

TEST_F(DbusSignalsPortLifecycle, VanishedAppearedApplyFailedAndCorrectedAreSignalled) {
  // lan4's driver reloads; lan5's next PFC write fails once, then a foreign tool changes its PFC.
  ASSERT_TRUE(run_until([&] {
    return log_.has("PortAppeared lan4") &&
           log_.last_index_of("PortCorrected lan4 ") > log_.index_of("PortAppeared lan4") &&
           log_.has("ApplyFailed lan5 ") &&
           log_.last_index_of("PortCorrected lan5 pfc.priorities") >
               log_.index_of("ApplyFailed lan5 ");
  })) << log_.text();
  EXPECT_LT(log_.index_of("PortVanished lan4"), log_.index_of("PortAppeared lan4")) << log_.text();
  ASSERT_TRUE(log_.has("ApplyFailed lan5 ")) << log_.text();
  EXPECT_NE(log_.lines()[static_cast<size_t>(log_.index_of("ApplyFailed lan5 "))].find("EIO"),
            std::string::npos)
      << log_.text();
  EXPECT_EQ(pfc_mask("lan4"), kPfcWanted);
  EXPECT_EQ(pfc_mask("lan5"), kPfcWanted);
}

}  // namespace
}  // namespace roced
