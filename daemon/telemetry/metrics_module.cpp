// SPDX-License-Identifier: Apache-2.0
#include "daemon/telemetry/metrics_module.hpp"

#include <spdlog/spdlog.h>

#include "daemon/log/log.hpp"
#include "daemon/telemetry/port_targets.hpp"
#include "telemetry/exporter.hpp"
#include "util/backoff_retry.hpp"
#include "util/periodic_task.hpp"

namespace roced::telemetry {

namespace {

using ExporterFactory = std::function<std::unique_ptr<telemetry::Exporter>()>;

}  // namespace

// The endpoint, or the retry that will open it: an address another process still holds (a
// previous roced on its way out, an exporter on the same port) is tried again, 1 s after the
// failure and then less often, up to every minute, rather than never served until a restart.
class Endpoint {
 public:
  Endpoint(std::unique_ptr<telemetry::Exporter> exporter, std::unique_ptr<PeriodicTask> refresh)
      : refresh_(std::move(refresh)), exporter_(std::move(exporter)) {}
  Endpoint(ExporterFactory open, std::unique_ptr<PeriodicTask> refresh)
      : refresh_(std::move(refresh)),
        retry_(std::make_unique<BackoffRetry>(
            real_time(), BackoffRetry::Delays{},
            [this, open = std::move(open)](std::string& error) { return try_open(open, error); },
            [](int failures, const std::string& error, std::chrono::milliseconds next) {
              spdlog::debug("metrics endpoint not served ({} tries): {}; next try in {} s",
                            failures + 1, error,
                            std::chrono::duration_cast<std::chrono::seconds>(next).count());
            })) {}
  ~Endpoint() {
    retry_.reset();  // first: it may be opening the endpoint
  }
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  std::string url() const {
    const std::lock_guard lock(mutex_);
    return exporter_ ? exporter_->url() : std::string();
  }

 private:
  bool try_open(const ExporterFactory& open, std::string& error) {
    try {
      auto exporter = open();
      spdlog::info("metrics endpoint: {} (open at last)", exporter->url());
      const std::lock_guard lock(mutex_);
      exporter_ = std::move(exporter);
      return true;
    } catch (const std::exception& e) {
      error = e.what();
      return false;
    }
  }

  std::unique_ptr<PeriodicTask> refresh_;  // the background reading of the RDMA counters
  mutable std::mutex mutex_;
  std::unique_ptr<telemetry::Exporter> exporter_;
  std::unique_ptr<BackoffRetry> retry_;
};

MetricsModule::MetricsModule(System& system, reconcile::Reconciler& reconciler,
                             std::shared_ptr<sampling::StatsPoller> poller,
                             const config::Config& config, MetricsOptions options,
                             Collectors collectors)
    : system_(system),
      reconciler_(reconciler),
      poller_(std::move(poller)),
      settings_(config.metrics),
      options_(std::move(options)),
      collectors_(std::move(collectors)) {}

MetricsModule::~MetricsModule() { stop(); }

std::optional<telemetry::MetricsSettings> MetricsModule::effective(
    const telemetry::MetricsSettings& file) const {
  telemetry::MetricsSettings settings = file;
  if (options_.listen) {
    settings.listen = *options_.listen;
    settings.enabled = true;
  }
  if (options_.disabled || !settings.enabled) return std::nullopt;
  return settings;
}

void MetricsModule::start() {
  if (auto settings = effective(settings_)) {
    open(*settings);
  } else {
    spdlog::info("metrics endpoint: off");
  }
}

void MetricsModule::stop() {
  std::unique_ptr<Endpoint> endpoint;
  {
    const std::lock_guard lock(mutex_);
    endpoint = std::move(endpoint_);
  }
  endpoint.reset();  // outside the lock: it joins its threads
}

std::string MetricsModule::url() const {
  const std::lock_guard lock(mutex_);
  return endpoint_ ? endpoint_->url() : std::string();
}

void MetricsModule::reconfigure(const config::Config& before, const config::Config& after) {
  (void)before;
  const auto was = effective(settings_);
  settings_ = after.metrics;
  const auto now = effective(settings_);
  if (was == now) {
    spdlog::info("metrics: the command line's --metrics-listen/--no-metrics keep the endpoint");
    return;
  }
  // Closed first: the new settings may name the same address.
  stop();
  if (now) {
    spdlog::info("metrics endpoint: reopening with the reloaded settings");
    open(*now);
  } else {
    spdlog::info("metrics endpoint: off (metrics.enabled)");
  }
}

void MetricsModule::open(const telemetry::MetricsSettings& settings) {
  reconcile::Reconciler& reconciler = reconciler_;
  auto sampler = std::make_shared<telemetry::NodeSampler>(
      system_, [&reconciler] { return port_targets(reconciler.snapshot(), reconciler.config()); },
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
  // With the watchdog polling, scrapes serve the poller's readings: no extra firmware commands.
  // Switched off, its readings age past max_sample_age and scrapes read through it themselves.
  sampler->use_poller(poller_, settings.max_sample_age);
  // The RDMA counters likewise, read in the background: a scrape waits for no firmware command
  // (three per port on mlx5). Served while at most two intervals old, so one late refresh does
  // not send scrapes to the NICs.
  std::unique_ptr<PeriodicTask> refresh;
  if (settings.rdma_interval > std::chrono::milliseconds::zero()) {
    sampler->keep_rdma_readings(2 * settings.rdma_interval);
    refresh = std::make_unique<PeriodicTask>(real_time(), settings.rdma_interval,
                                             [sampler] { sampler->refresh_rdma(); });
  }
  ExporterFactory open = [settings, sampler = std::move(sampler), version = options_.version,
                          collectors = collectors_] {
    return std::make_unique<telemetry::Exporter>(settings, sampler,
                                                 telemetry::ExporterInfo{version}, collectors);
  };
  std::unique_ptr<Endpoint> endpoint;
  try {
    auto exporter = open();
    spdlog::info("metrics endpoint: {}{}", exporter->url(),
                 settings.basic_auth ? " (basic auth)" : "");
    endpoint = std::make_unique<Endpoint>(std::move(exporter), std::move(refresh));
  } catch (const std::exception& e) {
    spdlog::error("metrics endpoint not served: {}; trying again in 1 s, then up to every minute",
                  e.what());
    endpoint = std::make_unique<Endpoint>(std::move(open), std::move(refresh));
  }
  const std::lock_guard lock(mutex_);
  endpoint_ = std::move(endpoint);
}

}  // namespace roced::telemetry
