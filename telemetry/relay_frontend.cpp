// SPDX-License-Identifier: Apache-2.0
#include "telemetry/relay_frontend.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "telemetry/client_stream.hpp"

namespace roced::telemetry {

struct RelayFrontend::Connection {
  std::atomic<bool> done{false};
  std::thread thread;
};

namespace {

using Clock = std::chrono::steady_clock;

TlsContext no_tls() { return TlsContext(nullptr, SSL_CTX_free); }

std::string address_text(const ListenAddress& listen) {
  const std::string host = listen.host.empty() ? "0.0.0.0" : listen.host;
  return (listen.ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(listen.port);
}

UniqueFd bind_listener(const ListenAddress& listen, bool tls, int& port) {
  const auto fail = [&](const char* step) {
    throw std::runtime_error("cannot listen on " + address_text(listen) + (tls ? " (TLS)" : "") +
                             ": " + step + ": " + std::strerror(errno));
  };
  const int family = listen.ipv6 ? AF_INET6 : AF_INET;
  UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) fail("socket");
  const int on = 1;
  // A restarted roced binds again at once, without waiting out the old connections' TIME_WAIT.
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_storage storage{};
  socklen_t length = 0;
  if (listen.ipv6) {
    // [::]:PORT means IPv6 only, as the address says; IPv4 is not taken along.
    ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    auto* address = reinterpret_cast<sockaddr_in6*>(&storage);
    address->sin6_family = AF_INET6;
    address->sin6_port = htons(static_cast<uint16_t>(listen.port));
    if (::inet_pton(AF_INET6, listen.host.c_str(), &address->sin6_addr) != 1) {
      throw std::runtime_error("cannot listen on " + address_text(listen) +
                               ": not an IPv6 address");
    }
    length = sizeof(sockaddr_in6);
  } else {
    auto* address = reinterpret_cast<sockaddr_in*>(&storage);
    address->sin_family = AF_INET;
    address->sin_port = htons(static_cast<uint16_t>(listen.port));
    address->sin_addr.s_addr = htonl(INADDR_ANY);
    if (!listen.host.empty() &&
        ::inet_pton(AF_INET, listen.host.c_str(), &address->sin_addr) != 1) {
      throw std::runtime_error("cannot listen on " + address_text(listen) +
                               ": not an IPv4 address");
    }
    length = sizeof(sockaddr_in);
  }
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&storage), length) != 0) fail("bind");
  if (::listen(fd.get(), SOMAXCONN) != 0) fail("listen");
  length = sizeof storage;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&storage), &length) != 0) {
    fail("getsockname");
  }
  port = ntohs(listen.ipv6 ? reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port
                           : reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
  return fd;
}

}  // namespace

std::string listen_error(const ListenAddress& listen) {
  try {
    int port = 0;
    bind_listener(listen, false, port);
    return {};
  } catch (const std::runtime_error& e) {
    return e.what();
  }
}

namespace {

UniqueFd make_eventfd() {
  UniqueFd fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!fd.valid()) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
  return fd;
}

void signal_eventfd(int fd) {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(fd, &one, sizeof one);
}

int milliseconds_until(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

}  // namespace

RelayFrontend::RelayFrontend(const ListenAddress& listen, const std::optional<std::string>& tls_pem,
                             int backend_port, Limits limits)
    : context_(tls_pem ? load_tls_context(*tls_pem) : no_tls()),
      backend_port_(backend_port),
      limits_(limits),
      listener_(bind_listener(listen, tls_pem.has_value(), port_)),
      stop_(make_eventfd()),
      finished_(make_eventfd()) {
  acceptor_ = std::thread([this] { accept_loop(); });
}

RelayFrontend::~RelayFrontend() {
  signal_eventfd(stop_.get());
  acceptor_.join();  // joins every connection thread before it returns
}

void RelayFrontend::accept_loop() {
  for (;;) {
    reap_finished_connections();
    // At the limit the listener is not polled: new clients wait in the backlog for a free slot.
    const bool room = connections_.size() < limits_.max_connections;
    std::array<pollfd, 3> fds = {{{stop_.get(), POLLIN, 0},
                                  {finished_.get(), POLLIN, 0},
                                  {room ? listener_.get() : -1, POLLIN, 0}}};
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) break;
    if (fds[1].revents != 0) {
      uint64_t count = 0;
      [[maybe_unused]] const ssize_t got = ::read(finished_.get(), &count, sizeof count);
    }
    if (fds[2].revents == 0) continue;
    UniqueFd client(::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (client.valid()) {
      start_connection(std::move(client));
    } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      // Out of descriptors or memory: the listener stays readable, so back off instead of
      // spinning until a connection ends.
      pollfd stop = {stop_.get(), POLLIN, 0};
      ::poll(&stop, 1, 100);
    }
  }
  // Every connection thread polls stop_ too and ends promptly.
  for (auto& connection : connections_) connection.thread.join();
  connections_.clear();
}

void RelayFrontend::start_connection(UniqueFd client) {
  Connection& connection = connections_.emplace_back();
  try {
    connection.thread = std::thread([this, &connection, fd = std::move(client)]() mutable {
      serve(std::move(fd));
      connection.done = true;
      signal_eventfd(finished_.get());
    });
  } catch (const std::system_error&) {
    connections_.pop_back();  // no thread to be had: the client is dropped (closed by ~UniqueFd)
  }
}

void RelayFrontend::reap_finished_connections() {
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (it->done) {
      it->thread.join();
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
}

void RelayFrontend::serve(UniqueFd client) {
  // OpenSSL writes to the socket with write(): a client gone mid-response must give EPIPE here,
  // not a SIGPIPE that ends roced. Blocked, the signal stays pending on this thread and dies
  // with it.
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);

  const auto stream =
      tls() ? tls_client_stream(context_.get(), client.get()) : plain_client_stream(client.get());
  if (stream && stream->open(stop_.get(), Clock::now() + limits_.handshake_timeout)) {
    relay(*stream, client.get());
  }
}

UniqueFd RelayFrontend::connect_backend() {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return {};
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(backend_port_));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) return fd;
  if (errno != EINPROGRESS) return {};
  std::array<pollfd, 2> fds = {{{stop_.get(), POLLIN, 0}, {fd.get(), POLLOUT, 0}}};
  const auto deadline = Clock::now() + limits_.handshake_timeout;
  for (;;) {
    const int timeout = milliseconds_until(deadline);
    const int ready = ::poll(fds.data(), fds.size(), timeout);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0 || fds[0].revents != 0) return {};
    break;
  }
  int error = 0;
  socklen_t length = sizeof error;
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) return {};
  return fd;
}

// Moves bytes both ways until either side is done. Everything non-blocking: each pass tries every
// transfer that has data or room, and only when none moves does it wait in poll() for what the
// blocked ones asked for (TLS may want to write to read, or read to write).
void RelayFrontend::relay(ClientStream& stream, int client) {
  using Kind = ClientStream::Step::Kind;
  struct Buffer {
    std::array<char, 16384> bytes;
    size_t begin = 0;
    size_t end = 0;
    bool empty() const { return begin == end; }
  };
  auto up = std::make_unique<Buffer>();    // client -> endpoint
  auto down = std::make_unique<Buffer>();  // endpoint -> client
  UniqueFd backend;  // connected when the first request bytes arrive, not at the handshake
  bool client_done = false;
  bool backend_done = false;
  bool backend_write_shut = false;

  for (;;) {
    short client_events = 0;
    short backend_events = 0;
    for (bool moved = true; moved;) {
      moved = false;
      client_events = 0;
      backend_events = 0;

      if (!client_done && up->empty()) {
        const auto step = stream.read(up->bytes.data(), up->bytes.size());
        if (step.kind == Kind::moved) {
          up->begin = 0;
          up->end = step.bytes;
          moved = true;
        } else if (step.kind == Kind::blocked) {
          client_events |= step.events;
        } else if (step.kind == Kind::finished) {
          client_done = true;
          moved = true;
        } else {
          return;  // nobody left to answer
        }
      }

      if (!up->empty()) {
        if (!backend.valid()) {
          backend = connect_backend();
          if (!backend.valid()) return;
        }
        const ssize_t sent =
            ::send(backend.get(), up->bytes.data() + up->begin, up->end - up->begin, MSG_NOSIGNAL);
        if (sent > 0) {
          up->begin += static_cast<size_t>(sent);
          moved = true;
        } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
          backend_events |= POLLOUT;
        } else if (sent < 0 && errno != EINTR) {
          return;
        }
      }

      if (backend.valid() && !backend_done && down->empty()) {
        const ssize_t got = ::recv(backend.get(), down->bytes.data(), down->bytes.size(), 0);
        if (got > 0) {
          down->begin = 0;
          down->end = static_cast<size_t>(got);
          moved = true;
        } else if (got == 0) {
          backend_done = true;
          moved = true;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
          backend_events |= POLLIN;
        } else if (errno != EINTR) {
          return;
        }
      }

      if (!down->empty()) {
        const auto step = stream.write(down->bytes.data() + down->begin, down->end - down->begin);
        if (step.kind == Kind::moved) {
          down->begin += step.bytes;
          moved = true;
        } else if (step.kind == Kind::blocked) {
          client_events |= step.events;
        } else {
          return;
        }
      }

      if (backend_done && down->empty()) {
        stream.close();  // so the client sees a complete response
        return;
      }
      if (client_done && up->empty()) {
        if (!backend.valid()) return;  // closed without asking anything
        if (!backend_write_shut) {
          ::shutdown(backend.get(), SHUT_WR);
          backend_write_shut = true;
        }
      }
    }

    // poll() reports hang-ups even for a descriptor asked nothing: leave those out (fd -1), or a
    // closed peer would spin this loop.
    std::array<pollfd, 3> fds = {{{stop_.get(), POLLIN, 0},
                                  {client_events != 0 ? client : -1, client_events, 0},
                                  {backend_events != 0 ? backend.get() : -1, backend_events, 0}}};
    const int ready =
        ::poll(fds.data(), fds.size(), static_cast<int>(limits_.idle_timeout.count()));
    if (ready < 0 && errno != EINTR) return;
    if (ready == 0 || fds[0].revents != 0) return;  // idle too long, or roced stops
  }
}

}  // namespace roced::telemetry
