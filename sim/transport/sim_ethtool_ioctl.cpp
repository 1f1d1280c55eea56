// SPDX-License-Identifier: Apache-2.0
#include "sim/transport/sim_ethtool_ioctl.hpp"

#include <net/if.h>
#include <roce_sim.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "os/local_transports.hpp"
#include "sim/transport/seqpacket.hpp"

namespace roce_sim {

using roced::Error;
using roced::EthtoolCall;
using roced::ok;
using roced::Result;
using roced::UniqueFd;

namespace {

constexpr std::chrono::milliseconds kSimEthtoolTimeout{5000};

// Whether the process can write at `address`, as copy_to_user finds out: from the mapping that
// holds it (/proc/self/maps), so the probe itself touches nothing.
bool writable(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    uintptr_t start = 0;
    uintptr_t end = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %4s", &start, &end, perms) != 3) {
      continue;
    }
    if (at >= start && at < end) return perms[1] == 'w';
  }
  return false;
}

// ethtool_get_strings and ethtool_get_stats copy as many entries as the driver has now, whatever
// count the caller passed: past the caller's buffer when it grew. copy_to_user stops at the first
// page it cannot write and the ioctl fails with EFAULT; memory it can write is overwritten. The
// simulator writes what fits, answers EFAULT at a guard, and refuses to go on where the kernel
// would have corrupted the caller's memory.
Result<void> deliver(std::span<const uint8_t> payload, size_t kernel_len, std::string_view ifname,
                     std::span<uint8_t> buffer) {
  std::memcpy(buffer.data(), payload.data(), std::min(payload.size(), buffer.size()));
  if (kernel_len <= buffer.size()) return ok();
  if (!writable(buffer.data() + buffer.size())) {
    return Error{EFAULT, roced::ethtool_call_context(ifname, buffer) + ": the reply (" +
                             std::to_string(kernel_len) + " bytes) is longer than the buffer (" +
                             std::to_string(buffer.size()) + ")"};
  }
  std::fprintf(stderr,
               "roce-sim: %s: the kernel would write %zu bytes into a buffer of %zu and "
               "overwrite the caller's memory after it\n",
               roced::ethtool_call_context(ifname, buffer).c_str(), kernel_len, buffer.size());
  std::abort();
}

}  // namespace

Result<void> SimEthtoolIoctl::ensure_connected() {
  if (fd_.valid()) return ok();
  const std::string what = "roce-sim " + socket_path_.string();
  Result<UniqueFd> connected = connect_seqpacket(socket_path_);
  if (!connected) return connected.error();
  UniqueFd fd = std::move(connected).value();
  // The reply's deadline, for every recv on this socket.
  timeval timeout{};
  timeout.tv_sec = static_cast<time_t>(kSimEthtoolTimeout.count() / 1000);
  timeout.tv_usec = static_cast<suseconds_t>(kSimEthtoolTimeout.count() % 1000 * 1000);
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) < 0) {
    return Error::from_errno(errno, what + ": SO_RCVTIMEO");
  }
  fd_ = std::move(fd);
  return ok();
}

Result<void> encode_sim_ethtool_request(std::string_view ifname, std::span<uint8_t> buffer,
                                        size_t in_len, std::vector<uint8_t>& out) {
  if (ifname.size() >= IFNAMSIZ) {
    return Error{EINVAL, std::string(ifname) + ": interface name too long"};
  }
  if (in_len > buffer.size() || buffer.size() < sizeof(uint32_t)) {
    return Error{EINVAL, std::string(ifname) + ": ethtool request larger than its buffer"};
  }
  roce_sim_ethtool_req header{};
  std::memcpy(header.ifname, ifname.data(), ifname.size());
  std::memcpy(&header.cmd, buffer.data(), sizeof(header.cmd));
  header.len = static_cast<uint32_t>(in_len);
  out.resize(sizeof(header) + in_len);
  std::memcpy(out.data(), &header, sizeof(header));
  std::memcpy(out.data() + sizeof(header), buffer.data(), in_len);
  return ok();
}

Result<void> SimEthtoolIoctl::send_request(std::string_view ifname, std::span<uint8_t> buffer,
                                           size_t in_len) {
  if (auto encoded = encode_sim_ethtool_request(ifname, buffer, in_len, request_); !encoded)
    return encoded;
  if (auto connected = ensure_connected(); !connected) return connected.error();
  ssize_t sent = 0;
  do {
    sent = ::send(fd_.get(), request_.data(), request_.size(), MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) {
    const int err = errno;
    fd_.reset();  // reconnect next time (the server may have restarted)
    return Error::from_errno(err,
                             roced::ethtool_call_context(ifname, buffer) + ": send to roce-sim");
  }
  return ok();
}

Result<void> decode_sim_ethtool_reply(std::span<const uint8_t> reply, std::string_view ifname,
                                      std::span<uint8_t> buffer) {
  const auto context = [&] { return roced::ethtool_call_context(ifname, buffer); };
  roce_sim_ethtool_rep reply_header{};
  if (reply.size() < sizeof(reply_header)) {
    return Error{EBADMSG, context() + ": truncated reply from roce-sim"};
  }
  std::memcpy(&reply_header, reply.data(), sizeof(reply_header));
  if (reply_header.error < 0) {
    // An errno is 1..MAX_ERRNO (4095); anything else is a broken reply (and -INT_MIN overflows).
    const int err = reply_header.error >= -4095 ? -reply_header.error : EPROTO;
    return Error::from_errno(err, context());
  }
  // The datagram may be cut at the receiver's room; the header still says what the kernel wrote.
  const size_t received = std::min<size_t>(reply_header.len, reply.size() - sizeof(reply_header));
  return deliver(reply.subspan(sizeof(reply_header), received), reply_header.len, ifname, buffer);
}

Result<void> SimEthtoolIoctl::decode_reply(std::span<const uint8_t> reply, std::string_view ifname,
                                           std::span<uint8_t> buffer) {
  // A reply too short for its header: the connection is in doubt, reconnect next time.
  if (reply.size() < sizeof(roce_sim_ethtool_rep)) fd_.reset();
  return decode_sim_ethtool_reply(reply, ifname, buffer);
}

Error SimEthtoolIoctl::receive_failed(int err, std::string_view ifname, std::span<uint8_t> buffer) {
  fd_.reset();  // a late reply must not be read as the answer to the next call
  const std::string context = roced::ethtool_call_context(ifname, buffer);
  if (err == EAGAIN || err == EWOULDBLOCK) {
    return Error{ETIMEDOUT, context + ": no answer from roce-sim"};
  }
  return Error::from_errno(err, context + ": roce-sim ethtool");
}

Result<void> SimEthtoolIoctl::receive_reply(std::string_view ifname, std::span<uint8_t> buffer) {
  // The reply is the header and what the kernel would write back into `buffer`; anything longer
  // would not fit there either (SOCK_SEQPACKET drops the excess).
  reply_.resize(sizeof(roce_sim_ethtool_rep) + buffer.size());
  ssize_t got = 0;
  do {
    got = ::recv(fd_.get(), reply_.data(), reply_.size(), 0);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return receive_failed(got == 0 ? ECONNRESET : errno, ifname, buffer);
  return decode_reply({reply_.data(), static_cast<size_t>(got)}, ifname, buffer);
}

Result<void> SimEthtoolIoctl::call(const std::string& ifname, std::span<uint8_t> buffer,
                                   size_t in_len) {
  std::lock_guard lock(mutex_);
  if (auto sent = send_request(ifname, buffer, in_len); !sent) return sent.error();
  return receive_reply(ifname, buffer);
}

void SimEthtoolIoctl::call_batch(std::span<EthtoolCall> calls) {
  std::lock_guard lock(mutex_);
  // The server answers one connection's requests in order: every request goes out in one
  // sendmmsg, then the replies are read.
  if (batch_.size() < calls.size()) batch_.resize(calls.size());
  std::vector<mmsghdr> messages;
  std::vector<iovec> vectors(calls.size());
  std::vector<size_t> sent_index;
  for (size_t i = 0; i < calls.size(); ++i) {
    EthtoolCall& one = calls[i];
    one.result = encode_sim_ethtool_request(one.ifname, one.buffer, one.in_len, batch_[i]);
    if (!one.result) continue;
    vectors[i] = iovec{batch_[i].data(), batch_[i].size()};
    mmsghdr message{};
    message.msg_hdr.msg_iov = &vectors[i];
    message.msg_hdr.msg_iovlen = 1;
    messages.push_back(message);
    sent_index.push_back(i);
  }
  size_t sent = 0;
  if (auto connected = ensure_connected(); !connected) {
    for (const size_t i : sent_index) calls[i].result = connected.error();
    return;
  }
  const auto issued = std::chrono::steady_clock::now();
  while (sent < messages.size()) {
    const int n = ::sendmmsg(fd_.get(), messages.data() + sent,
                             static_cast<unsigned>(messages.size() - sent), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const Error error = Error::from_errno(errno, "roce-sim ethtool: sendmmsg");
      fd_.reset();
      for (size_t k = sent; k < sent_index.size(); ++k) calls[sent_index[k]].result = error;
      break;
    }
    sent += static_cast<size_t>(n);
  }
  for (size_t k = 0; k < sent; ++k) {
    EthtoolCall& one = calls[sent_index[k]];
    one.issued = issued;
    one.result = fd_.valid() ? receive_reply(one.ifname, one.buffer)
                             : Result<void>(Error{ECONNRESET, "roce-sim ethtool: connection lost"});
    one.answered = std::chrono::steady_clock::now();
  }
}

}  // namespace roce_sim
