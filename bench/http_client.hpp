// SPDX-License-Identifier: Apache-2.0
#pragma once
// A minimal HTTP/1.1 client for scraping /metrics in benchmarks: plain TCP to 127.0.0.1, GET,
// keep-alive (as Prometheus scrapes), the whole body read (Content-Length, chunked, or up to the
// close). No TLS, no redirects, no compression: what a bench needs and nothing it does not.

#include <cstdint>
#include <string>
#include <utility>

namespace roced::bench {

struct HttpResponse {
  int status = 0;  // 0: no answer (connection refused, reset, malformed)
  std::string body;
  std::string error;  // why status is 0
};

class HttpClient {
 public:
  HttpClient(std::string host, uint16_t port) : host_(std::move(host)), port_(port) {}
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // GET `path` on the kept-alive connection (opened, or re-opened once if the server closed it).
  HttpResponse get(const std::string& path);

 private:
  bool connect_socket(std::string& error);
  void close_socket();
  // Reads until `buffer_` holds at least `size` bytes; false on EOF or error.
  bool fill(size_t size);
  HttpResponse exchange(const std::string& path, bool& retry);

  std::string host_;
  uint16_t port_;
  int fd_ = -1;
  std::string buffer_;     // received, not yet consumed
  unsigned answered_ = 0;  // responses on this connection
};

// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released).
uint16_t free_local_port();

}  // namespace roced::bench
