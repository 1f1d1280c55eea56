// SPDX-License-Identifier: Apache-2.0
#include "telemetry/exporter.hpp"

#include <stdexcept>

#include "telemetry/metrics_http.hpp"
#include "telemetry/password_check.hpp"
#include "telemetry/process_metrics.hpp"
#include "telemetry/relay_frontend.hpp"

namespace roced::telemetry {

Exporter::Exporter(const MetricsSettings& settings, std::shared_ptr<NodeSampler> sampler,
                   ExporterInfo info, Collectors collectors) {
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

  // Relayed, civetweb serves plain HTTP on loopback, on a port the kernel picks, and only the
  // RelayFrontend listens on the configured address.
  const std::string http_listen = relayed ? "127.0.0.1:0" : address->civetweb();
  MetricsHttp::Render render = [sampler, info, settings,
                                collectors = std::move(collectors)](std::string& out) {
    static ProcessCollector process;
    std::vector<Collector*> more = collectors ? collectors() : std::vector<Collector*>{};
    more.push_back(&process);
    write_exposition(
        out, sampler->sample(), info,
        [&settings](std::string_view family) {
          return serves_family(settings, std::string(family));
        },
        more);
  };
  MetricsHttp::Authorize authorize;
  if (settings.basic_auth) {
    auto check = std::make_shared<PasswordCheck>(settings.basic_auth->username,
                                                 settings.basic_auth->password_hash);
    authorize = [check](const std::string& user, const std::string& password) {
      return (*check)(user, password);
    };
  }
  try {
    http_ = std::make_unique<MetricsHttp>(http_listen, std::move(render), std::move(authorize));
  } catch (const std::exception& e) {
    // civetweb says only that it could not start: the errno comes from trying again.
    const std::string why = relayed ? std::string() : listen_error(*address);
    if (!why.empty()) throw std::runtime_error(why);
    throw std::runtime_error("cannot listen on " + (relayed ? http_listen : settings.listen) +
                             (relayed ? " (the loopback endpoint behind the relay)" : "") + ": " +
                             e.what());
  }
  // The public address opens last, once the endpoint checks credentials and has its collector.
  if (relayed) {
    const int port = http_->port();
    if (port == 0)
      throw std::runtime_error("the loopback endpoint behind the relay reports no port");
    relay_ = std::make_unique<RelayFrontend>(*address, settings.tls_certificate, port);
  }
}

Exporter::~Exporter() = default;

std::string Exporter::url() const {
  const std::string host = ipv6_ ? "[" + host_ + "]" : host_;
  if (relay_) return scheme_ + "://" + host + ":" + std::to_string(relay_->port()) + "/metrics";
  const int port = http_->port();
  return scheme_ + "://" + host + ":" + (port == 0 ? "?" : std::to_string(port)) + "/metrics";
}

}  // namespace roced::telemetry
