// SPDX-License-Identifier: Apache-2.0
#include "os/netlink_socket.hpp"

#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <span>
#include <string>

namespace roced {

uint32_t next_port_id() {
  static std::atomic<uint32_t> sockets_opened{0};
  const uint32_t n = sockets_opened.fetch_add(1);
  return static_cast<uint32_t>(::getpid()) + (n << 22);
}

namespace {

// The largest datagram taken in one call. A netlink answer is one skb the kernel sized to its
// messages (af_netlink.c: a dump's stays under 32 KiB, netlink_dump; a PF's RTM_NEWLINK with a
// hundred VFs is some 40 KiB, rtnetlink.c if_nlmsg_size), roce-sim's are smaller: one recv an
// answer, into memory only touched as far as the answers reach, instead of a peek for the length.
constexpr size_t kLargestDatagram = size_t{1} << 20;

// recv with MSG_TRUNC: the datagram's whole length, even where it did not fit; -1 with errno set.
ssize_t receive_into(int fd, std::span<uint8_t> room, int flags) {
  ssize_t size = 0;
  do {
    size = ::recv(fd, room.data(), room.size(), MSG_TRUNC | flags);
  } while (size < 0 && errno == EINTR);
  return size;
}

}  // namespace

Result<std::vector<uint8_t>> receive_datagram(int fd, std::chrono::milliseconds timeout,
                                              const char* what) {
  thread_local const std::unique_ptr<uint8_t[]> buffer =
      std::make_unique_for_overwrite<uint8_t[]>(kLargestDatagram);
  const std::span<uint8_t> room(buffer.get(), kLargestDatagram);
  // An answer is often queued already (the kernel answers every message of a batch before sendmsg
  // returns): take it without waiting first, and poll only when nothing is there.
  ssize_t size = receive_into(fd, room, MSG_DONTWAIT);
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
    size = receive_into(fd, room, 0);
  }
  if (size < 0) return Error::from_errno(errno, std::string(what) + ": recv");
  if (size == 0) return Error{ECONNRESET, std::string(what) + ": connection closed by peer"};
  if (static_cast<size_t>(size) > room.size()) {
    return Error{EMSGSIZE, std::string(what) + ": an answer of " + std::to_string(size) +
                               " bytes, more than the " + std::to_string(room.size()) +
                               " roced reads at once: dropped"};
  }
  return std::vector<uint8_t>(room.begin(), room.begin() + size);
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
