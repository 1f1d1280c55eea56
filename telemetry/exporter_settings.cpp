// SPDX-License-Identifier: Apache-2.0
#include "telemetry/exporter_settings.hpp"

#include <arpa/inet.h>
#include <fnmatch.h>

#include <algorithm>
#include <array>

namespace roced::telemetry {

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

bool serves_family(const MetricsSettings& settings, const std::string& family) {
  const auto matches = [&](const std::string& pattern) {
    return ::fnmatch(pattern.c_str(), family.c_str(), 0) == 0;
  };
  if (!settings.include.empty() &&
      std::none_of(settings.include.begin(), settings.include.end(), matches)) {
    return false;
  }
  return std::none_of(settings.exclude.begin(), settings.exclude.end(), matches);
}

}  // namespace roced::telemetry
