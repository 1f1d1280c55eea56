// SPDX-License-Identifier: Apache-2.0
#pragma once
// GET /metrics over civetweb: basic auth checked first, the exposition rendered per request,
// gzip-compressed when the client accepts it (Prometheus does). GET /runbook[/<alert>]: the alert
// runbook (runbook.hpp), where the alerts' runbook_url point. Plain HTTP on IPv4 only: TLS and
// IPv6 come through the RelayFrontend in front of it (relay_frontend.hpp).

#include <functional>
#include <string>

struct mg_connection;
struct mg_context;

namespace roced::telemetry {

class MetricsHttp {
 public:
  // Writes the exposition into `out` (a buffer each request thread reuses).
  using Render = std::function<void(std::string& out)>;
  // Whether a user and password may scrape; empty: no authentication.
  using Authorize = std::function<bool(const std::string& user, const std::string& password)>;

  // Listens on `listening_ports` (civetweb's form: "127.0.0.1:9879", "9879", "127.0.0.1:0") with
  // two request threads: a second scrape (a second Prometheus, a curl) does not wait behind the
  // first. Throws std::runtime_error when civetweb cannot start (its reason names no errno).
  MetricsHttp(const std::string& listening_ports, Render render, Authorize authorize);
  ~MetricsHttp();  // returns once no request is being served
  MetricsHttp(const MetricsHttp&) = delete;
  MetricsHttp& operator=(const MetricsHttp&) = delete;

  // The port bound (the kernel's pick for port 0); 0 when unknown.
  int port() const;

 private:
  static int serve(mg_connection* connection, void* self);
  static int serve_runbook(mg_connection* connection, void* unused);
  static int serve_landing_page(mg_connection* connection, void* unused);
  static int serve_health(mg_connection* connection, void* unused);
  int serve(mg_connection* connection);
  bool authorized(mg_connection* connection) const;

  Render render_;
  Authorize authorize_;
  mg_context* context_ = nullptr;
};

// `body` gzip-compressed (RFC 1952) into `out` at zlib's fastest level: a 300 kB exposition
// shrinks to a tenth for a fraction of the time the best level takes. The compressor's state
// (about 256 kB) is kept per thread and reset, not allocated per request.
void gzip(const std::string& body, std::string& out);
inline std::string gzip(const std::string& body) {
  std::string out;
  gzip(body, out);
  return out;
}

// True when an Accept-Encoding header value lets the response be gzip (not "gzip;q=0").
bool accepts_gzip(const char* accept_encoding);

}  // namespace roced::telemetry
