// SPDX-License-Identifier: Apache-2.0
#include "telemetry/exporter.hpp"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include <stdexcept>

#include "telemetry/password_check.hpp"
#include "telemetry/relay_frontend.hpp"

namespace roced::telemetry {

class Exporter::Collector final : public prometheus::Collectable {
 public:
  Collector(std::shared_ptr<NodeSampler> sampler, ExporterInfo info, MetricsSettings settings)
      : sampler_(std::move(sampler)), info_(std::move(info)), settings_(std::move(settings)) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    auto families = metric_families(sampler_->sample(), info_);
    std::erase_if(families, [&](const prometheus::MetricFamily& family) {
      return !serves_family(settings_, family.name);
    });
    return families;
  }

 private:
  std::shared_ptr<NodeSampler> sampler_;
  ExporterInfo info_;
  MetricsSettings settings_;  // the families to serve
};

Exporter::Exporter(const MetricsSettings& settings, std::shared_ptr<NodeSampler> sampler,
                   ExporterInfo info)
    : collector_(std::make_shared<Collector>(std::move(sampler), std::move(info), settings)) {
  std::string problem;
  const auto address = parse_listen_address(settings.listen, problem);
  if (!address) throw std::runtime_error("metrics.listen: " + problem);
  const bool tls = settings.tls_certificate.has_value();
  host_ = address->host.empty() ? "0.0.0.0" : address->host;
  ipv6_ = address->ipv6;
  scheme_ = tls ? "https" : "http";
  // Debian bookworm's civetweb has neither working TLS (OpenSSL 3) nor IPv6 (built without
  // USE_IPV6): for either, roced's relay takes the configured address.
  const bool relayed = tls || address->ipv6;

  // Relayed, the Exposer serves plain HTTP on loopback, on a port the kernel picks, and only the
  // RelayFrontend listens on the configured address.
  const std::string exposer_listen = relayed ? "127.0.0.1:0" : address->civetweb();
  // Two threads: Prometheus servers scrape one at a time, a second serves a concurrent scrape
  // (a second Prometheus, a curl) without queueing.
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(
        std::vector<std::string>{"listening_ports", exposer_listen, "num_threads", "2"});
  } catch (const std::exception& e) {
    // civetweb says only "possible problem binding to port": the errno comes from trying again.
    const std::string why = relayed ? std::string() : listen_error(*address);
    if (!why.empty()) throw std::runtime_error(why);
    throw std::runtime_error("cannot listen on " + (relayed ? exposer_listen : settings.listen) +
                             (relayed ? " (the loopback endpoint behind the relay)" : "") + ": " +
                             e.what());
  }
  if (settings.basic_auth) {
    auto check = std::make_shared<PasswordCheck>(settings.basic_auth->username,
                                                 settings.basic_auth->password_hash);
    exposer_->RegisterAuth(
        [check](const std::string& user, const std::string& password) {
          return (*check)(user, password);
        },
        "roced");
  }
  exposer_->RegisterCollectable(collector_);
  // The public address opens last, once the endpoint checks credentials and has its collector.
  if (relayed) {
    const auto ports = exposer_->GetListeningPorts();
    if (ports.empty() || ports.front() == 0) {
      throw std::runtime_error("the loopback endpoint behind the relay reports no port");
    }
    relay_ = std::make_unique<RelayFrontend>(*address, settings.tls_certificate, ports.front());
  }
}

Exporter::~Exporter() = default;

std::string Exporter::url() const {
  const std::string host = ipv6_ ? "[" + host_ + "]" : host_;
  if (relay_) return scheme_ + "://" + host + ":" + std::to_string(relay_->port()) + "/metrics";
  const auto ports = exposer_->GetListeningPorts();
  return scheme_ + "://" + host + ":" + (ports.empty() ? "?" : std::to_string(ports.front())) +
         "/metrics";
}

}  // namespace roced::telemetry
