// SPDX-License-Identifier: Apache-2.0
// Every configuration section reloads, on roce-sim's node in this process: the service's modules
// (reconciler, storm watchdog, peer watch, metrics endpoint) under a ModuleSet and a
// ConfigStore, as the service holds them; each section's change reaches the module that takes
// it and shows in what that module does, and the others are not told.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "daemon/lldp/peer_module.hpp"
#include "daemon/module/config_store.hpp"
#include "daemon/module/module_set.hpp"
#include "daemon/reconcile/reconcile_module.hpp"
#include "daemon/telemetry/metrics_module.hpp"
#include "daemon/watchdog/storm_module.hpp"
#include "test/reconcile/reconcile_node.hpp"
#include "test/support/free_port.hpp"

namespace roced::test {
namespace {

class ReloadSections : public ReconcileNode {
 protected:
  void SetUp() override {
    ReconcileNode::SetUp();
    path_ = (dir_ / "roced.yaml").string();
    first_port_ = free_port();
    write(base());
    store_ = std::make_unique<module::ConfigStore>(path_);
    ASSERT_TRUE(store_->load().ok());
    const config::Config& config = *store_->current();
    auto reconcile = std::make_unique<reconcile::ReconcileModule>(system_, config, test_options());
    reconcile_ = reconcile.get();
    modules_->add(std::move(reconcile));
    auto peers = std::make_unique<lldp::PeerModule>(system_, reconcile_->reconciler());
    modules_->add(std::move(peers));
    auto poller = std::make_shared<sampling::StatsPoller>(system_, real_time());
    auto storms =
        std::make_unique<watchdog::StormModule>(system_, reconcile_->reconciler(), poller, config);
    storms_ = storms.get();
    modules_->add(std::move(storms));
    auto metrics = std::make_unique<telemetry::MetricsModule>(
        system_, reconcile_->reconciler(), poller, config,
        telemetry::MetricsOptions{std::nullopt, false, "t"}, [this] {
          auto all = modules_->collectors();
          all.push_back(store_.get());
          return all;
        });
    metrics_ = metrics.get();
    modules_->add(std::move(metrics));
    for (const auto stage :
         {module::Stage::BeforePorts, module::Stage::Ports, module::Stage::AfterPorts}) {
      modules_->start(stage);
    }
    modules_->wait_ready();  // as the service does before READY=1: the first checks done
  }
  void TearDown() override {
    modules_.reset();  // stopped and gone before the node they talk to
    ReconcileNode::TearDown();
  }

  std::string base() const {
    return std::string("ports:\n  netdevs: [lan3]\n") +
           "daemon:\n  drift_check_interval: 1h\n  disruptive_ports_at_once: 1\n" +
           "watchdog:\n  enabled: false\n" +
           "metrics:\n  listen: 127.0.0.1:" + std::to_string(first_port_) + "\n" +
           "profile:\n  pfc: {priorities: [3]}\n  mtu: 9000\n";
  }
  void write(const std::string& text) { write_file(path_, text); }
  // Writes `text` as the file and reloads it as the service does: the store, then the modules.
  std::vector<std::string> reload(const std::string& text) {
    write(text);
    const module::Reload result = store_->reload();
    EXPECT_TRUE(result.ok) << (result.diagnostics.empty() ? "" : result.diagnostics[0].to_string());
    return modules_->reconfigure(result);
  }
  std::string replaced(const std::string& from, const std::string& to) const {
    std::string text = base();
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
  }
  reconcile::Reconciler& reconciler() { return reconcile_->reconciler(); }

  std::string path_;
  int first_port_ = 0;
  std::unique_ptr<module::ConfigStore> store_;
  std::unique_ptr<module::ModuleSet> modules_ = std::make_unique<module::ModuleSet>();
  reconcile::ReconcileModule* reconcile_ = nullptr;
  watchdog::StormModule* storms_ = nullptr;
  telemetry::MetricsModule* metrics_ = nullptr;
};

using Told = std::vector<std::string>;

TEST_F(ReloadSections, TheProfileReachesThePorts) {
  ASSERT_EQ(mtu_of("lan3"), 9000u);
  EXPECT_EQ(reload(replaced("mtu: 9000", "mtu: 4200")), Told{"reconciler"});
  ASSERT_TRUE(reconciler().apply_now().ok());
  EXPECT_EQ(mtu_of("lan3"), 4200u);
}

TEST_F(ReloadSections, OverridesReachTheirPort) {
  EXPECT_EQ(reload(base() + "overrides:\n  lan3:\n    mtu: 4200\n"), Told{"reconciler"});
  ASSERT_TRUE(reconciler().apply_now().ok());
  EXPECT_EQ(mtu_of("lan3"), 4200u);
}

TEST_F(ReloadSections, ThePortsSectionChangesWhichPortsAreManaged) {
  ASSERT_EQ(reconciler().snapshot().size(), 1u);
  EXPECT_EQ(reload(replaced("netdevs: [lan3]", "netdevs: [lan3, lan4]")), Told{"reconciler"});
  ASSERT_TRUE(reconciler().apply_now().ok());
  EXPECT_EQ(reconciler().snapshot().size(), 2u);
  EXPECT_EQ(pfc_mask("lan4"), 0x08);
}

TEST_F(ReloadSections, TheDaemonSectionReachesTheReconciler) {
  EXPECT_EQ(reload(replaced("disruptive_ports_at_once: 1", "disruptive_ports_at_once: 2")),
            Told{"reconciler"});
  EXPECT_EQ(reconciler().config().daemon.disruptive_ports_at_once, 2);
}

TEST_F(ReloadSections, TheWatchdogSectionSwitchesTheWatchdogOn) {
  EXPECT_FALSE(storms_->watchdog().enabled());
  EXPECT_EQ(reload(replaced("enabled: false", "enabled: true")), Told{"storm-watchdog"});
  EXPECT_TRUE(storms_->watchdog().enabled());
  telemetry::ExpositionWriter out;
  storms_->collect(out);
  EXPECT_NE(out.take().find("roced_watchdog_poll_interval_seconds"), std::string::npos);
}

TEST_F(ReloadSections, TheMetricsSectionReopensTheEndpoint) {
  const std::string first = "http://127.0.0.1:" + std::to_string(first_port_) + "/metrics";
  EXPECT_EQ(metrics_->url(), first);
  const int second_port = free_port();
  EXPECT_EQ(reload(replaced("127.0.0.1:" + std::to_string(first_port_),
                            "127.0.0.1:" + std::to_string(second_port))),
            Told{"metrics"});
  EXPECT_EQ(metrics_->url(), "http://127.0.0.1:" + std::to_string(second_port) + "/metrics");
  EXPECT_EQ(reload(replaced("metrics:\n", "metrics:\n  enabled: false\n")), Told{"metrics"});
  EXPECT_EQ(metrics_->url(), "");
}

TEST_F(ReloadSections, AnUnchangedOrBrokenFileTellsNoModule) {
  EXPECT_EQ(reload(base()), Told{});
  write(base() + "  mtux: 4200\n");
  const module::Reload broken = store_->reload();
  EXPECT_FALSE(broken.ok);
  EXPECT_EQ(modules_->reconfigure(broken), Told{});
  EXPECT_EQ(store_->current()->profile.mtu, 9000u);
  EXPECT_TRUE(store_->reload_problem().has_value());
}

}  // namespace
}  // namespace roced::test
