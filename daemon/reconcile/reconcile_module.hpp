// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reconciler as one of the service's modules: it starts first among the ports' stage (its
// start returns once the ports' first checks are under way, its wait_ready once each is done),
// takes the daemon, ports, profile and overrides
// sections on a reload (every port is then checked again), and writes its ports' configuration
// state as metric families. Its findings are in each port's plan, but for those across ports.

#include "daemon/module/module.hpp"
#include "daemon/reconcile/reconciler.hpp"

namespace roced::reconcile {

class ReconcileModule final : public module::Module {
 public:
  ReconcileModule(System& system, const config::Config& config, ReconcilerOptions options)
      : reconciler_(system, config, std::move(options)) {}

  Reconciler& reconciler() { return reconciler_; }

  std::string_view name() const override { return "reconciler"; }
  module::Stage stage() const override { return module::Stage::Ports; }
  std::vector<module::Section> sections() const override {
    return {module::Section::Daemon, module::Section::Ports, module::Section::Profile,
            module::Section::Overrides};
  }
  void start() override { reconciler_.begin(); }
  void wait_ready() override { reconciler_.wait_first_checks(); }
  void stop() override { reconciler_.stop(); }
  void reconfigure(const config::Config& before, const config::Config& after) override;
  bool healthy(std::chrono::steady_clock::time_point now) const override;
  // What no one port's plan can see: a RoCE LAG bond managed without all its slaves.
  std::vector<finding::Finding> findings() const override;
  void collect(telemetry::ExpositionWriter& out) override;

 private:
  Reconciler reconciler_;
};

}  // namespace roced::reconcile
