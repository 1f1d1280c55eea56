// SPDX-License-Identifier: Apache-2.0
// The reconciler's life: start on a node already right (no writes), a driver reload of every
// port (forgotten, then configured again), reload with a bad config, and stop() in the middle of
// applies.
#include <atomic>

#include "daemon/reconcile/port_registry.hpp"
#include "reconcile_node.hpp"

namespace roced::test {
namespace {

using reconcile::Reconciler;

class ReconcileLifecycle : public ReconcileNode {
 protected:
  // kConfigText with its ports section replaced by `ports`.
  config::Config config_with(const std::string& ports) {
    std::string text = kConfigText;
    const std::string shipped = "ports:\n  netdevs: [lan2, lan3, lan4, lan5]\n";
    EXPECT_EQ(text.rfind(shipped, 0), 0u) << text;
    text.replace(0, shipped.size(), ports);
    auto loaded = config::load_string(text, "roced.yaml");
    EXPECT_TRUE(loaded.ok());
    return loaded.ok() ? *loaded.config : config::Config{};
  }
  // test_options() with a log that keeps the warnings (warnings()).
  reconcile::ReconcilerOptions options_keeping_warnings() {
    auto options = test_options();
    options.log = [this](reconcile::LogLevel level, const std::string&, const std::string&,
                         const std::string& message) {
      const std::lock_guard lock(warnings_mutex_);
      if (level == reconcile::LogLevel::Warn) warnings_.push_back(message);
    };
    return options;
  }
  std::vector<std::string> warnings() {
    const std::lock_guard lock(warnings_mutex_);
    return warnings_;
  }

 private:
  std::mutex warnings_mutex_;
  std::vector<std::string> warnings_;
};

TEST_F(ReconcileLifecycle, StartOnANodeAlreadyRightWritesNothing) {
  const auto config = make_config(DriftPolicy::Enforce, 200ms);
  apply_once(config);
  const auto before = writes();
  {
    EventLog log(time_);  // before the reconciler: its workers write to it until it stops
    Reconciler reconciler(system_, config, test_options());
    reconciler.on_event(log.listener());
    reconciler.start();
    for (const auto& port : reconciler.snapshot()) {
      EXPECT_EQ(port.condition, PortCondition::InSync) << port.port.netdev;
      EXPECT_TRUE(port.last_check.has_value()) << port.port.netdev;
    }
    EXPECT_EQ(reconciler.snapshot().size(), 4u);
    EXPECT_EQ(reconciler.status_line(), "4 ports: 4 in sync");
    EXPECT_TRUE(reconciler.healthy());
    // Three drift checks too.
    const auto started = time_.wall_now();
    ASSERT_TRUE(run_until([&] { return all_checked_since(reconciler, started + 600ms); }));
    EXPECT_TRUE(log.events().empty()) << log.describe();
    reconciler.stop();
    EXPECT_FALSE(reconciler.healthy());
    reconciler.stop();  // idempotent
  }
  EXPECT_EQ(writes(), before);
}

// The threads of this process, as the kernel lists them.
size_t thread_count() {
  return static_cast<size_t>(
      std::distance(fs::directory_iterator("/proc/self/task"), fs::directory_iterator{}));
}

// A port's worker runs a thread only while it has a check to make: at rest, between drift checks,
// the reconciler adds its event thread and nothing per port.
TEST_F(ReconcileLifecycle, AtRestThePortsRunNoThreadOfTheirOwn) {
  const auto config = make_config(DriftPolicy::Enforce, 200ms);
  apply_once(config);
  // ThreadSanitizer's runtime starts a thread of its own with the first thread a process makes:
  // made (and ended) here, it is counted before.
  std::thread([] {}).join();
  const size_t before = thread_count();
  Reconciler reconciler(system_, config, test_options());
  reconciler.start();
  ASSERT_EQ(reconciler.snapshot().size(), 4u);
  const auto started = time_.wall_now();
  ASSERT_TRUE(run_until([&] { return all_checked_since(reconciler, started + 400ms); }));
  // A worker's thread ends in real time once its check is done.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (thread_count() > before + 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_LE(thread_count(), before + 1) << "threads before the reconciler: " << before;
  // And a drift check still finds every port.
  const auto later = time_.wall_now();
  ASSERT_TRUE(run_until([&] { return all_checked_since(reconciler, later + 200ms); }));
  EXPECT_EQ(reconciler.status_line(), "4 ports: 4 in sync");
  reconciler.stop();
}

TEST_F(ReconcileLifecycle, ApplyNowAndCurrentPlan) {
  // Under report start() writes nothing; apply_now() applies whatever the policy.
  const auto config = make_config(DriftPolicy::Report, 1h);
  EventLog log(time_);  // before the reconciler: its workers write to it until it stops
  Reconciler reconciler(system_, config, test_options());
  reconciler.on_event(log.listener());
  reconciler.start();
  EXPECT_EQ(writes().at("total"), 0u);
  EXPECT_EQ(log.of("lan3", PortEvent::Kind::Drifted).size(), 1u) << log.describe();
  EXPECT_TRUE(reconciler.current_plan().has_changes());

  const auto result = reconciler.apply_now();
  ASSERT_EQ(result.ports.size(), 4u);
  for (const auto& port : result.ports) {
    EXPECT_EQ(port.outcome, apply::PortResult::Outcome::Applied) << port.netdev << port.error;
  }
  EXPECT_FALSE(reconciler.current_plan().has_changes());
  EXPECT_TRUE(node_in_sync(config));
  const auto again = reconciler.apply_now();
  ASSERT_EQ(again.ports.size(), 4u);
  EXPECT_FALSE(again.changed());
}

TEST_F(ReconcileLifecycle, ReloadWithABadConfigKeepsTheOldOne) {
  const auto config = make_config(DriftPolicy::Enforce, 1h);
  Reconciler reconciler(system_, config, test_options());
  reconciler.start();

  const fs::path bad = dir_ / "bad.yaml";
  write_file(bad, std::string(kConfigText) + "  mtux: 4200\n");
  const auto refused = reconciler.reload(bad.string());
  EXPECT_FALSE(refused.ok);
  ASSERT_FALSE(refused.diagnostics.empty());
  EXPECT_TRUE(contains(refused.diagnostics.front().to_string(), "mtux"))
      << refused.diagnostics.front().to_string();
  EXPECT_FALSE(reconciler.reload((dir_ / "missing.yaml").string()).ok);
  EXPECT_EQ(reconciler.config().profile.mtu, 9000u);
  EXPECT_EQ(reconciler.config().daemon.drift_check_interval, 1h);
  EXPECT_EQ(mtu_of("lan3"), 9000u);

  // A good one takes over, and every port follows it.
  const fs::path good = dir_ / "good.yaml";
  std::string text = kConfigText;
  text.replace(text.find("mtu: 9000"), 9, "mtu: 4200");
  write_file(good, text);
  const auto accepted = reconciler.reload(good.string());
  EXPECT_TRUE(accepted.ok);
  EXPECT_EQ(reconciler.config().profile.mtu, 4200u);
  for (const auto& netdev : kDefaultPorts) {
    EXPECT_TRUE(run_until([&] { return mtu_of(netdev) == 4200; })) << netdev;
  }
}

// Every port's driver reloads at 5s (gone for 2s); they come back at firmware defaults.
class ReconcileDriverReload : public ReconcileNode {
 protected:
  std::string scenario_text() const override {
    return "name: reload-all\n"
           "events:\n"
           "  - {at: 5s, kind: driver_reload, port: all, down_for: 2s}\n";
  }
};

TEST_F(ReconcileDriverReload, EveryPortIsConfiguredAgainAfterADriverReload) {
  const auto config = make_config(DriftPolicy::Enforce, 1h);  // events only
  EventLog log(time_);  // before the reconciler: its workers write to it until it stops
  Reconciler reconciler(system_, config, test_options());
  reconciler.on_event(log.listener());
  reconciler.start();
  ASSERT_TRUE(node_in_sync(config));
  log.clear();

  ASSERT_TRUE(run_until([&] {
    for (const auto& netdev : kDefaultPorts) {
      if (log.of(netdev, PortEvent::Kind::Vanished).empty()) return false;
    }
    return true;
  })) << log.describe();
  EXPECT_GE(since_start_s(), 5.0);
  // Gone until 7 s: every port is known as vanished, none configured meanwhile.
  run_for(300ms);
  ASSERT_LT(since_start_s(), 7.0);
  for (const auto& netdev : kDefaultPorts) {
    const auto port = port_of(reconciler, netdev);
    ASSERT_TRUE(port) << netdev;
    EXPECT_EQ(port->condition, PortCondition::Vanished) << netdev;
    EXPECT_TRUE(log.of(netdev, PortEvent::Kind::Appeared).empty()) << log.describe();
  }

  ASSERT_TRUE(run_until([&] {
    for (const auto& netdev : kDefaultPorts) {
      const auto appeared = log.of(netdev, PortEvent::Kind::Appeared);
      const auto corrected = log.of(netdev, PortEvent::Kind::Corrected);
      if (appeared.empty() || corrected.empty() || corrected.back().at < appeared.front().at)
        return false;
    }
    return true;
  })) << log.describe();
  for (const auto& netdev : kDefaultPorts) {
    EXPECT_GE(log.of(netdev, PortEvent::Kind::Appeared).front().at - test_start_, 7s) << netdev;
    EXPECT_TRUE(log.of(netdev, PortEvent::Kind::ApplyFailed).empty()) << log.describe();
  }

  EXPECT_TRUE(node_in_sync(config));
  // The counters survive the netdev vanishing: the first configuration and the one after.
  for (const auto& netdev : kDefaultPorts) {
    EXPECT_EQ(port_of(reconciler, netdev)->counters.applies_ok, 2u) << netdev;
  }
  EXPECT_EQ(pfc_mask("lan4"), kPfcWanted);
  EXPECT_EQ(mtu_of("lan5"), 9000u);
  for (const auto& port : reconciler.snapshot()) {
    EXPECT_EQ(port.condition, PortCondition::InSync) << port.port.netdev;
  }
  EXPECT_TRUE(reconciler.healthy());
}

// Every port's MTU write is busy for a while (the applier retries on the clock), then its PFC
// write fails: each apply is long and ends in a rollback.
class ReconcileStop : public ReconcileNode {
 protected:
  std::string scenario_text() const override {
    std::string text =
        "name: slow-applies\n"
        "events:\n";
    for (const auto& netdev : kDefaultPorts) {
      text += "  - {at: 0s, kind: netlink_errors, port: " + netdev +
              ", errno: EBUSY, op: mtu, count: 4}\n";
      text += "  - {at: 0s, kind: netlink_errors, port: " + netdev +
              ", errno: EIO, op: pfc, count: 1}\n";
    }
    return text;
  }
};

std::string plan_signature(const plan::PortPlan& port) {
  std::string signature;
  for (const auto& change : port.changes) {
    signature += plan::setting_name(change.setting, change.key) + "=" + change.now + ";";
  }
  return signature;
}

TEST_F(ReconcileStop, StopDuringAppliesLeavesEveryPortAsItWasOrAsWanted) {
  const auto config = make_config(DriftPolicy::Enforce, 1h);
  std::map<std::string, std::string> as_it_was;
  for (const auto& port : plan::make_plan(system_, config).ports) {
    as_it_was[port.port.netdev] = plan_signature(port);
  }
  ASSERT_EQ(as_it_was.size(), 4u);

  auto options = test_options();
  options.apply.first_backoff = 150ms;  // the MTU step takes 150+300+600+1200 ms of the clock
  Reconciler reconciler(system_, config, options);
  std::thread starter([&] { reconciler.start(); });
  const bool caught_applying = wait_until([&] {
    for (const auto& port : reconciler.snapshot()) {
      if (port.condition == PortCondition::Applying) return true;
    }
    return false;
  });
  // A worker may be in a retry's backoff, which waits on the simulated clock: move it on while
  // stop() waits for the workers.
  std::atomic<bool> stop_done{false};
  std::thread stopper([&] {
    reconciler.stop();
    stop_done = true;
  });
  const bool stop_returned = run_until([&] { return stop_done.load(); });
  stopper.join();
  starter.join();
  ASSERT_TRUE(caught_applying);
  ASSERT_TRUE(stop_returned);

  const auto stopped = writes();
  for (const auto& port : plan::make_plan(system_, config).ports) {
    const std::string now = plan_signature(port);
    EXPECT_TRUE(now.empty() || now == as_it_was[port.port.netdev])
        << port.port.netdev << ": half-done: " << now << "\nwas: " << as_it_was[port.port.netdev];
  }
  // Every thread is gone: nothing writes any more, however much time passes.
  run_for(2s);
  EXPECT_EQ(writes(), stopped);
}

// A ports.netdevs entry that selects nothing is named, with why, in the log (once) and in the
// status line, instead of a bare "no ports selected".
TEST_F(ReconcileLifecycle, NetdevsThatSelectNothingAreNamedWithWhy) {
  const auto missing =
      config_with("ports:\n  netdevs: [lan2, lan9, \"eth*\", lan3]\n  exclude: [lan3]\n");
  EXPECT_EQ(reconcile::unmatched_selection(*system_.files, missing),
            (std::vector<std::string>{"lan9: no such netdev", "eth*: matches no netdev",
                                      "lan3: not selected (ports.exclude)"}));

  Reconciler reconciler(system_, config_with("ports:\n  drivers: [irdma]\n  netdevs: [lan2]\n"),
                        options_keeping_warnings());
  reconciler.start();
  EXPECT_TRUE(reconciler.snapshot().empty());
  EXPECT_EQ(reconciler.status_line(),
            "no ports selected (ports.netdevs lan2: not selected (driver mlx5_core is not in "
            "ports.drivers))");
  // Said again only when it changes: a reload to the same file adds nothing.
  ASSERT_TRUE(reconciler.reload(config_with("ports:\n  drivers: [irdma]\n  netdevs: [lan2]\n")).ok);
  const auto said = warnings();
  EXPECT_EQ(std::count_if(said.begin(), said.end(),
                          [](const std::string& line) {
                            return line.find("ports.netdevs: lan2: not selected") == 0;
                          }),
            1)
      << testing::PrintToString(said);
}

// A file that names no port (the installed one, an empty one) leaves every port alone: roced runs
// idle and says so, in the status line and once in the log.
TEST_F(ReconcileLifecycle, AFileThatNamesNoPortLeavesEveryPortAlone) {
  const auto config = config_with("ports:\n  netdevs: []\n");
  const auto before = writes();
  Reconciler reconciler(system_, config, options_keeping_warnings());
  reconciler.start();
  ASSERT_TRUE(reconciler.reload(config).ok);
  run_for(1s);
  EXPECT_TRUE(reconciler.snapshot().empty());
  EXPECT_EQ(reconciler.status_line(), "idle: ports.netdevs names no port");
  EXPECT_EQ(writes(), before);
  reconciler.stop();
  EXPECT_EQ(warnings(), std::vector<std::string>{
                            "idle: ports.netdevs names no port; nothing is changed until it does"});
}

}  // namespace
}  // namespace roced::test
