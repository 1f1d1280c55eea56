// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reconciler on roce-sim's node in this process and on the node's simulated clock (the
// default node, lan2..lan5 at firmware defaults, with an optional scenario the test writes), plus
// what the reconciler tests look at: the events a Reconciler announced (with the simulated time
// each arrived), the write counter, the ports as the model holds them, and a foreign tool's
// netlink writes. The drift timer, event settling, retry backoff and the scenario all run on the
// clock the test advances, so what a test asserts never depends on the machine's speed.
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon/apply/applier.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "dcb/client.hpp"
#include "in_process_node.hpp"
#include "link/link.hpp"
#include "node_files.hpp"
#include "sim/model/scenario.hpp"

namespace roced::test {

namespace fs = std::filesystem;
using TimePoint = TimeSource::TimePoint;
using reconcile::PortCondition;
using reconcile::PortEvent;
using DriftPolicy = config::DaemonSettings::DriftPolicy;
using namespace std::chrono_literals;

constexpr const char* kConfigText = test::kLosslessConfig;
using test::write_file;

struct TimedEvent {
  PortEvent event;
  TimePoint at;  // on the simulated clock
};

// Collects a Reconciler's events; safe to read while it runs.
class EventLog {
 public:
  explicit EventLog(const TimeSource& time) : time_(time) {}
  std::function<void(const PortEvent&)> listener() {
    return [this](const PortEvent& event) {
      std::lock_guard lock(mutex_);
      events_.push_back(TimedEvent{event, time_.now()});
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
  const TimeSource& time_;
  mutable std::mutex mutex_;
  std::vector<TimedEvent> events_;
};

// The default node's ports.
inline const std::vector<std::string> kDefaultPorts = {"lan2", "lan3", "lan4", "lan5"};

class ReconcileNode : public InProcessNode {
 protected:
  // A scenario for the node, played from the start of the test; empty = none.
  virtual std::string scenario_text() const { return {}; }

  void SetUp() override {
    // spdlog's registry is made here, on the main thread, as roced's main makes it (log::setup)
    // before any thread logs: made first on a module's thread, its guard sits in the
    // uninstrumented libspdlog, where ThreadSanitizer cannot see it, and the main thread's next
    // log line is reported as a race.
    spdlog::default_logger();
    InProcessNode::SetUp();
    if (!scenario_text().empty()) {
      node_->play(roce_sim::parse_scenario_yaml(scenario_text(), "scenario.yaml"));
    }
    test_start_ = time_.now();
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

  // Short retries so that a test sees several; the simulated clock; everything else as shipped.
  reconcile::ReconcilerOptions test_options() {
    reconcile::ReconcilerOptions options;
    options.first_retry = 200ms;
    options.max_retry = 2s;
    options.time = &time_;
    return options;
  }

  // Waits, without moving the clock, for what the reconciler's threads do on their own; the real
  // patience is for a hang only.
  static bool wait_until(const std::function<bool()>& done) {
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= give_up) return false;
      std::this_thread::sleep_for(1ms);
    }
    return true;
  }
  // Moves the clock on, 10 ms at a time, until `done()`: for what needs time to pass (a settle
  // delay, a retry, a drift check, the scenario's next event).
  bool run_until(const std::function<bool()>& done) { return time_.advance_until(done, 10ms); }
  // Moves the clock on by `duration`, 10 ms at a time.
  void run_for(std::chrono::milliseconds duration) {
    const auto until = time_.now() + duration;
    time_.advance_until([&] { return time_.now() >= until; }, 10ms);
  }
  double since_start_s() const {
    return std::chrono::duration<double>(time_.now() - test_start_).count();
  }

  // The one-shot `rocectl apply`: brings the node to `config` before a test begins.
  void apply_once(const config::Config& config) {
    const auto result = apply::apply_plan(system_, plan::make_plan(system_, config));
    ASSERT_TRUE(result.ok()) << apply::format_apply_text(result);
  }

  // Another agent's IEEE_SET of PFC (as `dcb pfc set dev NETDEV prio-pfc ...`), on its own socket.
  void foreign_pfc(const std::string& netdev, uint8_t enabled_mask) {
    System foreign = node_->system();
    dcb::DcbClient client(foreign);
    auto state = client.get(netdev);
    ASSERT_TRUE(state.ok()) << state.error().message;
    ASSERT_TRUE(state->pfc.has_value());
    dcb::Pfc pfc = *state->pfc;
    pfc.enabled_mask = enabled_mask;
    const auto set = client.set_pfc(netdev, pfc);
    ASSERT_TRUE(set.ok()) << set.error().message;
  }
  // What the node's model holds for a port.
  uint8_t pfc_mask(const std::string& netdev) {
    uint8_t mask = 0;
    node_->inspect([&](roce_sim::Node& node) { mask = node.find(netdev)->pfc_enabled(); });
    return mask;
  }
  uint32_t mtu_of(const std::string& netdev) {
    uint32_t mtu = 0;
    node_->inspect([&](roce_sim::Node& node) { mtu = node.find(netdev)->mtu(); });
    return mtu;
  }
  bool dcbx_host(const std::string& netdev) {
    bool host = false;
    node_->inspect([&](roce_sim::Node& node) { host = node.find(netdev)->dcbx_host_mode(); });
    return host;
  }

  std::map<std::string, uint64_t> writes() const { return test::read_writes(dir_); }

  static std::optional<reconcile::PortSnapshot> port_of(const reconcile::Reconciler& reconciler,
                                                        const std::string& netdev) {
    for (auto& port : reconciler.snapshot()) {
      if (port.port.netdev == netdev) return port;
    }
    return std::nullopt;
  }
  // Every port has been checked since `since` (simulated wall time): a drift check has run.
  static bool all_checked_since(const reconcile::Reconciler& reconciler,
                                TimeSource::WallTime since) {
    const auto ports = reconciler.snapshot();
    return !ports.empty() && std::all_of(ports.begin(), ports.end(), [&](const auto& port) {
      return port.last_check && *port.last_check >= since;
    });
  }

  // Every selected port reads back as configured.
  bool node_in_sync(const config::Config& config) {
    const auto plan = plan::make_plan(system_, config);
    return plan.ports.size() == 4 && !plan.has_changes() && !plan.has_errors();
  }

  TimePoint test_start_;
};

constexpr uint8_t kPfcWanted = 1U << 3;   // PFC on priority 3 only, as the config says
constexpr uint8_t kPfcForeign = 1U << 4;  // the foreign tool's: priority 4 only

}  // namespace roced::test
