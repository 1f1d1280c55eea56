// SPDX-License-Identifier: Apache-2.0
#pragma once
// roced's Prometheus endpoint as one of the service's modules: it opens once the ports were
// first checked and serves until roced stops. A failure to listen is logged and roced goes on
// configuring ports without it (the ports matter more than the endpoint), trying to listen again
// on a backoff. A reload that changes the metrics section reopens it with the new settings
// (address, TLS, credentials, filters, sample ages); --metrics-listen and --no-metrics still win.

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "daemon/module/module.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "sampling/stats_poller.hpp"
#include "telemetry/collector.hpp"

namespace roced::telemetry {

struct MetricsOptions {
  std::optional<std::string> listen;  // --metrics-listen: wins over metrics.listen, enables
  bool disabled = false;              // --no-metrics
  std::string version;
};

class Endpoint;

class MetricsModule final : public module::Module {
 public:
  // Every collector whose families a scrape serves after the ports' own (the modules', the
  // configuration store's): asked at each scrape.
  using Collectors = std::function<std::vector<telemetry::Collector*>()>;

  MetricsModule(System& system, reconcile::Reconciler& reconciler,
                std::shared_ptr<sampling::StatsPoller> poller, const config::Config& config,
                MetricsOptions options, Collectors collectors);
  ~MetricsModule() override;

  std::string_view name() const override { return "metrics"; }
  std::vector<module::Section> sections() const override { return {module::Section::Metrics}; }
  void start() override;
  void stop() override;
  void reconfigure(const config::Config& before, const config::Config& after) override;
  // The URL served now ("http://127.0.0.1:9879/metrics"); empty while off or not yet open.
  std::string url() const;

 private:
  // The file's settings with the command line's over them; nullopt when metrics are off.
  std::optional<telemetry::MetricsSettings> effective(const telemetry::MetricsSettings& file) const;
  void open(const telemetry::MetricsSettings& settings);

  System& system_;
  reconcile::Reconciler& reconciler_;
  std::shared_ptr<sampling::StatsPoller> poller_;
  telemetry::MetricsSettings settings_;
  MetricsOptions options_;
  Collectors collectors_;
  mutable std::mutex mutex_;  // endpoint_
  std::unique_ptr<Endpoint> endpoint_;
};

}  // namespace roced::telemetry
