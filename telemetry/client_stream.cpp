// SPDX-License-Identifier: Apache-2.0
#include "telemetry/client_stream.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>

namespace roced::telemetry {
namespace {

using Step = ClientStream::Step;
using Kind = Step::Kind;

class PlainClientStream final : public ClientStream {
 public:
  explicit PlainClientStream(int fd) : fd_(fd) {}
  bool open(int, std::chrono::steady_clock::time_point) override { return true; }
  Step read(char* bytes, size_t size) override {
    const ssize_t got = ::recv(fd_, bytes, size, 0);
    if (got > 0) return {Kind::moved, static_cast<size_t>(got)};
    if (got == 0) return {Kind::finished};
    return blocked_or_failed(POLLIN);
  }
  Step write(const char* bytes, size_t size) override {
    const ssize_t sent = ::send(fd_, bytes, size, MSG_NOSIGNAL);
    if (sent > 0) return {Kind::moved, static_cast<size_t>(sent)};
    return blocked_or_failed(POLLOUT);
  }
  void close() override { ::shutdown(fd_, SHUT_WR); }

 private:
  static Step blocked_or_failed(short events) {
    // EINTR: nothing moved, and the socket is ready again at once.
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      return {Kind::blocked, 0, events};
    }
    return {Kind::failed};
  }
  const int fd_;
};

class TlsClientStream final : public ClientStream {
 public:
  TlsClientStream(SSL* ssl, int fd) : ssl_(ssl, SSL_free), fd_(fd) {}
  ~TlsClientStream() override {
    ERR_clear_error();  // a failed session leaves reasons queued on this thread
  }

  bool open(int stop_fd, std::chrono::steady_clock::time_point deadline) override {
    for (;;) {
      ERR_clear_error();
      const int result = SSL_accept(ssl_.get());
      if (result == 1) return true;
      const Step step = blocked_or_failed(result);
      if (step.kind != Kind::blocked) return false;  // not TLS, a protocol it may not use
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      std::array<pollfd, 2> fds = {{{stop_fd, POLLIN, 0}, {fd_, step.events, 0}}};
      if (::poll(fds.data(), fds.size(), static_cast<int>(left.count())) < 0 && errno != EINTR) {
        return false;
      }
      if (fds[0].revents != 0) return false;
    }
  }
  Step read(char* bytes, size_t size) override {
    ERR_clear_error();
    const int got = SSL_read(ssl_.get(), bytes, static_cast<int>(size));
    if (got > 0) return {Kind::moved, static_cast<size_t>(got)};
    if (SSL_get_error(ssl_.get(), got) == SSL_ERROR_ZERO_RETURN) return {Kind::finished};
    // Closed without close_notify counts as failed: the request may be cut short.
    return blocked_or_failed(got);
  }
  Step write(const char* bytes, size_t size) override {
    ERR_clear_error();
    const int sent = SSL_write(ssl_.get(), bytes, static_cast<int>(size));
    if (sent > 0) return {Kind::moved, static_cast<size_t>(sent)};
    return blocked_or_failed(sent);
  }
  void close() override { SSL_shutdown(ssl_.get()); }

 private:
  Step blocked_or_failed(int result) const {
    switch (SSL_get_error(ssl_.get(), result)) {
      case SSL_ERROR_WANT_READ:
        return {Kind::blocked, 0, POLLIN};
      case SSL_ERROR_WANT_WRITE:
        return {Kind::blocked, 0, POLLOUT};
      default:
        return {Kind::failed};
    }
  }
  std::unique_ptr<SSL, void (*)(SSL*)> ssl_;
  const int fd_;
};

}  // namespace

std::unique_ptr<ClientStream> plain_client_stream(int fd) {
  return std::make_unique<PlainClientStream>(fd);
}

std::unique_ptr<ClientStream> tls_client_stream(SSL_CTX* context, int fd) {
  SSL* ssl = SSL_new(context);
  if (ssl == nullptr) return nullptr;
  auto stream = std::make_unique<TlsClientStream>(ssl, fd);
  if (SSL_set_fd(ssl, fd) != 1) return nullptr;
  return stream;
}

}  // namespace roced::telemetry
