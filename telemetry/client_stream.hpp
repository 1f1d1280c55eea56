// SPDX-License-Identifier: Apache-2.0
#pragma once
// The client side of one relayed metrics connection (relay_frontend.hpp), as the relay sees it:
// bytes in and bytes out over a non-blocking socket, either as they come (plain HTTP) or through
// TLS (OpenSSL), which may need to write in order to read and the other way round.

#include <openssl/types.h>

#include <chrono>
#include <cstddef>
#include <memory>

namespace roced::telemetry {

class ClientStream {
 public:
  struct Step {
    enum class Kind {
      moved,     // `bytes` bytes were read or written
      blocked,   // nothing moves until the socket is ready for `events` (POLLIN/POLLOUT)
      finished,  // read only: the client sends no more (EOF, TLS close_notify)
      failed,    // reset, protocol error: nobody left to answer
    };
    Kind kind;
    size_t bytes = 0;
    short events = 0;
  };

  virtual ~ClientStream() = default;
  // What comes before any byte of HTTP (the TLS handshake). False when the client fails it, does
  // not complete it by `deadline`, or `stop_fd` becomes readable first.
  virtual bool open(int stop_fd, std::chrono::steady_clock::time_point deadline) = 0;
  virtual Step read(char* bytes, size_t size) = 0;
  virtual Step write(const char* bytes, size_t size) = 0;
  // The response is complete: tell the client so (TLS close_notify); best effort.
  virtual void close() = 0;
};

// Neither owns `fd`.
std::unique_ptr<ClientStream> plain_client_stream(int fd);
// nullptr when OpenSSL cannot make a session.
std::unique_ptr<ClientStream> tls_client_stream(SSL_CTX* context, int fd);

}  // namespace roced::telemetry
