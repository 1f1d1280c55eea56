// SPDX-License-Identifier: Apache-2.0
#pragma once
// A roce-sim node with a storm scenario the test writes, and roced's storm watchdog on it as the
// daemon runs it: a Reconciler keeping the ports configured, a StormWatchdog acting through it.
// Records every StormNotice with the moment it arrived, and converts scenario times to
// steady_clock through the simulator's DIR/roce-sim.clock.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/config/config.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "daemon/storms/storm_watchdog.hpp"
#include "node_files.hpp"
#include "sim/server/clock_file.hpp"
#include "sim_node.hpp"
#include "sim/transport/simulated_system.hpp"

namespace roced::storms::test {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;
using Kind = StormNotice::Kind;

// Generous: the tests wait for behaviour, never for speed.
constexpr std::chrono::seconds kPatience{60};

inline bool wait_until(const std::function<bool()>& done,
                       std::chrono::milliseconds patience = kPatience) {
  const auto deadline = SteadyClock::now() + patience;
  while (!done()) {
    if (SteadyClock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// The lossless recipe for lan2..lan5 (test/support's) with stall prevention as given, and
// `watchdog` (the YAML of a `watchdog:` mapping).
inline std::string storm_config(const std::string& watchdog,
                                const std::string& stall_prevention = "auto") {
  std::string text = roced::test::kLosslessConfig;
  const std::string recipe = "stall_prevention: auto";
  text.replace(text.find(recipe), recipe.size(), "stall_prevention: " + stall_prevention);
  return text + "watchdog: " + watchdog + "\n";
}

class StormSim : public roced::test::SimNode {
 protected:
  // The scenario (YAML) and, optionally, the node; the fixture writes them to files.
  virtual std::string scenario() const = 0;
  virtual std::string node() const { return {}; }

  std::string scenario_file() const override { return write_temp("scenario", scenario()); }
  std::string node_file() const override {
    return node().empty() ? std::string() : write_temp("node", node());
  }

  void TearDown() override {
    watchdog_.reset();
    if (reconciler_) reconciler_->stop();
    reconciler_.reset();
    system_.reset();
    SimNode::TearDown();
  }

  // The reconciler started on `text` (storm_config()), every port configured, then the watchdog.
  void start(const std::string& text) {
    auto loaded = config::load_string(text, "storm-test.yaml");
    ASSERT_TRUE(loaded.ok()) << (loaded.diagnostics.empty() ? text
                                                            : loaded.diagnostics[0].to_string());
    system_ = std::make_unique<System>(roce_sim::simulated_system(dir_));
    reconciler_ = std::make_unique<reconcile::Reconciler>(*system_, *loaded.config);
    reconciler_->on_event([this](const reconcile::PortEvent& event) {
      std::lock_guard lock(mutex_);
      port_events_.push_back(event);
    });
    reconciler_->start();
    read_clock();
    watchdog_ = std::make_unique<StormWatchdog>(*system_, *reconciler_, loaded.config->watchdog);
    watchdog_->on_notice([this](const StormNotice& notice) {
      std::lock_guard lock(mutex_);
      notices_.push_back(notice);
    });
    watchdog_->start();
  }

  // When scenario time `seconds` happens(ed), on steady_clock.
  SteadyClock::time_point sim_time(double seconds) const { return clock_.at(seconds); }

  std::vector<StormNotice> notices() const {
    std::lock_guard lock(mutex_);
    return notices_;
  }
  std::vector<StormNotice> notices(Kind kind) const {
    std::vector<StormNotice> out;
    for (const auto& n : notices()) {
      if (n.kind == kind) out.push_back(n);
    }
    return out;
  }
  size_t count(Kind kind) const { return notices(kind).size(); }
  std::vector<reconcile::PortEvent> port_events() const {
    std::lock_guard lock(mutex_);
    return port_events_;
  }
  // Every notice, one line each, for failure messages.
  std::string all_notices() const {
    std::string text;
    for (const auto& n : notices()) {
      text += std::string(notice_kind_name(n.kind)) + " " + n.netdev + " " + n.message + "\n";
    }
    return text;
  }
  // Waits until scenario time `seconds` has passed.
  void sleep_until_sim(double seconds) const { std::this_thread::sleep_until(sim_time(seconds)); }

  std::unique_ptr<System> system_;
  std::unique_ptr<reconcile::Reconciler> reconciler_;
  std::unique_ptr<StormWatchdog> watchdog_;

 private:
  std::string write_temp(const std::string& what, const std::string& text) const {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string path = "/tmp/roced-storm-" + std::to_string(::getpid()) + "-" + info->name() +
                             "-" + what + ".yaml";
    roced::test::write_file(path, text);
    return path;
  }

  void read_clock() {
    const auto clock = roce_sim::ClockFile::read(dir_);
    ASSERT_TRUE(clock) << "no roce-sim.clock in " << dir_;
    clock_ = *clock;
  }

  roce_sim::ClockFile clock_;
  mutable std::mutex mutex_;
  std::vector<StormNotice> notices_;
  std::vector<reconcile::PortEvent> port_events_;
};

}  // namespace roced::storms::test
