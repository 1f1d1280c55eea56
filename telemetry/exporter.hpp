// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Prometheus endpoint: civetweb serving GET /metrics (metrics_http.hpp), each scrape sampling
// the node through a NodeSampler and written by exposition_text. Optional basic auth and TLS
// (docs/metrics.md). With TLS, or on an IPv6 address, the Exposer listens on loopback only and a
// RelayFrontend serves the configured address, relaying to it: Debian's civetweb can do neither TLS
// with OpenSSL 3 nor IPv6 (relay_frontend.hpp). Plain HTTP on IPv4 is civetweb's alone.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "telemetry/collector.hpp"
#include "telemetry/exporter_settings.hpp"
#include "telemetry/metric_families.hpp"
#include "telemetry/node_sampler.hpp"

namespace roced::telemetry {

class MetricsHttp;
class RelayFrontend;

class Exporter {
 public:
  // The collectors whose families each scrape serves after the ports' own; asked per scrape.
  using Collectors = std::function<std::vector<Collector*>()>;
  // Listens at once; throws std::runtime_error with the reason when it cannot (address in use,
  // a certificate that does not load, a bad listen address).
  Exporter(const MetricsSettings& settings, std::shared_ptr<NodeSampler> sampler, ExporterInfo info,
           Collectors collectors = {});
  ~Exporter();
  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;

  // "http://127.0.0.1:9879/metrics", "http://[::1]:9879/metrics", "https://..." with TLS (the
  // port actually bound on the configured address, never the loopback one behind a relay).
  std::string url() const;

 private:
  std::unique_ptr<MetricsHttp> http_;
  std::unique_ptr<RelayFrontend> relay_;  // declared after http_: stops relaying before it goes
  std::string scheme_;
  std::string host_;
  bool ipv6_ = false;
};

}  // namespace roced::telemetry
