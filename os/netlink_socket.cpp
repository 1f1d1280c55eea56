// SPDX-License-Identifier: Apache-2.0
#include "os/netlink_socket.hpp"

#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace roced {

uint32_t next_port_id() {
  static std::atomic<uint32_t> sockets_opened{0};
  const uint32_t n = sockets_opened.fetch_add(1);
  return static_cast<uint32_t>(::getpid()) + (n << 22);
}

namespace {

// The length of the next datagram without taking it (MSG_TRUNC: the whole length, not the 0 bytes
// asked for), or -1 with errno set.
ssize_t peek_length(int fd, int flags) {
  ssize_t size = 0;
  do {
    size = ::recv(fd, nullptr, 0, MSG_PEEK | MSG_TRUNC | flags);
  } while (size < 0 && errno == EINTR);
  return size;
}

}  // namespace

Result<std::vector<uint8_t>> receive_datagram(int fd, std::chrono::milliseconds timeout,
                                              const char* what) {
  // An answer is often queued already (the kernel answers every message of a batch before sendmsg
  // returns): ask without waiting first, and poll only when nothing is there.
  ssize_t size = peek_length(fd, MSG_DONTWAIT);
  if (size < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    pollfd pfd{fd, POLLIN, 0};
    int ready = 0;
    do {
      ready = ::poll(&pfd, 1, static_cast<int>(timeout.count()));
    } while (ready < 0 && errno == EINTR);
    if (ready < 0) return Error::from_errno(errno, std::string(what) + ": poll");
    if (ready == 0) return std::vector<uint8_t>{};
    if ((pfd.revents & POLLIN) == 0 && (pfd.revents & (POLLHUP | POLLERR)) != 0) {
      return Error{ECONNRESET, std::string(what) + ": connection closed by peer"};
    }
    size = peek_length(fd, 0);
  }
  if (size < 0) return Error::from_errno(errno, std::string(what) + ": recv");
  if (size == 0) return Error{ECONNRESET, std::string(what) + ": connection closed by peer"};

  std::vector<uint8_t> datagram(static_cast<size_t>(size));
  ssize_t got = 0;
  do {
    got = ::recv(fd, datagram.data(), datagram.size(), 0);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return Error::from_errno(errno, std::string(what) + ": recv");
  datagram.resize(static_cast<size_t>(got));
  return datagram;
}

Result<void> send_datagram(int fd, std::span<const uint8_t> datagram, const char* what) {
  ssize_t sent = 0;
  do {
    sent = ::send(fd, datagram.data(), datagram.size(), MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) return Error::from_errno(errno, std::string(what) + ": send");
  if (static_cast<size_t>(sent) != datagram.size()) {
    return Error{EMSGSIZE, std::string(what) + ": short send"};
  }
  return ok();
}

Result<std::unique_ptr<NetlinkSocket>> KernelNetlinkSocket::open(int protocol) {
  NlSockPtr sock(nl_socket_alloc());
  if (!sock) return Error{ENOMEM, "netlink: cannot allocate a socket"};
  // libnl picks the port id (pid + (n << 22)) and retries on EADDRINUSE in nl_connect.
  if (int err = nl_connect(sock.get(), protocol); err < 0) {
    return Error{-err == NLE_PROTO_MISMATCH ? EPROTONOSUPPORT : EIO,
                 std::string("netlink: cannot open a ") +
                     (protocol == NETLINK_RDMA      ? "NETLINK_RDMA"
                      : protocol == NETLINK_GENERIC ? "NETLINK_GENERIC"
                                                    : "NETLINK_ROUTE") +
                     " socket: " + nl_geterror(err)};
  }
  // Extended ACKs carry the kernel's reason ("MTU greater than device maximum") with an error.
  const int on = 1;
  ::setsockopt(nl_socket_get_fd(sock.get()), SOL_NETLINK, NETLINK_EXT_ACK, &on, sizeof(on));
  return std::unique_ptr<NetlinkSocket>(new KernelNetlinkSocket(std::move(sock)));
}

uint32_t KernelNetlinkSocket::port_id() const { return nl_socket_get_local_port(sock_.get()); }

// The socket is bound, not connected: a send without an address goes to the kernel (port 0).
Result<void> KernelNetlinkSocket::send(std::span<const uint8_t> datagram) {
  return send_datagram(fd(), datagram, "netlink");
}

Result<std::vector<uint8_t>> KernelNetlinkSocket::receive(std::chrono::milliseconds timeout) {
  return receive_datagram(fd(), timeout, "netlink");
}

Result<void> KernelNetlinkSocket::join_group(uint32_t group) {
  if (::setsockopt(fd(), SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0) {
    return Error::from_errno(errno, "netlink: join group " + std::to_string(group));
  }
  return ok();
}

int KernelNetlinkSocket::fd() const { return nl_socket_get_fd(sock_.get()); }

}  // namespace roced
