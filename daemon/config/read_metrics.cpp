// SPDX-License-Identifier: Apache-2.0
// Reads the `metrics:` section over the defaults (MetricsSettings).
#include "daemon/config/read_metrics.hpp"

#include <arpa/inet.h>

#include <array>

namespace roced::config {

std::string ListenAddress::civetweb() const {
  std::string out = ipv6 ? "[" + host + "]:" : host.empty() ? "" : host + ":";
  out += std::to_string(port);
  return out;
}

std::optional<ListenAddress> parse_listen_address(const std::string& text, std::string& problem) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    problem = "'" + text + "' is not HOST:PORT (\"127.0.0.1:9879\", \"[::1]:9879\", \":9879\")";
    return std::nullopt;
  }
  ListenAddress address;
  const std::string port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) < 1 ||
      std::stoi(port) > 65535) {
    problem = "'" + port + "' is not a TCP port (1-65535)";
    return std::nullopt;
  }
  address.port = std::stoi(port);
  std::string host = text.substr(0, colon);
  std::array<unsigned char, 16> buffer{};
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    address.host = host.substr(1, host.size() - 2);
    address.ipv6 = true;
    if (inet_pton(AF_INET6, address.host.c_str(), buffer.data()) != 1) {
      problem = "'" + address.host + "' is not an IPv6 address";
      return std::nullopt;
    }
  } else if (!host.empty()) {
    // civetweb binds literals only: a name would be resolved once, at start, to who knows what.
    if (inet_pton(AF_INET, host.c_str(), buffer.data()) != 1) {
      problem = "'" + host + "' is not an IPv4 address (IPv6 goes in brackets: [::1]:" + port +
                "; host names are not resolved)";
      return std::nullopt;
    }
    address.host = host;
  }
  return address;
}

namespace detail {

namespace {

const std::vector<std::string> kMetricsKeys = {"enabled", "listen", "basic_auth", "tls"};
const std::vector<std::string> kBasicAuthKeys = {"username", "password_hash"};
const std::vector<std::string> kTlsKeys = {"certificate"};

// crypt(3) prefixes libxcrypt verifies that are worth storing a password with.
bool is_password_hash(const std::string& hash) {
  for (const char* prefix : {"$2b$", "$2y$", "$2a$", "$y$", "$gy$", "$7$", "$6$", "$5$"}) {
    if (hash.rfind(prefix, 0) == 0) return hash.size() > std::string(prefix).size() + 8;
  }
  return false;
}

void read_basic_auth(Reader& reader, const Entry& entry, MetricsSettings& settings) {
  MetricsSettings::BasicAuth auth;
  bool has_user = false;
  bool has_hash = false;
  reader.entries(
      entry.value, entry.value_at, "metrics.basic_auth", kBasicAuthKeys, [&](const Entry& e) {
        const std::string field = "metrics.basic_auth." + e.key;
        if (e.key == "username") {
          if (auto name = reader.string(e.value, e.value_at, field, "a user name")) {
            if (name->find(':') != std::string::npos) {
              reader.diagnostics().error(e.value_at, field, "a user name may not contain ':'");
            } else {
              auth.username = *name;
              has_user = true;
            }
          }
        } else if (e.key == "password_hash") {
          auto hash = reader.string(e.value, e.value_at, field, "a crypt(3) hash");
          if (!hash) return;
          if (!is_password_hash(*hash)) {
            reader.diagnostics().error(
                e.value_at, field,
                "expected a crypt(3) hash ($2b$... from `mkpasswd -m bcrypt` or "
                "`htpasswd -nB`, $y$... from `mkpasswd`), not a plain password");
            return;
          }
          auth.password_hash = *hash;
          has_hash = true;
        }
      });
  if (!has_user || !has_hash) {
    const bool broken = !reader.diagnostics().error_fields_under("metrics.basic_auth").empty();
    if (!broken) {
      reader.diagnostics().error(entry.key_at, "metrics.basic_auth",
                                 std::string("needs both username and password_hash (missing ") +
                                     (has_user ? "password_hash" : "username") + ")");
    }
    return;
  }
  settings.basic_auth = auth;
}

}  // namespace

void read_metrics(Reader& reader, const YAML::Node& node, Location where,
                  MetricsSettings& settings) {
  reader.entries(node, where, "metrics", kMetricsKeys, [&](const Entry& e) {
    if (e.key == "enabled") {
      if (auto value = reader.choice(e.value, e.value_at, "metrics.enabled", {"true", "false"})) {
        settings.enabled = *value == "true";
      }
    } else if (e.key == "listen") {
      auto text = reader.string(e.value, e.value_at, "metrics.listen", "HOST:PORT");
      if (!text) return;
      std::string problem;
      if (!parse_listen_address(*text, problem)) {
        reader.diagnostics().error(e.value_at, "metrics.listen", problem);
        return;
      }
      settings.listen = *text;
    } else if (e.key == "basic_auth") {
      read_basic_auth(reader, e, settings);
    } else if (e.key == "tls") {
      reader.entries(e.value, e.value_at, "metrics.tls", kTlsKeys, [&](const Entry& t) {
        auto path = reader.string(t.value, t.value_at, "metrics.tls.certificate",
                                  "the path of a PEM file (certificate and private key)");
        if (!path) return;
        if (path->front() != '/') {
          reader.diagnostics().error(t.value_at, "metrics.tls.certificate",
                                     "'" + *path + "' is not an absolute path");
          return;
        }
        settings.tls_certificate = *path;
      });
    }
  });
}

}  // namespace detail

}  // namespace roced::config
