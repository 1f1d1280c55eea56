// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the metrics endpoint needs to know: where to listen, who may scrape, TLS. The config
// loader fills it from `metrics:` (docs/config.md, docs/metrics.md).

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace roced::telemetry {

// `metrics:`: the Prometheus endpoint (docs/metrics.md). The default port 9879 is explained there.
inline constexpr int kDefaultMetricsPort = 9879;

struct MetricsSettings {
  bool enabled = true;
  // Where to listen: "HOST:PORT" with HOST an IPv4 literal or a bracketed IPv6 one, or ":PORT"
  // for every IPv4 address (node_exporter's default reach). Validated by parse_listen_address.
  std::string listen = ":" + std::to_string(kDefaultMetricsPort);
  struct BasicAuth {
    std::string username;
    std::string password_hash;  // crypt(3): $2b$/$2y$ bcrypt, $y$ yescrypt, $6$ sha512crypt
    bool operator==(const BasicAuth&) const = default;
  };
  std::optional<BasicAuth> basic_auth;
  std::optional<std::string> tls_certificate;  // PEM holding the certificate and its key
  // Which metric families to serve, as fnmatch patterns over their names (docs/metrics.md): every
  // family when `include` is empty, less any that `exclude` matches.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  // A scrape serves a port's statistics from the storm watchdog's last reading when it is at
  // most this old, instead of reading the NIC again; 0: always read.
  std::chrono::milliseconds max_sample_age{3000};
  // Every port's RDMA counters are read in the background this often, and a scrape serves that
  // reading while it is at most twice this old; 0: every scrape reads them.
  std::chrono::milliseconds rdma_interval{1000};
  bool operator==(const MetricsSettings&) const = default;
};

// Whether `family` is served under `include` and `exclude`.
bool serves_family(const MetricsSettings& settings, const std::string& family);

// "127.0.0.1:9879", "[::1]:9879", ":9879" -> host (without brackets; empty = any IPv4) and port.
struct ListenAddress {
  std::string host;
  bool ipv6 = false;
  int port = 0;
  // civetweb's listening_ports form: "127.0.0.1:9879", "[::1]:9879", "9879".
  std::string civetweb() const;
};
// nullopt and `problem` set when `text` is not such an address.
std::optional<ListenAddress> parse_listen_address(const std::string& text, std::string& problem);

}  // namespace roced::telemetry
