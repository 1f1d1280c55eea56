// SPDX-License-Identifier: Apache-2.0
#pragma once
// roce-sim's node in the test's process playing a storm scenario the test writes, and roced's
// storm watchdog on it as the daemon runs it: a Reconciler keeping the ports configured, a
// StormWatchdog acting through it, both on the node's simulated clock. Records every StormNotice
// (its `at` on that clock) and converts scenario times to it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/config/config.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "daemon/watchdog/storm_watchdog.hpp"
#include "in_process_node.hpp"
#include "node_files.hpp"
#include "sim/model/node_file.hpp"
#include "sim/model/scenario.hpp"

namespace roced::watchdog::test {

using namespace std::chrono_literals;
using TimePoint = TimeSource::TimePoint;
using Kind = StormNotice::Kind;

// The lossless recipe for lan2..lan5 (test/support's) with stall prevention as given, and
// `watchdog` (the YAML of a `watchdog:` mapping).
inline std::string storm_config(const std::string& watchdog,
                                const std::string& stall_prevention = "auto") {
  std::string text = roced::test::kLosslessConfig;
  const std::string recipe = "stall_prevention: auto";
  text.replace(text.find(recipe), recipe.size(), "stall_prevention: " + stall_prevention);
  return text + "watchdog: " + watchdog + "\n";
}

// roce-sim's default node with `line` (a NIC key, "firmware_command_us: 50") added to every NIC.
inline std::string default_node_with(const std::string& line) {
  std::string text = roce_sim::default_node_yaml();
  const std::string driver = "    driver: {flavour: inbox, version: 6.1.0-27-amd64}\n";
  for (auto at = text.find(driver); at != std::string::npos; at = text.find(driver, at + 1)) {
    text.insert(at + driver.size(), "    " + line + "\n");
  }
  return text;
}

class StormNode : public roced::test::InProcessNode {
 protected:
  // The scenario (YAML) and, optionally, the node (YAML).
  virtual std::string scenario() const = 0;
  virtual std::string node() const { return {}; }

  std::string node_file() const override {
    if (node().empty()) return {};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string path =
        "/tmp/roced-storm-" + std::to_string(::getpid()) + "-" + info->name() + "-node.yaml";
    roced::test::write_file(path, node());
    return path;
  }

  // The watchdog's own logic runs on links that train inside a PFC change: with mlx5's seconds of
  // carrier loss after each (disable-pfc and its restoration flap the link) traffic, and so the
  // storm, stops meanwhile. DisablePfcOnLinksThatTrain keeps the real training time.
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) {
      if (instant_links()) {
        spec.link_training_ms = 0;
      } else {
        spec.link_training_ms.reset();  // the node's own: seconds at 400G
      }
    }
  }
  virtual bool instant_links() const { return true; }
  // The node's firmware commands take time (firmware_command_us): requests wait on the clock.
  virtual bool firmware_takes_time() const { return false; }

  void SetUp() override {
    InProcessNode::SetUp();
    if (HasFatalFailure()) return;
    node_->play(roce_sim::parse_scenario_yaml(scenario(), "scenario.yaml"));
    scenario_start_ = time_.now();
  }

  void TearDown() override {
    if (firmware_takes_time() && watchdog_) {
      // The loop may be waiting out a read's firmware time on the clock.
      auto stopped = std::async(std::launch::async, [this] { watchdog_->stop(); });
      time_.advance_until(
          [&] { return stopped.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
          std::chrono::milliseconds(1));
      stopped.get();
    }
    watchdog_.reset();
    if (reconciler_) reconciler_->stop();
    reconciler_.reset();
    InProcessNode::TearDown();
  }

  // The reconciler started on `text` (storm_config()), every port configured, then the watchdog.
  void start(const std::string& text) {
    auto loaded = config::load_string(text, "storm-test.yaml");
    ASSERT_TRUE(loaded.ok()) << (loaded.diagnostics.empty() ? text
                                                            : loaded.diagnostics[0].to_string());
    reconcile::ReconcilerOptions options;
    options.time = &time_;
    reconciler_ = std::make_unique<reconcile::Reconciler>(system_, *loaded.config, options);
    reconciler_->on_event([this](const reconcile::PortEvent& event) {
      std::lock_guard lock(mutex_);
      port_events_.push_back(event);
    });
    if (firmware_takes_time() || !instant_links()) {
      // The initial apply waits out its firmware commands, and each flapped port's link
      // training, on the clock: move it meanwhile.
      auto started = std::async(std::launch::async, [this] { reconciler_->start(); });
      // A firmware command takes microseconds: 1 ms steps; link training seconds: 10 ms ones.
      const auto step = std::chrono::milliseconds(firmware_takes_time() ? 1 : 10);
      ASSERT_TRUE(time_.advance_until(
          [&] { return started.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
          step));
      started.get();
    } else {
      reconciler_->start();
    }
    watchdog_ =
        std::make_unique<StormWatchdog>(system_, *reconciler_, loaded.config->watchdog, time_);
    watchdog_->on_notice([this](const StormNotice& notice) {
      std::lock_guard lock(mutex_);
      notices_.push_back(notice);
    });
    watchdog_->start();
  }

  // Moves the clock on, 5 ms at a time (half the fastest poll), until `done()`.
  bool run_until(const std::function<bool()>& done) { return time_.advance_until(done, 5ms); }
  // Moves the clock on to scenario time `seconds`.
  void run_to(double seconds) {
    const TimePoint until = sim_time(seconds);
    run_until([&] { return time_.now() >= until; });
  }
  void run_for(std::chrono::milliseconds duration) {
    const TimePoint until = time_.now() + duration;
    run_until([&] { return time_.now() >= until; });
  }

  // When scenario time `seconds` happens(ed), on the clock.
  TimePoint sim_time(double seconds) const {
    return scenario_start_ +
           std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(seconds));
  }

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

  std::unique_ptr<reconcile::Reconciler> reconciler_;
  std::unique_ptr<StormWatchdog> watchdog_;

 private:
  TimePoint scenario_start_;
  mutable std::mutex mutex_;
  std::vector<StormNotice> notices_;
  std::vector<reconcile::PortEvent> port_events_;
};

}  // namespace roced::watchdog::test
