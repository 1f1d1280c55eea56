// SPDX-License-Identifier: Apache-2.0
#include "daemon/metrics/metrics_attachment.hpp"

#include <spdlog/spdlog.h>

#include <functional>
#include <mutex>

#include "daemon/log/log.hpp"
#include "daemon/metrics/port_targets.hpp"
#include "daemon/peers/peer_json.hpp"
#include "telemetry/exporter.hpp"
#include "util/backoff_retry.hpp"
#include "util/periodic_task.hpp"

namespace roced::metrics {

namespace {

using ExporterFactory = std::function<std::unique_ptr<telemetry::Exporter>()>;

// The endpoint, or the retry that will open it: an address another process still holds (a
// previous roced on its way out, an exporter on the same port) is tried again, 1 s after the
// failure and then less often, up to every minute, rather than never served until a restart.
class MetricsAttachment final : public service::Service::Attachment {
 public:
  MetricsAttachment(std::unique_ptr<telemetry::Exporter> exporter,
                    std::unique_ptr<PeriodicTask> refresh)
      : refresh_(std::move(refresh)), exporter_(std::move(exporter)) {}
  MetricsAttachment(ExporterFactory open, std::unique_ptr<PeriodicTask> refresh)
      : refresh_(std::move(refresh)),
        retry_(std::make_unique<BackoffRetry>(
            real_time(), BackoffRetry::Delays{},
            [this, open = std::move(open)](std::string& error) { return try_open(open, error); },
            [](int failures, const std::string& error, std::chrono::milliseconds next) {
              spdlog::debug("metrics endpoint not served ({} tries): {}; next try in {} s",
                            failures + 1, error,
                            std::chrono::duration_cast<std::chrono::seconds>(next).count());
            })) {}
  ~MetricsAttachment() override {
    retry_.reset();  // first: it may be opening the endpoint
  }
  MetricsAttachment(const MetricsAttachment&) = delete;
  MetricsAttachment& operator=(const MetricsAttachment&) = delete;

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
  std::mutex mutex_;
  std::unique_ptr<telemetry::Exporter> exporter_;
  std::unique_ptr<BackoffRetry> retry_;
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
  if (peers::PeerWatch* watch = service.peer_watch()) {
    sampler->use_peers([watch] {
      std::vector<telemetry::PeerStats> stats;
      for (const auto& peer : watch->snapshot()) stats.push_back(peers::peer_stats(peer));
      return stats;
    });
  }
  sampler->use_reload_state([&service] {
    const service::Service::ReloadState state = service.reload_state();
    return telemetry::NodeSample::Reload{state.ok, state.last_success};
  });
  // With the watchdog polling, scrapes serve the poller's readings: no extra firmware commands.
  // Switched off, its readings age past max_sample_age and scrapes read through it themselves.
  sampler->use_poller(service.stats_poller(), settings.max_sample_age);
  // The RDMA counters likewise, read in the background: a scrape waits for no firmware command
  // (three per port on mlx5). Served while at most two intervals old, so one late refresh does
  // not send scrapes to the NICs.
  std::unique_ptr<PeriodicTask> refresh;
  if (settings.rdma_interval > std::chrono::milliseconds::zero()) {
    sampler->keep_rdma_readings(2 * settings.rdma_interval);
    refresh = std::make_unique<PeriodicTask>(real_time(), settings.rdma_interval,
                                             [sampler] { sampler->refresh_rdma(); });
  }
  ExporterFactory open = [settings, sampler = std::move(sampler), version = options.version] {
    return std::make_unique<telemetry::Exporter>(settings, sampler,
                                                 telemetry::ExporterInfo{version});
  };
  try {
    auto exporter = open();
    spdlog::info("metrics endpoint: {}{}", exporter->url(),
                 settings.basic_auth ? " (basic auth)" : "");
    return std::make_unique<MetricsAttachment>(std::move(exporter), std::move(refresh));
  } catch (const std::exception& e) {
    spdlog::error("metrics endpoint not served: {}; trying again in 1 s, then up to every minute",
                  e.what());
    return std::make_unique<MetricsAttachment>(std::move(open), std::move(refresh));
  }
}

}  // namespace roced::metrics
