// SPDX-License-Identifier: Apache-2.0
#include "netlink/transport.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <roce_sim.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "netlink/socket.hpp"

namespace roced {

namespace {

constexpr std::chrono::milliseconds kSimEthtoolTimeout{5000};

std::string ethtool_context(const std::string& ifname, std::span<uint8_t> buffer) {
  uint32_t cmd = 0;
  if (buffer.size() >= sizeof(cmd)) std::memcpy(&cmd, buffer.data(), sizeof(cmd));
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%x", cmd);
  return ifname + ": ethtool command " + hex;
}

}  // namespace

// ---- ethtool ioctl, any ----

void EthtoolIoctl::call_batch(std::span<EthtoolCall> calls) {
  for (EthtoolCall& one : calls) {
    one.issued = std::chrono::steady_clock::now();
    one.result = call(std::string(one.ifname), one.buffer, one.in_len);
    one.answered = std::chrono::steady_clock::now();
  }
}

// ---- ethtool ioctl, kernel ----

Result<void> KernelEthtoolIoctl::call(const std::string& ifname, std::span<uint8_t> buffer,
                                      size_t /*in_len: the kernel reads what it needs*/) {
  if (ifname.size() >= IFNAMSIZ) return Error{EINVAL, ifname + ": interface name too long"};
  std::lock_guard lock(mutex_);
  if (!fd_.valid()) {
    fd_.reset(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd_.valid()) return Error::from_errno(errno, "ethtool: socket");
  }
  ifreq request{};
  std::memcpy(request.ifr_name, ifname.c_str(), ifname.size() + 1);
  request.ifr_data = reinterpret_cast<char*>(buffer.data());
  if (::ioctl(fd_.get(), SIOCETHTOOL, &request) < 0) {
    return Error::from_errno(errno, ethtool_context(ifname, buffer));
  }
  return ok();
}

// ---- ethtool ioctl, roce-sim ----

Result<void> SimEthtoolIoctl::ensure_connected() {
  if (fd_.valid()) return ok();
  const std::string what = "roce-sim " + socket_path_.string();
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return Error::from_errno(errno, what + ": socket");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = socket_path_.string();
  if (path.size() >= sizeof(addr.sun_path)) return Error{ENAMETOOLONG, what + ": path too long"};
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) < 0) {
    return Error::from_errno(errno, what + ": connect");
  }
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

Result<void> SimEthtoolIoctl::encode_request(std::string_view ifname, std::span<uint8_t> buffer,
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
  if (auto encoded = encode_request(ifname, buffer, in_len, request_); !encoded) return encoded;
  if (auto connected = ensure_connected(); !connected) return connected.error();
  ssize_t sent = 0;
  do {
    sent = ::send(fd_.get(), request_.data(), request_.size(), MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) {
    const int err = errno;
    fd_.reset();  // reconnect next time (the server may have restarted)
    return Error::from_errno(err,
                             ethtool_context(std::string(ifname), buffer) + ": send to roce-sim");
  }
  return ok();
}

Result<void> decode_sim_ethtool_reply(std::span<const uint8_t> reply, std::string_view ifname,
                                      std::span<uint8_t> buffer) {
  const auto context = [&] { return ethtool_context(std::string(ifname), buffer); };
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
  const size_t payload =
      std::min<size_t>({reply_header.len, reply.size() - sizeof(reply_header), buffer.size()});
  std::memcpy(buffer.data(), reply.data() + sizeof(reply_header), payload);
  return ok();
}

Result<void> SimEthtoolIoctl::decode_reply(std::span<const uint8_t> reply, std::string_view ifname,
                                           std::span<uint8_t> buffer) {
  // A reply too short for its header: the connection is in doubt, reconnect next time.
  if (reply.size() < sizeof(roce_sim_ethtool_rep)) fd_.reset();
  return decode_sim_ethtool_reply(reply, ifname, buffer);
}

Error SimEthtoolIoctl::receive_failed(int err, std::string_view ifname, std::span<uint8_t> buffer) {
  fd_.reset();  // a late reply must not be read as the answer to the next call
  const std::string context = ethtool_context(std::string(ifname), buffer);
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
    one.result = encode_request(one.ifname, one.buffer, one.in_len, batch_[i]);
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

// ---- files ----

MappedFileTree::MappedFileTree(std::vector<Mapping> mappings, std::filesystem::path fallback_root)
    : mappings_(std::move(mappings)), fallback_root_(std::move(fallback_root)) {
  for (auto& mapping : mappings_) mapping.real_prefix = mapping.real_prefix.lexically_normal();
  std::sort(mappings_.begin(), mappings_.end(), [](const Mapping& a, const Mapping& b) {
    return a.real_prefix.string().size() > b.real_prefix.string().size();
  });
}

namespace {

// An absolute path without ".", ".." or empty components: its string is already normal, so the
// prefix can be matched as text (std::filesystem's lexical functions cost microseconds a call,
// and a scrape resolves hundreds of counter paths).
bool is_plain_absolute(const std::string& path) {
  if (path.empty() || path.front() != '/') return false;
  if (path.find("//") != std::string::npos || path.find("/./") != std::string::npos ||
      path.find("/../") != std::string::npos) {
    return false;
  }
  return !path.ends_with("/.") && !path.ends_with("/..") &&
         (path.size() == 1 || path.back() != '/');
}

}  // namespace

std::filesystem::path MappedFileTree::resolve(const std::filesystem::path& real_path) const {
  if (const std::string& text = real_path.native(); is_plain_absolute(text)) {
    for (const auto& mapping : mappings_) {
      const std::string& prefix = mapping.real_prefix.native();
      if (text == prefix) return mapping.target;
      if (text.size() > prefix.size() && text.compare(0, prefix.size(), prefix) == 0 &&
          (text[prefix.size()] == '/' || prefix == "/")) {
        return mapping.target.native() + (prefix == "/" ? text : text.substr(prefix.size()));
      }
    }
    return fallback_root_.native() + text;
  }
  const std::filesystem::path normal = real_path.lexically_normal();
  for (const auto& mapping : mappings_) {
    const std::filesystem::path rest = normal.lexically_relative(mapping.real_prefix);
    if (rest.empty() || *rest.begin() == "..") continue;
    return rest == "." ? mapping.target : mapping.target / rest;
  }
  return fallback_root_ / normal.relative_path();
}

Result<std::string> MappedFileTree::read(const std::filesystem::path& real_path) const {
  const std::string context = "read " + real_path.string();
  UniqueFd fd(::open(resolve(real_path).c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno(errno, context);
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t got = ::read(fd.get(), chunk, sizeof(chunk));
    if (got < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno(errno, context);
    }
    if (got == 0) break;
    text.append(chunk, static_cast<size_t>(got));
  }
  return text;
}

// Like echo > attribute: no O_CREAT (a missing sysfs attribute is ENOENT), one write() so the
// kernel's store() sees the whole value and its error comes back.
Result<void> MappedFileTree::write(const std::filesystem::path& real_path,
                                   const std::string& text) {
  const std::string context = "write " + real_path.string();
  UniqueFd fd(::open(resolve(real_path).c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (!fd.valid()) return Error::from_errno(errno, context);
  ssize_t written = 0;
  do {
    written = ::write(fd.get(), text.data(), text.size());
  } while (written < 0 && errno == EINTR);
  if (written < 0) return Error::from_errno(errno, context);
  if (static_cast<size_t>(written) != text.size()) return Error{EIO, context + ": short write"};
  return ok();
}

Result<std::vector<std::string>> MappedFileTree::list(
    const std::filesystem::path& real_path) const {
  const std::string context = "list " + real_path.string();
  DIR* dir = ::opendir(resolve(real_path).c_str());
  if (dir == nullptr) return Error::from_errno(errno, context);
  std::unique_ptr<DIR, int (*)(DIR*)> closer(dir, &::closedir);
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
    errno = 0;
  }
  if (errno != 0) return Error::from_errno(errno, context);
  std::sort(names.begin(), names.end());
  return names;
}

bool MappedFileTree::exists(const std::filesystem::path& real_path) const {
  struct stat info {};
  return ::lstat(resolve(real_path).c_str(), &info) == 0;
}

Result<void> MappedFileTree::make_dir(const std::filesystem::path& real_path) {
  if (::mkdir(resolve(real_path).c_str(), 0755) < 0) {
    return Error::from_errno(errno, "mkdir " + real_path.string());
  }
  return ok();
}

Result<std::filesystem::path> MappedFileTree::read_link(
    const std::filesystem::path& real_path) const {
  std::vector<char> target(256);
  for (;;) {
    const ssize_t got = ::readlink(resolve(real_path).c_str(), target.data(), target.size());
    if (got < 0) return Error::from_errno(errno, "readlink " + real_path.string());
    if (static_cast<size_t>(got) < target.size()) {
      return std::filesystem::path(std::string(target.data(), static_cast<size_t>(got)));
    }
    target.resize(target.size() * 2);
  }
}

// ---- System ----

System System::real() {
  System system;
  system.open_rtnl = [] { return KernelNetlinkSocket::open(); };
  system.ethtool = std::make_unique<KernelEthtoolIoctl>();
  system.files = std::make_unique<MappedFileTree>(std::vector<MappedFileTree::Mapping>{}, "/");
  system.description = "this machine";
  return system;
}

System System::simulated(const std::filesystem::path& sim_dir) {
  const std::filesystem::path dir = std::filesystem::absolute(sim_dir).lexically_normal();
  System system;
  system.open_rtnl = [rtnl = dir / ROCE_SIM_RTNL_SOCKET] {
    return SimNetlinkSocket::connect(rtnl);
  };
  system.ethtool = std::make_unique<SimEthtoolIoctl>(dir / ROCE_SIM_ETHTOOL_SOCKET);
  system.files = std::make_unique<MappedFileTree>(
      std::vector<MappedFileTree::Mapping>{
          {"/sys/kernel/config", dir / ROCE_SIM_CONFIG_DIR},
          {"/sys/kernel/debug", dir / ROCE_SIM_DEBUG_DIR},
          {"/sys", dir / ROCE_SIM_SYS_DIR},
      },
      dir);
  system.description = "simulated node at " + dir.string();
  return system;
}

}  // namespace roced
