// SPDX-License-Identifier: Apache-2.0
#pragma once
// A listener in front of the metrics endpoint that relays the bytes of each connection to the
// plain HTTP endpoint on 127.0.0.1, terminating TLS first when given a certificate. Two gaps of
// Debian bookworm's civetweb 1.15 (under prometheus-cpp) make roced need it:
//  - TLS: civetweb resolves SSL_get_peer_certificate, which OpenSSL 3 no longer exports, and
//    calls the NULL pointer on the first HTTPS connection;
//  - IPv6: it is built without USE_IPV6 (mg_check_feature(8) is 0) and cannot listen on
//    "[::1]:9879" at all, so plain HTTP on an IPv6 address is relayed too, without TLS.
//
// One accept thread; each connection gets its own short-lived thread (at most
// Limits::max_connections at once, the rest wait in the listen backlog), so a client that never
// completes its handshake delays nobody else. HTTP itself, basic auth included, stays with the
// endpoint behind: the relay does not look at the bytes.

#include <chrono>
#include <cstddef>
#include <list>
#include <optional>
#include <string>
#include <thread>

#include "os/unique_fd.hpp"
#include "telemetry/exporter_settings.hpp"
#include "telemetry/tls_context.hpp"

namespace roced::telemetry {

// Why `listen` cannot be listened on, as the relay would say it ("cannot listen on
// 127.0.0.1:9879: bind: Address already in use"); empty when it can be now. For the plain
// endpoint, whose civetweb reports a failed bind without its errno.
std::string listen_error(const ListenAddress& listen);

class ClientStream;

class RelayFrontend {
 public:
  struct Limits {
    // With TLS, a client has this long to complete its handshake, then it is dropped.
    std::chrono::milliseconds handshake_timeout{std::chrono::seconds(10)};
    // A connection with no byte either way for this long is closed.
    std::chrono::milliseconds idle_timeout{std::chrono::seconds(60)};
    size_t max_connections = 16;
  };

  // Listens on `listen` (port 0: any free port) and relays to 127.0.0.1:`backend_port`; with
  // `tls_pem` (certificate chain and private key in one PEM file) it serves HTTPS, else plain
  // bytes. Throws std::runtime_error naming the problem: a file that does not load, a key that
  // does not match the certificate, an address that cannot be bound.
  RelayFrontend(const ListenAddress& listen, const std::optional<std::string>& tls_pem,
                int backend_port, Limits limits);
  RelayFrontend(const ListenAddress& listen, const std::optional<std::string>& tls_pem,
                int backend_port)
      : RelayFrontend(listen, tls_pem, backend_port, Limits{}) {}
  // Stops accepting, wakes every connection thread, joins them all and closes every socket.
  ~RelayFrontend();
  RelayFrontend(const RelayFrontend&) = delete;
  RelayFrontend& operator=(const RelayFrontend&) = delete;

  // The port actually bound.
  int port() const { return port_; }
  bool tls() const { return context_ != nullptr; }

 private:
  struct Connection;
  void accept_loop();
  void start_connection(UniqueFd client);
  void reap_finished_connections();
  void serve(UniqueFd client);
  UniqueFd connect_backend();
  void relay(ClientStream& stream, int client);

  TlsContext context_;  // null without TLS
  const int backend_port_;
  const Limits limits_;
  int port_ = 0;  // before listener_: bind_listener() sets it
  UniqueFd listener_;
  // Written once by the destructor and never read: stays readable, so every poll() wakes.
  UniqueFd stop_;
  // Written by a connection thread when it ends, so the accept thread joins it and frees its slot.
  UniqueFd finished_;
  std::list<Connection> connections_;  // the accept thread's alone
  std::thread acceptor_;
};

}  // namespace roced::telemetry
