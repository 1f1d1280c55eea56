// SPDX-License-Identifier: Apache-2.0
#pragma once
// A roce-sim node (default: lan2..lan5 at firmware defaults) with an optional scenario the test
// writes, plus what the reconciler tests look at: the events a Reconciler announced (with the
// time each arrived), the write counter, and iproute2 through `roce-sim exec`.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "daemon/apply/applier.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "link/link.hpp"
#include "node_files.hpp"
#include "run_command.hpp"
#include "sim/transport/simulated_system.hpp"
#include "sim_exec.hpp"
#include "sim_node.hpp"

namespace roced::test {

namespace fs = std::filesystem;
using SteadyClock = std::chrono::steady_clock;
using reconcile::PortCondition;
using reconcile::PortEvent;
using DriftPolicy = config::DaemonSettings::DriftPolicy;

// Generous: the tests wait for behaviour, never for speed.
constexpr std::chrono::seconds kPatience{60};

constexpr const char* kConfigText = test::kLosslessConfig;
using test::read_file;
using test::write_file;

inline bool wait_until(const std::function<bool()>& done,
                       std::chrono::milliseconds patience = kPatience) {
  const auto deadline = SteadyClock::now() + patience;
  while (!done()) {
    if (SteadyClock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

struct TimedEvent {
  PortEvent event;
  SteadyClock::time_point at;
};

// Collects a Reconciler's events; safe to read while it runs.
class EventLog {
 public:
  std::function<void(const PortEvent&)> listener() {
    return [this](const PortEvent& event) {
      std::lock_guard lock(mutex_);
      events_.push_back(TimedEvent{event, SteadyClock::now()});
    };
  }
  std::vector<TimedEvent> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    events_.clear();
  }
  // The events of one port and kind (and naming `setting`, when given), in order.
  std::vector<TimedEvent> of(const std::string& netdev, PortEvent::Kind kind,
                             const std::string& setting = {}) const {
    std::vector<TimedEvent> out;
    for (const auto& timed : events()) {
      if (timed.event.netdev != netdev || timed.event.kind != kind) continue;
      const auto& settings = timed.event.settings;
      if (!setting.empty() &&
          std::find(settings.begin(), settings.end(), setting) == settings.end())
        continue;
      out.push_back(timed);
    }
    return out;
  }
  std::string describe() const {
    std::string text;
    for (const auto& timed : events()) {
      text += timed.event.netdev + " " + reconcile::event_kind_name(timed.event.kind) + ": " +
              timed.event.message + "\n";
    }
    return text;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<TimedEvent> events_;
};

class ReconcileSim : public SimNode {
 protected:
  // A scenario for the node, written to a file before the server starts; empty = none.
  virtual std::string scenario_text() const { return {}; }
  std::string scenario_file() const override { return scenario_path_; }

  void SetUp() override {
    char pattern[] = "/tmp/roced-reconcile-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    scratch_ = pattern;
    if (!scenario_text().empty()) {
      scenario_path_ = (scratch_ / "scenario.yaml").string();
      write_file(scenario_path_, scenario_text());
    }
    SimNode::SetUp();
    test_start_ = SteadyClock::now();  // the scenario's clock started a little earlier
    system_ = roce_sim::simulated_system(dir_);
  }

  void TearDown() override {
    SimNode::TearDown();
    fs::remove_all(scratch_);
  }

  config::Config make_config(DriftPolicy policy, std::chrono::milliseconds drift_interval,
                             const std::string& extra = {}) {
    auto loaded = config::load_string(std::string(kConfigText) + extra, "roced.yaml");
    EXPECT_TRUE(loaded.ok()) << (loaded.diagnostics.empty() ? std::string()
                                                            : loaded.diagnostics[0].to_string());
    if (!loaded.ok()) return {};
    loaded.config->daemon.drift_policy = policy;
    loaded.config->daemon.drift_check_interval = drift_interval;
    return *loaded.config;
  }

  // Short retries so that a test sees several; everything else as shipped.
  static reconcile::ReconcilerOptions test_options() {
    reconcile::ReconcilerOptions options;
    options.first_retry = std::chrono::milliseconds(200);
    options.max_retry = std::chrono::seconds(2);
    return options;
  }

  // The one-shot `rocectl apply`: brings the node to `config` before a test begins.
  void apply_once(const config::Config& config) {
    const auto result = apply::apply_plan(system_, plan::make_plan(system_, config));
    ASSERT_TRUE(result.ok()) << apply::format_apply_text(result);
  }

  // A command of unmodified iproute2 / ethtool against the node; its stdout.
  std::string exec(std::vector<std::string> command) const {
    const auto result = test::sim_exec(dir_, command);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.out;
  }

  // DIR/roce-sim.writes once the file writes made so far are counted: a netlink request is the
  // server's barrier for them.
  std::map<std::string, uint64_t> settled_writes() {
    EXPECT_TRUE(LinkClient(system_).list().ok());
    return test::read_writes(dir_);
  }

  static std::optional<reconcile::PortSnapshot> port_of(const reconcile::Reconciler& reconciler,
                                                        const std::string& netdev) {
    for (auto& port : reconciler.snapshot()) {
      if (port.port.netdev == netdev) return port;
    }
    return std::nullopt;
  }

  // Every selected port reads back as configured.
  bool node_in_sync(const config::Config& config) {
    const auto plan = plan::make_plan(system_, config);
    return plan.ports.size() == 4 && !plan.has_changes() && !plan.has_errors();
  }

  double since_start_s() const {
    return std::chrono::duration<double>(SteadyClock::now() - test_start_).count();
  }

  fs::path scratch_;
  std::string scenario_path_;
  SteadyClock::time_point test_start_;
  System system_;
};

}  // namespace roced::test
