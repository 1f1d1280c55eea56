// SPDX-License-Identifier: Apache-2.0
#include "telemetry/metrics_http.hpp"

#include <civetweb.h>
#include <openssl/evp.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "telemetry/runbook.hpp"

namespace roced::telemetry {

namespace {

constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr const char* kTextType = "text/plain; charset=utf-8";

// "Basic dXNlcjpwYXNz" -> "user:pass"; empty when it is not a basic credential.
std::string basic_credential(const char* header) {
  if (header == nullptr) return {};
  std::string_view value(header);
  constexpr std::string_view kScheme = "Basic ";
  if (value.size() <= kScheme.size() || strncasecmp(value.data(), "Basic ", kScheme.size()) != 0) {
    return {};
  }
  value.remove_prefix(kScheme.size());
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty() || value.size() % 4 != 0 || value.size() > 4096) return {};
  std::string decoded(value.size() / 4 * 3, '\0');
  const int length = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                                     reinterpret_cast<const unsigned char*>(value.data()),
                                     static_cast<int>(value.size()));
  if (length < 0) return {};
  // EVP_DecodeBlock counts the padding's zero bytes too.
  size_t size = static_cast<size_t>(length);
  for (size_t i = value.size(); i > 0 && value[i - 1] == '=' && size > 0; --i) --size;
  decoded.resize(size);
  return decoded;
}

void send(mg_connection* connection, int status, std::string_view body, bool gzipped, bool head,
          const char* content_type = kContentType) {
  mg_response_header_start(connection, status);
  mg_response_header_add(connection, "Content-Type", status == 200 ? content_type : "text/plain",
                         -1);
  if (gzipped) mg_response_header_add(connection, "Content-Encoding", "gzip", -1);
  if (status == 401) {
    mg_response_header_add(connection, "WWW-Authenticate", "Basic realm=\"roced\"", -1);
  }
  if (status == 405) mg_response_header_add(connection, "Allow", "GET, HEAD", -1);
  mg_response_header_add(connection, "Content-Length", std::to_string(body.size()).c_str(), -1);
  mg_response_header_send(connection);
  if (!head && !body.empty()) mg_write(connection, body.data(), body.size());
}

// True for HEAD, false for GET; anything else is answered 405 here and gives nullopt.
std::optional<bool> head_or_get(mg_connection* connection, const mg_request_info* request) {
  const std::string_view method = request->request_method;
  if (method == "HEAD") return true;
  if (method == "GET") return false;
  send(connection, 405, "only GET and HEAD\n", false, false);
  return std::nullopt;
}

}  // namespace

bool accepts_gzip(const char* accept_encoding) {
  if (accept_encoding == nullptr) return false;
  std::string_view rest(accept_encoding);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    const size_t semicolon = item.find(';');
    std::string_view coding = item.substr(0, semicolon);
    while (!coding.empty() && coding.back() == ' ') coding.remove_suffix(1);
    if (coding != "gzip" && coding != "*") continue;
    if (semicolon == std::string_view::npos) return true;
    std::string_view params = item.substr(semicolon + 1);
    while (!params.empty() && params.front() == ' ') params.remove_prefix(1);
    // q=0, q=0.0, q=0.000: refused.
    if (params.starts_with("q=0") && params.find_first_not_of("q=0.") == std::string_view::npos) {
      continue;
    }
    return true;
  }
  return false;
}

namespace {

class Deflater {
 public:
  Deflater() {
    // 15 + 16: the zlib window with a gzip header and trailer.
    if (deflateInit2(&stream_, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      throw std::runtime_error("gzip: deflateInit2 failed");
    }
  }
  ~Deflater() { deflateEnd(&stream_); }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  void compress(const std::string& body, std::string& out) {
    deflateReset(&stream_);
    out.resize(deflateBound(&stream_, body.size()));
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
    stream_.avail_in = static_cast<uInt>(body.size());
    stream_.next_out = reinterpret_cast<Bytef*>(out.data());
    stream_.avail_out = static_cast<uInt>(out.size());
    const int result = deflate(&stream_, Z_FINISH);
    out.resize(stream_.total_out);
    if (result != Z_STREAM_END) throw std::runtime_error("gzip: deflate did not finish");
  }

 private:
  z_stream stream_{};
};

}  // namespace

void gzip(const std::string& body, std::string& out) {
  thread_local Deflater deflater;
  deflater.compress(body, out);
}

MetricsHttp::MetricsHttp(const std::string& listening_ports, Render render, Authorize authorize)
    : render_(std::move(render)), authorize_(std::move(authorize)) {
  static const unsigned initialised = mg_init_library(0);
  (void)initialised;
  const char* options[] = {"listening_ports", listening_ports.c_str(), "num_threads", "2", nullptr};
  mg_callbacks callbacks{};
  context_ = mg_start(&callbacks, this, options);
  if (context_ == nullptr) {
    throw std::runtime_error("civetweb could not start on " + listening_ports);
  }
  mg_set_request_handler(context_, "/metrics$", &MetricsHttp::serve, this);
  mg_set_request_handler(context_, "/runbook", &MetricsHttp::serve_runbook, nullptr);
  mg_set_request_handler(context_, "/$", &MetricsHttp::serve_landing_page, nullptr);
  mg_set_request_handler(context_, "/healthz$", &MetricsHttp::serve_health, nullptr);
}

MetricsHttp::~MetricsHttp() {
  if (context_ != nullptr) mg_stop(context_);
}

int MetricsHttp::port() const {
  mg_server_port ports[4];
  const int count = mg_get_server_ports(context_, 4, ports);
  return count > 0 ? ports[0].port : 0;
}

int MetricsHttp::serve(mg_connection* connection, void* self) {
  return static_cast<MetricsHttp*>(self)->serve(connection);
}

// The runbook asks for no credentials even with basic auth: it is the packaged document, and
// whoever follows an alert's link is not the scraper that holds the password.
int MetricsHttp::serve_runbook(mg_connection* connection, void* /*unused*/) {
  const mg_request_info* request = mg_get_request_info(connection);
  const std::optional<bool> head = head_or_get(connection, request);
  if (!head) return 405;
  std::string_view path = request->local_uri != nullptr ? request->local_uri : "";
  constexpr std::string_view kPrefix = "/runbook";
  path.remove_prefix(std::min(path.size(), kPrefix.size()));
  if (path.empty() || path == "/") {
    send(connection, 200, runbook(), false, *head, kTextType);
    return 200;
  }
  const std::optional<std::string_view> section =
      path.front() == '/' ? runbook_section(path.substr(1)) : std::nullopt;
  if (!section) {
    std::string known;
    for (const std::string_view alert : runbook_alerts()) known.append(" ").append(alert);
    send(connection, 404, "no such alert in the runbook; it has:" + known + "\n", false, *head);
    return 404;
  }
  send(connection, 200, *section, false, *head, kTextType);
  return 200;
}

// What someone who opens the address in a browser finds: where the metrics and the runbook are.
// As the runbook, no credentials: it says nothing about the node.
int MetricsHttp::serve_landing_page(mg_connection* connection, void* /*unused*/) {
  const std::optional<bool> head = head_or_get(connection, mg_get_request_info(connection));
  if (!head) return 405;
  static constexpr std::string_view kPage =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>roced</title></head><body>\n"
      "<h1>roced</h1>\n<p>RoCE v2 lossless configuration and telemetry for this node's mlx5 "
      "ports.</p>\n<ul>\n"
      "<li><a href=\"metrics\">metrics</a>: Prometheus metrics (docs/metrics.md)</li>\n"
      "<li><a href=\"runbook\">runbook</a>: what each alert means and what to do</li>\n"
      "<li><a href=\"healthz\">healthz</a>: 200 while this endpoint serves</li>\n"
      "</ul>\n</body></html>\n";
  send(connection, 200, kPage, false, *head, "text/html; charset=utf-8");
  return 200;
}

// A load balancer's or a probe's liveness check of the endpoint itself: "ok" while it serves,
// without credentials and without reading a port (a scrape's cost). Whether the node is lossless
// is `rocectl check`'s question, and the metrics'.
int MetricsHttp::serve_health(mg_connection* connection, void* /*unused*/) {
  const std::optional<bool> head = head_or_get(connection, mg_get_request_info(connection));
  if (!head) return 405;
  send(connection, 200, "ok\n", false, *head, kTextType);
  return 200;
}

bool MetricsHttp::authorized(mg_connection* connection) const {
  const std::string credential = basic_credential(mg_get_header(connection, "Authorization"));
  const size_t colon = credential.find(':');
  if (colon == std::string::npos) return false;
  return authorize_(credential.substr(0, colon), credential.substr(colon + 1));
}

int MetricsHttp::serve(mg_connection* connection) {
  const mg_request_info* request = mg_get_request_info(connection);
  const std::optional<bool> head = head_or_get(connection, request);
  if (!head) return 405;
  if (authorize_ && !authorized(connection)) {
    send(connection, 401, "unauthorized\n", false, *head);
    return 401;
  }
  // Per request thread, kept: their capacity is reused by the next scrape.
  thread_local std::string body;
  thread_local std::string compressed;
  try {
    render_(body);
  } catch (const std::exception& e) {
    send(connection, 500, std::string("cannot render the metrics: ") + e.what() + "\n", false,
         *head);
    return 500;
  }
  const bool gzipped = accepts_gzip(mg_get_header(connection, "Accept-Encoding"));
  if (gzipped) gzip(body, compressed);
  send(connection, 200, gzipped ? compressed : body, gzipped, *head);
  return 200;
}

}  // namespace roced::telemetry
