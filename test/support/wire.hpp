// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test helpers: a hand-rolled netlink byte writer (independent of libnl, so codec tests compare two
// encoders) and an in-process fake of the NETLINK_ROUTE transport.

#include <linux/netlink.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "os/system.hpp"

namespace roced::testing {

class Wire {
 public:
  Wire& u8(uint8_t v) { return raw(&v, 1); }
  Wire& u16(uint16_t v) { return raw(&v, 2); }
  Wire& u32(uint32_t v) { return raw(&v, 4); }
  Wire& i32(int32_t v) { return raw(&v, 4); }
  Wire& u64(uint64_t v) { return raw(&v, 8); }
  Wire& zeros(size_t n) {
    bytes.insert(bytes.end(), n, 0);
    return *this;
  }
  Wire& raw(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    bytes.insert(bytes.end(), p, p + n);
    return *this;
  }
  Wire& pad4() { return zeros((4 - bytes.size() % 4) % 4); }

  // nlmsghdr with a length patched by end_message().
  Wire& begin_message(uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid) {
    starts_.push_back(bytes.size());
    return u32(0).u16(type).u16(flags).u32(seq).u32(pid);
  }
  Wire& end_message() { return patch32(); }
  // nlattr with a length patched by end_attr(); attributes are padded to 4 bytes afterwards.
  Wire& begin_attr(uint16_t type) {
    starts_.push_back(bytes.size());
    return u16(0).u16(type);
  }
  Wire& end_attr() {
    const size_t start = starts_.back();
    starts_.pop_back();
    const auto len = static_cast<uint16_t>(bytes.size() - start);
    std::memcpy(bytes.data() + start, &len, 2);
    return pad4();
  }
  Wire& attr(uint16_t type, const void* data, size_t n) {
    return begin_attr(type).raw(data, n).end_attr();
  }
  Wire& attr_u8(uint16_t type, uint8_t v) { return attr(type, &v, 1); }
  Wire& attr_u32(uint16_t type, uint32_t v) { return attr(type, &v, 4); }
  Wire& attr_str(uint16_t type, const std::string& s) {
    return attr(type, s.c_str(), s.size() + 1);
  }

  // A complete NLMSG_ERROR (error 0 = ACK) for a request with `seq`.
  static std::vector<uint8_t> error(uint32_t seq, uint32_t pid, int32_t error_code) {
    Wire w;
    w.begin_message(NLMSG_ERROR, 0, seq, pid).i32(error_code);
    // the echoed request header (capped, as the kernel does for an ACK)
    w.u32(16).u16(0).u16(0).u32(seq).u32(pid).end_message();
    return w.bytes;
  }
  static std::vector<uint8_t> done(uint32_t seq, uint32_t pid) {
    Wire w;
    w.begin_message(NLMSG_DONE, NLM_F_MULTI, seq, pid).i32(0).end_message();
    return w.bytes;
  }

  std::vector<uint8_t> bytes;

 private:
  Wire& patch32() {
    const size_t start = starts_.back();
    starts_.pop_back();
    const auto len = static_cast<uint32_t>(bytes.size() - start);
    std::memcpy(bytes.data() + start, &len, 4);
    return *this;
  }
  std::vector<size_t> starts_;
};

inline std::vector<uint8_t> concat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

// The kernel side of a fake NETLINK_ROUTE: `respond` sees each request and returns the datagrams
// to queue for the socket that sent it.
struct FakeKernel {
  static constexpr uint32_t kPortId = 0x4242;
  std::function<std::vector<std::vector<uint8_t>>(const nlmsghdr& request)> respond;
  std::vector<std::vector<uint8_t>> sent;
  std::deque<std::vector<uint8_t>> pending;
  std::vector<uint32_t> groups;
  int sockets_opened = 0;
};

class FakeNetlinkSocket final : public NetlinkSocket {
 public:
  explicit FakeNetlinkSocket(FakeKernel& kernel) : kernel_(kernel) {}
  uint32_t port_id() const override { return FakeKernel::kPortId; }
  Result<void> send(std::span<const uint8_t> datagram) override {
    kernel_.sent.emplace_back(datagram.begin(), datagram.end());
    nlmsghdr header{};
    std::memcpy(&header, datagram.data(), sizeof(header));
    if (kernel_.respond) {
      for (auto& reply : kernel_.respond(header)) kernel_.pending.push_back(std::move(reply));
    }
    return ok();
  }
  Result<std::vector<uint8_t>> receive(std::chrono::milliseconds) override {
    if (kernel_.pending.empty()) return std::vector<uint8_t>{};  // "timed out"
    auto datagram = std::move(kernel_.pending.front());
    kernel_.pending.pop_front();
    return datagram;
  }
  Result<void> join_group(uint32_t group) override {
    kernel_.groups.push_back(group);
    return ok();
  }
  int fd() const override { return -1; }

 private:
  FakeKernel& kernel_;
};

inline System fake_system(FakeKernel& kernel) {
  System system;
  system.open_rtnl = [&kernel]() -> Result<std::unique_ptr<NetlinkSocket>> {
    ++kernel.sockets_opened;
    return std::unique_ptr<NetlinkSocket>(std::make_unique<FakeNetlinkSocket>(kernel));
  };
  system.description = "fake kernel";
  return system;
}

}  // namespace roced::testing
