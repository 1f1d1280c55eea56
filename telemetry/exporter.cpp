#include "telemetry/exporter.hpp"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "telemetry/password_check.hpp"

namespace roced::telemetry {

class Exporter::Collector final : public prometheus::Collectable {
 public:
  Collector(std::shared_ptr<NodeSampler> sampler, ExporterInfo info)
      : sampler_(std::move(sampler)), info_(std::move(info)) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    return metric_families(sampler_->sample(), info_);
  }

 private:
  std::shared_ptr<NodeSampler> sampler_;
  ExporterInfo info_;
};

namespace {

// civetweb wants the certificate and its key in one PEM file and says little when they are not:
// check first, so the log names the problem.
void check_certificate(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read TLS certificate " + path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string pem = text.str();
  if (pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
    throw std::runtime_error(path + " holds no PEM certificate");
  }
  if (pem.find("PRIVATE KEY-----") == std::string::npos) {
    throw std::runtime_error(path +
                             " holds no private key (civetweb takes the certificate and its "
                             "key in one PEM file: cat cert.pem key.pem > " +
                             path + ")");
  }
}

}  // namespace

Exporter::Exporter(const config::MetricsSettings& settings, std::shared_ptr<NodeSampler> sampler,
                   ExporterInfo info)
    : collector_(std::make_shared<Collector>(std::move(sampler), std::move(info))) {
  std::string problem;
  const auto address = config::parse_listen_address(settings.listen, problem);
  if (!address) throw std::runtime_error("metrics.listen: " + problem);
  const bool tls = settings.tls_certificate.has_value();
  if (tls) check_certificate(*settings.tls_certificate);
  host_ = address->host.empty() ? "0.0.0.0" : address->host;
  ipv6_ = address->ipv6;
  scheme_ = tls ? "https" : "http";

  // Two threads: Prometheus servers scrape one at a time, a second serves a concurrent scrape
  // (a second Prometheus, a curl) without queueing.
  std::vector<std::string> options = {"listening_ports", address->civetweb(tls), "num_threads",
                                      "2"};
  if (tls) {
    options.insert(options.end(), {"ssl_certificate", *settings.tls_certificate,
                                   "ssl_protocol_version", "4"});  // 4: TLS 1.2 and newer
  }
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(options);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot listen on " + settings.listen + (tls ? " (TLS)" : "") + ": " +
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
}

Exporter::~Exporter() = default;

std::string Exporter::url() const {
  const auto ports = exposer_->GetListeningPorts();
  const std::string host = ipv6_ ? "[" + host_ + "]" : host_;
  return scheme_ + "://" + host + ":" + (ports.empty() ? "?" : std::to_string(ports.front())) +
         "/metrics";
}

}  // namespace roced::telemetry
