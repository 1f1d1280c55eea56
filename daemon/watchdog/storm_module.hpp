// SPDX-License-Identifier: Apache-2.0
#pragma once
// The PFC storm watchdog as one of the service's modules: it starts once the ports were first
// checked, takes the watchdog section on a reload (switching itself on or off, storms being
// handled keeping their action), and writes its storm families while it is on.

#include <functional>
#include <memory>
#include <string>

#include "daemon/module/module.hpp"
#include "daemon/watchdog/storm_watchdog.hpp"

namespace roced::watchdog {

class StormModule final : public module::Module {
 public:
  // Which switch port is at a netdev's other end ("leaf1 Ethernet1/1"), for the log lines: where
  // to look at 3 a.m. Empty when unknown.
  using SwitchPortOf = std::function<std::string(const std::string& netdev)>;

  StormModule(System& system, reconcile::Reconciler& reconciler,
              std::shared_ptr<sampling::StatsPoller> poller, const config::Config& config,
              SwitchPortOf switch_port = {});

  StormWatchdog& watchdog() { return watchdog_; }

  std::string_view name() const override { return "storm-watchdog"; }
  std::vector<module::Section> sections() const override { return {module::Section::Watchdog}; }
  void start() override;
  // Stops the loop, then puts back every hold with a warning per port: once roced has stopped
  // nothing watches for storms, and a port left with PFC off would stay lossy unseen.
  void stop() override;
  void reconfigure(const config::Config& before, const config::Config& after) override;
  bool healthy(std::chrono::steady_clock::time_point now) const override {
    return watchdog_.healthy(now);
  }
  void collect(telemetry::ExpositionWriter& out) override;

 private:
  StormWatchdog watchdog_;
};

}  // namespace roced::watchdog
