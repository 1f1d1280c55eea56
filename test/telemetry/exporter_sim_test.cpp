// SPDX-License-Identifier: Apache-2.0
// The exporter over a running roce-sim, fetched with curl: plain, with basic auth, with TLS, on
// IPv6, and the errors it gives instead of serving (a certificate without its key, a port in use).
// TLS and IPv6 are served by roced's own relay (RelayFrontend) in front of the loopback endpoint:
// its handshake timeout, concurrency and stop are tested on the relay directly.
#include <arpa/inet.h>
#include <crypt.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "in_process_node.hpp"
#include "port/discovery.hpp"
#include "run_command.hpp"
#include "telemetry/exporter.hpp"
#include "telemetry/relay_frontend.hpp"
#include "test/support/free_port.hpp"

namespace roced::telemetry {
namespace {

using roced::test::free_port;
using roced::test::run_command;

// The same on ::1; 0 when this machine has no IPv6 loopback.
int free_ipv6_port() {
  const int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_addr = in6addr_loopback;
  socklen_t length = sizeof address;
  const bool bound = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) == 0 &&
                     ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  if (fd >= 0) ::close(fd);
  return bound ? ntohs(address.sin6_port) : 0;
}

struct Fetched {
  int status = 0;  // HTTP status; 0 when curl could not connect or complete TLS
  std::string body;
};

Fetched fetch(const std::string& url, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {CURL_PROGRAM, "-s", "-w", "\n%{http_code}", "--max-time", "30"};
  argv.push_back("--globoff");  // "[::1]" in a URL is an address, not one of curl's glob ranges
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

// A TCP connection to 127.0.0.1:`port` that sends nothing: a client that never does its TLS
// handshake. -1 when the connection is refused.
int connect_silently(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// The same to [::1]:`port`.
int connect_silently_ipv6(int port) {
  const int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_port = htons(static_cast<uint16_t>(port));
  address.sin6_addr = in6addr_loopback;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Waits (up to a generous minute, only against a hang) for the peer to close `fd`: true when it
// did, false when the connection is still open.
bool closed_by_peer(int fd) {
  pollfd closed = {fd, POLLIN, 0};
  if (::poll(&closed, 1, 60000) != 1) return false;
  char byte = 0;
  return ::recv(fd, &byte, 1, 0) <= 0;
}

// The threads of this process now.
size_t thread_count() {
  size_t count = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    ++count;
  }
  return count;
}

// The thread count once it is back to `expected`, or what it still is after a generous minute. A
// joined thread's /proc/self/task entry goes a moment after join() returns (the kernel reaps the
// task after waking the joiner), so a count taken at once can still include it.
size_t thread_count_once_back_to(size_t expected) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  size_t count = thread_count();
  while (count != expected && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    count = thread_count();
  }
  return count;
}

class ExporterSim : public roced::test::InProcessNode {
 protected:
  void SetUp() override {
    InProcessNode::SetUp();
    sampler_ = std::make_shared<NodeSampler>(system_, [this] {
      std::vector<PortTarget> targets;
      auto inventory = discover_ports(*system_.files, {});
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
  // A self-signed certificate for 127.0.0.1 and ::1 (`name`.crt) and its key (`name`.key); fails
  // the test when openssl cannot make them.
  void make_certificate(const std::string& name) {
    const auto made = run_command(
        {OPENSSL_PROGRAM, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
         dir_.string() + "/" + name + ".key", "-out", dir_.string() + "/" + name + ".crt", "-days",
         "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,IP:::1"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  // The one PEM file roced takes: `certificate`.crt followed by `key`.key.
  std::string combined_pem(const std::string& certificate, const std::string& key) {
    const std::string pem = dir_.string() + "/" + certificate + "+" + key + ".pem";
    std::ofstream out(pem);
    out << std::ifstream(dir_.string() + "/" + certificate + ".crt").rdbuf()
        << std::ifstream(dir_.string() + "/" + key + ".key").rdbuf();
    return pem;
  }
  std::string certificate_file(const std::string& name) const {
    return dir_.string() + "/" + name + ".crt";
  }
  // prom / "pw 1"
  void use_basic_auth() {
    char salt[CRYPT_GENSALT_OUTPUT_SIZE];
    ASSERT_NE(crypt_gensalt_rn("$2b$", 0, nullptr, 0, salt, sizeof salt), nullptr);
    crypt_data data{};
    settings_.basic_auth =
        telemetry::MetricsSettings::BasicAuth{"prom", crypt_r("pw 1", salt, &data)};
  }
  std::shared_ptr<NodeSampler> sampler_;
  int port_ = 0;
  telemetry::MetricsSettings settings_;
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
  // The node's /proc/version names Debian's 6.1.115 package: the tree and the version judged on.
  const auto at = got.body.find("roce_port_driver_tree_info{netdev=\"lan2\"");
  ASSERT_NE(at, std::string::npos) << got.body;
  const std::string line = got.body.substr(at, got.body.find('\n', at) - at);
  EXPECT_NE(line.find("tree=\"debian-6.1\""), std::string::npos) << line;
  EXPECT_NE(line.find("version=\"6.1.115\""), std::string::npos) << line;
  EXPECT_EQ(line.substr(line.size() - 2), " 1") << line;
  EXPECT_NE(got.body.find("roced_scrape_collector_success{collector=\"ethtool\"} 1"),
            std::string::npos);
  // No daemon behind this sampler: no configuration state is claimed.
  EXPECT_EQ(got.body.find("roce_config_in_sync"), std::string::npos);
  EXPECT_EQ(got.body.find("roced_scrape_collector_success{collector=\"config\"} 1"),
            std::string::npos);
}

// The link's speed in bytes/s (node_exporter's unit), and roced's own process as every Prometheus
// client library serves it.
TEST_F(ExporterSim, ServesTheLinkSpeedAndTheProcessFamilies) {
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  const Fetched got = fetch(url());
  ASSERT_EQ(got.status, 200) << got.body;
  // The default node's ports are 400 Gb/s: 50e9 bytes/s.
  EXPECT_NE(got.body.find("roce_link_speed_bytes{netdev=\"lan2\",device=\"mlx5_0\",port=\"1\"} "
                          "50000000000\n"),
            std::string::npos)
      << got.body;
  for (const char* family : {"process_cpu_seconds_total ", "process_resident_memory_bytes ",
                             "process_virtual_memory_bytes ", "process_start_time_seconds ",
                             "process_open_fds ", "process_max_fds "}) {
    EXPECT_NE(got.body.find(std::string("\n") + family), std::string::npos) << family;
  }
}

// A browser at the address finds where things are; a probe finds /healthz. Neither asks for the
// scrape's credentials.
TEST_F(ExporterSim, ALandingPageAndAHealthEndpointWithoutCredentials) {
  ASSERT_NO_FATAL_FAILURE(use_basic_auth());
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  const std::string base = "http://127.0.0.1:" + std::to_string(port_);
  const Fetched landing = fetch(base + "/");
  EXPECT_EQ(landing.status, 200);
  EXPECT_NE(landing.body.find("<a href=\"metrics\">"), std::string::npos) << landing.body;
  EXPECT_NE(landing.body.find("<a href=\"healthz\">"), std::string::npos) << landing.body;
  const Fetched health = fetch(base + "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, "ok\n");
  EXPECT_EQ(fetch(base + "/nothing-here").status, 404);
  EXPECT_EQ(fetch(url()).status, 401);
}

// metrics.families: only what `include` matches, less what `exclude` matches.
TEST_F(ExporterSim, ServesOnlyTheFamiliesAsked) {
  settings_.include = {"roce_link_*", "roced_*"};
  settings_.exclude = {"roce_link_mtu_bytes"};
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  const Fetched got = fetch(url());
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_NE(got.body.find("roce_link_up{"), std::string::npos) << got.body;
  EXPECT_NE(got.body.find("roced_ports 4"), std::string::npos);
  EXPECT_EQ(got.body.find("roce_link_mtu_bytes"), std::string::npos);
  EXPECT_EQ(got.body.find("roce_priority_bytes_total"), std::string::npos);
  EXPECT_EQ(got.body.find("roce_pfc_pause_frames_total"), std::string::npos);
}

TEST_F(ExporterSim, BasicAuthRefusesMissingAndWrongCredentials) {
  ASSERT_NO_FATAL_FAILURE(use_basic_auth());
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  EXPECT_EQ(fetch(url()).status, 401);
  EXPECT_EQ(fetch(url(), {"-u", "prom:wrong"}).status, 401);
  EXPECT_EQ(fetch(url(), {"-u", "other:pw 1"}).status, 401);
  const Fetched got = fetch(url(), {"-u", "prom:pw 1"});
  EXPECT_EQ(got.status, 200);
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
}

// The alerts' runbook_url lead here: whoever follows one holds no scrape credentials.
TEST_F(ExporterSim, TheRunbookIsServedPerAlertWithoutCredentials) {
  ASSERT_NO_FATAL_FAILURE(use_basic_auth());
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  const std::string base = "http://127.0.0.1:" + std::to_string(port_) + "/runbook";
  EXPECT_EQ(fetch(url()).status, 401);
  const Fetched section = fetch(base + "/RocePfcStormActive");
  EXPECT_EQ(section.status, 200);
  EXPECT_EQ(section.body.rfind("## RocePfcStormActive\n", 0), 0u) << section.body;
  EXPECT_EQ(section.body.find("## RocePauseStorm"), std::string::npos) << section.body;
  const Fetched whole = fetch(base);
  EXPECT_EQ(whole.status, 200);
  EXPECT_NE(whole.body.find("## RoceLinkDown\n"), std::string::npos);
  const Fetched unknown = fetch(base + "/RocePfcStorm");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("RocePfcStormActive"), std::string::npos) << unknown.body;
  EXPECT_EQ(fetch(base + "x").status, 404);
}

TEST_F(ExporterSim, TlsServesHttpsWithTheCertificateAndNotPlainHttp) {
  ASSERT_NO_FATAL_FAILURE(make_certificate("server"));
  settings_.tls_certificate = combined_pem("server", "server");
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  EXPECT_EQ(exporter.url(), url("https"));
  const Fetched got = fetch(url("https"), {"--cacert", certificate_file("server")});
  EXPECT_EQ(got.status, 200);
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
  EXPECT_NE(fetch(url("http")).status, 200);  // no plain HTTP on a TLS port
  // Nor HTTPS with a certificate the client does not trust.
  EXPECT_EQ(fetch(url("https")).status, 0);
}

TEST_F(ExporterSim, TlsAndBasicAuthTogether) {
  ASSERT_NO_FATAL_FAILURE(make_certificate("server"));
  settings_.tls_certificate = combined_pem("server", "server");
  ASSERT_NO_FATAL_FAILURE(use_basic_auth());
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  const std::vector<std::string> trust = {"--cacert", certificate_file("server")};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), trust.begin(), trust.end());
    return extra;
  };
  EXPECT_EQ(fetch(url("https"), trust).status, 401);
  EXPECT_EQ(fetch(url("https"), with({"-u", "prom:wrong"})).status, 401);
  const Fetched got = fetch(url("https"), with({"-u", "prom:pw 1"}));
  EXPECT_EQ(got.status, 200);
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
}

TEST_F(ExporterSim, TlsOlderThan12IsRefusedAnd12Served) {
  ASSERT_NO_FATAL_FAILURE(make_certificate("server"));
  settings_.tls_certificate = combined_pem("server", "server");
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  // SECLEVEL=0 lets this client offer TLS 1.1 at all; the refusal must be the server's alert.
  const auto old =
      run_command({"/bin/sh", "-c",
                   "exec \"$0\" s_client -connect \"$1\" -tls1_1 -cipher DEFAULT@SECLEVEL=0 "
                   "</dev/null",
                   OPENSSL_PROGRAM, "127.0.0.1:" + std::to_string(port_)});
  EXPECT_NE(old.exit_code, 0);
  EXPECT_NE((old.out + old.err).find("alert protocol version"), std::string::npos)
      << old.out << old.err;
  const Fetched got = fetch(
      url("https"), {"--cacert", certificate_file("server"), "--tlsv1.2", "--tls-max", "1.2"});
  EXPECT_EQ(got.status, 200);
}

TEST_F(ExporterSim, AKeyThatDoesNotMatchTheCertificateIsRefusedByName) {
  ASSERT_NO_FATAL_FAILURE(make_certificate("one"));
  ASSERT_NO_FATAL_FAILURE(make_certificate("other"));
  settings_.tls_certificate = combined_pem("one", "other");
  try {
    Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
    FAIL() << "served with another certificate's key";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(*settings_.tls_certificate +
                                         ": the private key does not match the certificate"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(connect_silently(port_), 0);  // nothing left listening
}

TEST_F(ExporterSim, ATlsPortInUseIsAnError) {
  ASSERT_NO_FATAL_FAILURE(make_certificate("server"));
  settings_.tls_certificate = combined_pem("server", "server");
  Exporter first(settings_, sampler_, ExporterInfo{"1"});
  try {
    Exporter second(settings_, sampler_, ExporterInfo{"1"});
    FAIL() << "two exporters on one port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on " + settings_.listen), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(fetch(url("https"), {"--cacert", certificate_file("server")}).status, 200);
}

// The relay alone with TLS, in front of a plain exporter, with a handshake timeout far longer than
// any wait below: only concurrency and the stop signal can make these pass.
class TlsFrontendSim : public ExporterSim {
 protected:
  void SetUp() override {
    ExporterSim::SetUp();
    ASSERT_NO_FATAL_FAILURE(make_certificate("server"));
    pem_ = combined_pem("server", "server");
    backend_ = std::make_unique<Exporter>(settings_, sampler_, ExporterInfo{"1"});
    limits_.handshake_timeout = std::chrono::minutes(10);
    limits_.idle_timeout = std::chrono::minutes(10);
  }
  void TearDown() override {
    for (const int fd : stuck_) ::close(fd);
    ExporterSim::TearDown();
  }
  std::unique_ptr<RelayFrontend> start() {
    return std::make_unique<RelayFrontend>(telemetry::ListenAddress{"127.0.0.1", false, 0}, pem_,
                                           port_, limits_);
  }
  std::string https_url(const RelayFrontend& frontend) const {
    return "https://127.0.0.1:" + std::to_string(frontend.port()) + "/metrics";
  }
  std::string pem_;
  std::unique_ptr<Exporter> backend_;
  RelayFrontend::Limits limits_;
  std::vector<int> stuck_;
};

TEST_F(TlsFrontendSim, ClientsThatNeverHandshakeDelayNoOtherClient) {
  auto frontend = start();
  for (int i = 0; i < 4; ++i) {
    stuck_.push_back(connect_silently(frontend->port()));
    ASSERT_GE(stuck_.back(), 0);
  }
  // fetch() gives up after 30 s; the stuck clients hold their slots for 10 minutes.
  const Fetched got = fetch(https_url(*frontend), {"--cacert", certificate_file("server")});
  EXPECT_EQ(got.status, 200);
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
}

TEST_F(TlsFrontendSim, TheDestructorReturnsWhileAClientIsStuckAndLeavesNothing) {
  const size_t threads_before = thread_count();
  auto frontend = start();
  const int port = frontend->port();
  stuck_.push_back(connect_silently(port));
  ASSERT_GE(stuck_.back(), 0);
  // Connections are accepted in order: once this one is served, the stuck one has its thread.
  ASSERT_EQ(fetch(https_url(*frontend), {"--cacert", certificate_file("server")}).status, 200);

  // The destroying thread owns all it touches, so it can be left behind if it hangs.
  auto destroyed = std::make_shared<std::promise<void>>();
  auto done = destroyed->get_future();
  std::thread destroyer([owned = std::move(frontend), destroyed]() mutable {
    owned.reset();
    destroyed->set_value();
  });
  // Generous: the stuck client's handshake would time out only after 10 minutes.
  if (done.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    destroyer.detach();
    FAIL() << "~RelayFrontend is still waiting for the stuck client";
  }
  destroyer.join();
  EXPECT_EQ(thread_count_once_back_to(threads_before), threads_before);
  // The stuck client's connection is closed (EOF), and nothing listens any more.
  pollfd closed = {stuck_.back(), POLLIN, 0};
  ASSERT_EQ(::poll(&closed, 1, 30000), 1);
  char byte = 0;
  EXPECT_LE(::recv(stuck_.back(), &byte, 1, 0), 0);
  EXPECT_LT(connect_silently(port), 0);
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
    // The kernel's reason, not civetweb's "possible problem binding to port".
    EXPECT_NE(std::string(e.what()).find("cannot listen on " + settings_.listen +
                                         ": bind: " + std::strerror(EADDRINUSE)),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(fetch(url()).status, 200);  // the first one still serves
}

// Destroys `owned` on a thread of its own, so a destructor that hangs fails the test instead of
// hanging it: true when it returned within a (generous) minute.
template <typename T>
bool destroyed_within_a_minute(std::unique_ptr<T> owned) {
  auto destroyed = std::make_shared<std::promise<void>>();
  auto done = destroyed->get_future();
  std::thread destroyer([owned = std::move(owned), destroyed]() mutable {
    owned.reset();
    destroyed->set_value();
  });
  if (done.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    destroyer.detach();
    return false;
  }
  destroyer.join();
  return true;
}

// metrics.listen on IPv6. Debian's civetweb cannot listen there (built without USE_IPV6), so the
// relay serves the configured address, plain or with TLS, in front of the loopback endpoint.
class ExporterIpv6Sim : public ExporterSim {
 protected:
  void SetUp() override {
    ExporterSim::SetUp();
    port_ = free_ipv6_port();
    ASSERT_NE(port_, 0) << "no IPv6 loopback (::1) to bind: these cases cannot run";
    settings_.listen = "[::1]:" + std::to_string(port_);
  }
  void TearDown() override {
    for (const int fd : stuck_) ::close(fd);
    ExporterSim::TearDown();
  }
  std::string ipv6_url(const std::string& scheme = "http") const {
    return scheme + "://[::1]:" + std::to_string(port_) + "/metrics";
  }
  std::vector<int> stuck_;
};

TEST_F(ExporterIpv6Sim, ServesPlainHttpOnTheIpv6AddressAndNowhereElse) {
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  EXPECT_EQ(exporter.url(), ipv6_url());
  const Fetched got = fetch(ipv6_url());
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
  EXPECT_NE(got.body.find("roced_ports 4"), std::string::npos);
  // The same port on IPv4 loopback is refused: [::1] means IPv6 only.
  EXPECT_LT(connect_silently(port_), 0);
  EXPECT_EQ(fetch(url()).status, 0);
  // Plain HTTP, as configured: no TLS is spoken there.
  EXPECT_EQ(fetch(ipv6_url("https"), {"-k"}).status, 0);
}

TEST_F(ExporterIpv6Sim, BasicAuthHoldsThroughThePlainRelay) {
  ASSERT_NO_FATAL_FAILURE(use_basic_auth());
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  EXPECT_EQ(fetch(ipv6_url()).status, 401);
  EXPECT_EQ(fetch(ipv6_url(), {"-u", "prom:wrong"}).status, 401);
  EXPECT_EQ(fetch(ipv6_url(), {"-u", "other:pw 1"}).status, 401);
  const Fetched got = fetch(ipv6_url(), {"-u", "prom:pw 1"});
  EXPECT_EQ(got.status, 200);
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
}

TEST_F(ExporterIpv6Sim, TlsOnIpv6ServesHttpsAndNotPlainHttp) {
  ASSERT_NO_FATAL_FAILURE(make_certificate("server"));
  settings_.tls_certificate = combined_pem("server", "server");
  Exporter exporter(settings_, sampler_, ExporterInfo{"1"});
  EXPECT_EQ(exporter.url(), ipv6_url("https"));
  const Fetched got = fetch(ipv6_url("https"), {"--cacert", certificate_file("server")});
  EXPECT_EQ(got.status, 200);
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
  EXPECT_NE(fetch(ipv6_url("http")).status, 200);
}

TEST_F(ExporterIpv6Sim, AnIpv6PortInUseIsAnErrorNamingTheAddress) {
  Exporter first(settings_, sampler_, ExporterInfo{"1"});
  try {
    Exporter second(settings_, sampler_, ExporterInfo{"1"});
    FAIL() << "two exporters on one port";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot listen on " + settings_.listen + ": bind: "), std::string::npos)
        << what;
    EXPECT_EQ(what.find("TLS"), std::string::npos) << what;  // no TLS was asked for
  }
  EXPECT_EQ(fetch(ipv6_url()).status, 200);  // the first one still serves
}

TEST_F(ExporterIpv6Sim, StoppingLeavesNothingListeningAndNoThreadBehind) {
  const size_t threads_before = thread_count();
  auto exporter = std::make_unique<Exporter>(settings_, sampler_, ExporterInfo{"1"});
  ASSERT_EQ(fetch(ipv6_url()).status, 200);
  // A client that sends nothing: its relay thread waits for bytes (the idle timeout is a minute).
  stuck_.push_back(connect_silently_ipv6(port_));
  ASSERT_GE(stuck_.back(), 0);
  ASSERT_TRUE(destroyed_within_a_minute(std::move(exporter)))
      << "~Exporter is still waiting for the silent client";
  EXPECT_EQ(thread_count_once_back_to(threads_before), threads_before);
  EXPECT_TRUE(closed_by_peer(stuck_.back()));
  EXPECT_LT(connect_silently_ipv6(port_), 0);
}

// The relay alone without TLS, on [::1], in front of a plain exporter on 127.0.0.1, with an idle
// timeout far longer than any wait below unless a test shortens it.
class PlainRelaySim : public ExporterIpv6Sim {
 protected:
  void SetUp() override {
    // Not ExporterIpv6Sim's: the exporter behind listens on 127.0.0.1:port_, plain.
    ExporterSim::SetUp();
    backend_ = std::make_unique<Exporter>(settings_, sampler_, ExporterInfo{"1"});
    ASSERT_NE(free_ipv6_port(), 0) << "no IPv6 loopback (::1) to bind: these cases cannot run";
    limits_.handshake_timeout = std::chrono::minutes(10);
    limits_.idle_timeout = std::chrono::minutes(10);
  }
  std::unique_ptr<RelayFrontend> start() {
    return std::make_unique<RelayFrontend>(telemetry::ListenAddress{"::1", true, 0}, std::nullopt,
                                           port_, limits_);
  }
  static std::string relay_url(const RelayFrontend& relay) {
    return "http://[::1]:" + std::to_string(relay.port()) + "/metrics";
  }
  std::unique_ptr<Exporter> backend_;
  RelayFrontend::Limits limits_;
};

TEST_F(PlainRelaySim, RelaysHttpAndSpeaksNoTls) {
  auto relay = start();
  EXPECT_FALSE(relay->tls());
  const Fetched got = fetch(relay_url(*relay));
  EXPECT_EQ(got.status, 200);
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
  EXPECT_EQ(fetch("https://[::1]:" + std::to_string(relay->port()) + "/metrics", {"-k"}).status, 0);
}

TEST_F(PlainRelaySim, SilentClientsDelayNoOtherClient) {
  auto relay = start();
  for (int i = 0; i < 4; ++i) {
    stuck_.push_back(connect_silently_ipv6(relay->port()));
    ASSERT_GE(stuck_.back(), 0);
  }
  // fetch() gives up after 30 s; the silent clients hold their slots for 10 minutes.
  const Fetched got = fetch(relay_url(*relay));
  EXPECT_EQ(got.status, 200);
  EXPECT_NE(got.body.find("roce_port_info{netdev=\"lan2\""), std::string::npos);
}

TEST_F(PlainRelaySim, ASilentClientIsClosedAfterTheIdleTimeout) {
  limits_.idle_timeout = std::chrono::milliseconds(200);
  auto relay = start();
  stuck_.push_back(connect_silently_ipv6(relay->port()));
  ASSERT_GE(stuck_.back(), 0);
  EXPECT_TRUE(closed_by_peer(stuck_.back()));  // not after ten minutes: the test would stop
  // The relay itself stays up for the next client.
  EXPECT_EQ(fetch(relay_url(*relay)).status, 200);
}

TEST_F(PlainRelaySim, TheDestructorReturnsWhileAClientIsSilentAndLeavesNothing) {
  const size_t threads_before = thread_count();
  auto relay = start();
  const int port = relay->port();
  stuck_.push_back(connect_silently_ipv6(port));
  ASSERT_GE(stuck_.back(), 0);
  // Connections are accepted in order: once this one is served, the silent one has its thread.
  ASSERT_EQ(fetch(relay_url(*relay)).status, 200);
  ASSERT_TRUE(destroyed_within_a_minute(std::move(relay)))
      << "~RelayFrontend is still waiting for the silent client";
  EXPECT_EQ(thread_count_once_back_to(threads_before), threads_before);
  EXPECT_TRUE(closed_by_peer(stuck_.back()));
  EXPECT_LT(connect_silently_ipv6(port), 0);
}

}  // namespace
}  // namespace roced::telemetry
