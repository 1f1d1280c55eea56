// SPDX-License-Identifier: Apache-2.0
#include "daemon/metrics/metrics_attachment.hpp"

#include <spdlog/spdlog.h>

#include "daemon/log/log.hpp"
#include "daemon/metrics/port_targets.hpp"
#include "telemetry/exporter.hpp"

namespace roced::metrics {

namespace {

class MetricsAttachment final : public service::Service::Attachment {
 public:
  explicit MetricsAttachment(std::unique_ptr<telemetry::Exporter> exporter)
      : exporter_(std::move(exporter)) {}

 private:
  std::unique_ptr<telemetry::Exporter> exporter_;
};

}  // namespace

std::unique_ptr<service::Service::Attachment> attach_metrics(service::Service& service,
                                                             const MetricsOptions& options) {
  reconcile::Reconciler& reconciler = service.reconciler();
  config::MetricsSettings settings = reconciler.config().metrics;
  if (options.listen) {
    settings.listen = *options.listen;
    settings.enabled = true;
  }
  if (options.disabled || !settings.enabled) {
    spdlog::info("metrics endpoint: off");
    return nullptr;
  }
  telemetry::NodeSampler::WatchdogSource watchdog;
  if (storms::StormWatchdog* storms = service.storm_watchdog()) {
    // Switched off (by reload, too), its families are absent, as when it never ran.
    watchdog = [storms] {
      return storms->enabled() ? std::optional<telemetry::WatchdogStats>(storms->stats())
                               : std::nullopt;
    };
  }
  auto sampler = std::make_shared<telemetry::NodeSampler>(
      service.system(),
      [&reconciler] { return port_targets(reconciler.snapshot(), reconciler.config()); },
      std::move(watchdog),
      [](const std::string& netdev, const std::vector<std::string>& errors) {
        // Once per change, not per scrape: the series concerned are absent until it reads again.
        if (errors.empty()) {
          log::port(spdlog::level::info, netdev, std::vector<std::string>{},
                    "metrics: counters read again");
        }
        for (const auto& error : errors) {
          log::port(spdlog::level::warn, netdev, std::vector<std::string>{},
                    "metrics: cannot read {}", error);
        }
      });
  sampler->use_reload_state([&service] {
    const service::Service::ReloadState state = service.reload_state();
    return telemetry::NodeSample::Reload{state.ok, state.last_success};
  });
  // With the watchdog polling, scrapes serve its readings: no extra firmware commands. Switched
  // off, its readings age past max_sample_age and scrapes read the NICs themselves.
  sampler->use_cache(service.stats_cache(), settings.max_sample_age);
  try {
    auto exporter = std::make_unique<telemetry::Exporter>(settings, std::move(sampler),
                                                          telemetry::ExporterInfo{options.version});
    spdlog::info("metrics endpoint: {}{}", exporter->url(),
                 settings.basic_auth ? " (basic auth)" : "");
    return std::make_unique<MetricsAttachment>(std::move(exporter));
  } catch (const std::exception& e) {
    spdlog::error("metrics endpoint not served: {}", e.what());
    return nullptr;
  }
}

}  // namespace roced::metrics
