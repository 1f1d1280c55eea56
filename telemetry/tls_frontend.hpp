#pragma once
// HTTPS in front of the metrics endpoint: terminates TLS with OpenSSL and relays the bytes of each
// connection to the plain HTTP endpoint on loopback. Debian bookworm's civetweb 1.15 cannot do TLS
// itself with OpenSSL 3: it resolves SSL_get_peer_certificate, which OpenSSL 3 no longer exports,
// and calls the NULL pointer on the first HTTPS connection.
//
// One accept thread; each connection gets its own short-lived thread (at most
// Limits::max_connections at once, the rest wait in the listen backlog), so a client that never
// completes its handshake delays nobody else. HTTP itself, basic auth included, stays with the
// endpoint behind: the relay does not look at the bytes.

#include <openssl/types.h>

#include <chrono>
#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <thread>

#include "daemon/config/config.hpp"
#include "netlink/unique_fd.hpp"

namespace roced::telemetry {

class TlsFrontend {
 public:
  struct Limits {
    // A client has this long to complete its handshake, then it is dropped.
    std::chrono::milliseconds handshake_timeout{std::chrono::seconds(10)};
    // A connection with no byte either way for this long is closed.
    std::chrono::milliseconds idle_timeout{std::chrono::seconds(60)};
    size_t max_connections = 16;
  };

  // Loads `pem_path` (certificate chain and private key in one PEM file), listens on `listen`
  // (port 0: any free port) and relays to 127.0.0.1:`backend_port`. Throws std::runtime_error
  // naming the problem: a file that does not load, a key that does not match the certificate,
  // an address that cannot be bound.
  TlsFrontend(const config::ListenAddress& listen, const std::string& pem_path, int backend_port,
              Limits limits);
  TlsFrontend(const config::ListenAddress& listen, const std::string& pem_path, int backend_port)
      : TlsFrontend(listen, pem_path, backend_port, Limits{}) {}
  // Stops accepting, wakes every connection thread, joins them all and closes every socket.
  ~TlsFrontend();
  TlsFrontend(const TlsFrontend&) = delete;
  TlsFrontend& operator=(const TlsFrontend&) = delete;

  // The port actually bound.
  int port() const { return port_; }

 private:
  struct Connection;
  void accept_loop();
  void start_connection(UniqueFd client);
  void reap_finished_connections();
  void serve(UniqueFd client);
  bool handshake(SSL* ssl, int client);
  UniqueFd connect_backend();
  void relay(SSL* ssl, int client);

  std::unique_ptr<SSL_CTX, void (*)(SSL_CTX*)> context_;
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
