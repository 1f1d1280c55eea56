// The exporter over a running roce-sim, fetched with curl: plain, with basic auth, with TLS, and
// the errors it gives instead of serving (a certificate without its key, a port in use).
#include <arpa/inet.h>
#include <crypt.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "daemon/discovery.hpp"
#include "run_command.hpp"
#include "sim_node.hpp"
#include "telemetry/exporter.hpp"

namespace roced::telemetry {
namespace {

using roced::test::run_command;

// A TCP port nobody listens on now (bound and released; good enough on a test machine).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

struct Fetched {
  int status = 0;  // HTTP status; 0 when curl could not connect or complete TLS
  std::string body;
};

Fetched fetch(const std::string& url, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {CURL_PROGRAM, "-s", "-w", "\n%{http_code}", "--max-time", "30"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(url);
  const auto result = run_command(argv);
  Fetched out;
  const auto newline = result.out.rfind('\n');
  if (newline == std::string::npos) return out;
  out.status = std::atoi(result.out.c_str() + newline + 1);
  out.body = result.out.substr(0, newline);
  return out;
}

class ExporterSim : public roced::test::SimNode {
 protected:
  void SetUp() override {
    SimNode::SetUp();
    system_ = std::make_unique<System>(System::simulated(dir_));
    sampler_ = std::make_shared<NodeSampler>(*system_, [this] {
      std::vector<PortTarget> targets;
      auto inventory = discover_ports(*system_->files, {});
      if (inventory) {
        for (const auto& port : inventory->ports) {
          PortTarget target;
          target.port = port;
          targets.push_back(target);
        }
      }
      return targets;
    });
    port_ = free_port();
    settings_.listen = "127.0.0.1:" + std::to_string(port_);
  }
  std::string url(const std::string& scheme = "http") const {
    return scheme + "://127.0.0.1:" + std::to_string(port_) + "/metrics";
  }
  std::unique_ptr<System> system_;
  std::shared_ptr<NodeSampler> sampler_;
  int port_ = 0;
  config::MetricsSettings settings_;
};

TEST_F(ExporterSim, ServesEveryPortOfTheNode) {
  Exporter exporter(settings_, sampler_, ExporterInfo{"9.9"});
  EXPECT_EQ(exporter.url(), url());
  const Fetched got = fetch(url());
  ASSERT_EQ(got.status, 200) << got.body;
  for (const char* netdev : {"lan2", "lan3", "lan4", "lan5"}) {
    EXPECT_NE(got.body.find("roce_link_up{netdev=\"" + std::string(netdev) + "\""),
              std::string::npos)
        << netdev;
  }
  EXPECT_NE(got.body.find("roced_build_info{version=\"9.9\"} 1"), std::string::npos);
  EXPECT_NE(got.body.find("roced_ports 4"), std::string::npos);
  EXPECT_NE(got.body.find("roced_scrape_collector_success{collector=\"ethtool\"} 1"),
            std::string::npos);
  // No daemon behind this sampler: no configuration state is claimed.
  EXPECT_EQ(got.body.find("roce_config_in_sync"), std::string::npos);
  EXPECT_EQ(got.body.find("roced_scrape_collector_success{collector=\"config\"} 1"),
            std::string::npos);
}

TEST_F(ExporterSim, BasicAuthRefusesMissingAndWrongCredentials) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  ASSERT_NE(crypt_gensalt_rn("$2b$", 0, nullptr, 0, salt, sizeof salt), nullptr);
  crypt_data data{};
  settings_.basic_auth = config::MetricsSettings::BasicAuth{"prom", crypt_r("pw 1", salt, &data)};
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  EXPECT_EQ(fetch(url()).status, 401);
  EXPECT_EQ(fetch(url(), {"-u", "prom:wrong"}).status, 401);
  EXPECT_EQ(fetch(url(), {"-u", "other:pw 1"}).status, 401);
  const Fetched got = fetch(url(), {"-u", "prom:pw 1"});
  EXPECT_EQ(got.status, 200);
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
}

TEST_F(ExporterSim, TlsServesHttpsWithTheCertificateAndNotPlainHttp) {
  const std::string key = dir_.string() + "/key.pem";
  const std::string cert = dir_.string() + "/cert.pem";
  const auto made = run_command({OPENSSL_PROGRAM, "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                                 "-keyout", key, "-out", cert, "-days", "1", "-subj",
                                 "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string pem = dir_.string() + "/metrics.pem";
  {
    std::ofstream out(pem);
    out << std::ifstream(cert).rdbuf() << std::ifstream(key).rdbuf();
  }
  settings_.tls_certificate = pem;
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  EXPECT_EQ(exporter.url(), url("https"));
  const Fetched got = fetch(url("https"), {"--cacert", cert});
  EXPECT_EQ(got.status, 200);
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
  EXPECT_NE(fetch(url("http")).status, 200);  // no plain HTTP on a TLS port
}

TEST_F(ExporterSim, ACertificateWithoutItsKeyIsRefusedByName) {
  const std::string cert = dir_.string() + "/cert-only.pem";
  std::ofstream(cert) << "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  settings_.tls_certificate = cert;
  try {
    Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
    FAIL() << "served with a certificate that has no key";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("holds no private key"), std::string::npos) << e.what();
  }
}

TEST_F(ExporterSim, APortInUseIsAnErrorNotASilentSecondListener) {
  Exporter first(settings_, sampler_, ExporterInfo{"1"});
  try {
    Exporter second(settings_, sampler_, ExporterInfo{"1"});
    FAIL() << "two exporters on one port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on " + settings_.listen), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(fetch(url()).status, 200);  // the first one still serves
}

}  // namespace
}  // namespace roced::telemetry
