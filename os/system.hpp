// SPDX-License-Identifier: Apache-2.0
#pragma once
// The seam to the hardware: everything roced asks of the system goes through System.
// Production code is the same for the real machine and the simulated node; only the transports
// differ. os/open_system.hpp builds the real one; the simulated one lives with roce-sim
// (sim/transport) and reaches roced only through open_system's --sim plugin or a test's link.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "os/result.hpp"

namespace roced {

// One netlink socket (NETLINK_ROUTE, NETLINK_RDMA): a real AF_NETLINK socket, or a stand-in with
// the same datagrams.
class NetlinkSocket {
 public:
  virtual ~NetlinkSocket() = default;
  virtual uint32_t port_id() const = 0;
  virtual Result<void> send(std::span<const uint8_t> datagram) = 0;
  // One datagram (may hold several messages); an empty vector on timeout.
  virtual Result<std::vector<uint8_t>> receive(std::chrono::milliseconds timeout) = 0;
  virtual Result<void> join_group(uint32_t group) = 0;  // RTNLGRP_LINK, RTNLGRP_DCB, ...
  virtual int fd() const = 0;                           // for poll/epoll in event loops
};

// One ioctl of a batch: what call() takes, its result, and when it was issued and answered (the
// device acted somewhere in between).
struct EthtoolCall {
  std::string_view ifname;
  std::span<uint8_t> buffer;
  size_t in_len = 0;
  Result<void> result = Error{EINVAL, "not called"};
  std::chrono::steady_clock::time_point issued;
  std::chrono::steady_clock::time_point answered;
};

// ioctl(SIOCETHTOOL) on a named interface. `buffer` holds the ethtool command struct; `in_len` is
// how much of it the kernel reads, the whole buffer is where it may write back.
class EthtoolIoctl {
 public:
  virtual ~EthtoolIoctl() = default;
  virtual Result<void> call(const std::string& ifname, std::span<uint8_t> buffer,
                            size_t in_len) = 0;
  // Several calls, each as call() would make it, in order. The kernel's are one after another;
  // a transport with a round trip per call may send them all before the first reply is read
  // (one wake-up for the batch, where the storm watchdog would otherwise pay one per port).
  virtual void call_batch(std::span<EthtoolCall> calls);
};

// sysfs, configfs and debugfs, addressed by their real absolute paths ("/sys/class/net",
// "/sys/kernel/config/rdma_cm", "/sys/kernel/debug/mlx5"); a simulated node maps them under its
// DIR.
class FileTree {
 public:
  virtual ~FileTree() = default;
  virtual std::filesystem::path resolve(const std::filesystem::path& real_path) const = 0;
  virtual Result<std::string> read(
      const std::filesystem::path& real_path) const = 0;  // trailing newline kept
  // The files `names` (plain names) of directory `real_dir`, each as read() gives it, in order.
  // A tree that can looks the directory up once for them all: an RDMA port's counters are 20 to 70
  // files, read on every scrape.
  virtual std::vector<Result<std::string>> read_each(const std::filesystem::path& real_dir,
                                                     const std::vector<std::string>& names) const {
    std::vector<Result<std::string>> texts;
    texts.reserve(names.size());
    for (const auto& name : names) texts.push_back(read(real_dir / name));
    return texts;
  }
  virtual Result<void> write(const std::filesystem::path& real_path, const std::string& text) = 0;
  virtual Result<std::vector<std::string>> list(
      const std::filesystem::path& real_path) const = 0;  // sorted names
  virtual bool exists(const std::filesystem::path& real_path) const = 0;
  virtual Result<void> make_dir(const std::filesystem::path& real_path) = 0;  // configfs mkdir
  virtual Result<std::filesystem::path> read_link(const std::filesystem::path& real_path) const = 0;
};

// Frames of one ethertype arriving on one netdev: an AF_PACKET socket, or the simulated node's
// stand-in carrying the simulated switch's frames. Receive only: roced transmits nothing.
class FrameSocket {
 public:
  virtual ~FrameSocket() = default;
  // The next waiting frame, from its Ethernet header on; an empty vector when none waits.
  virtual Result<std::vector<uint8_t>> receive() = 0;
  virtual int fd() const = 0;  // readable when a frame waits
};

struct System {
  std::function<Result<std::unique_ptr<NetlinkSocket>>()> open_rtnl;
  // A NETLINK_RDMA socket (drivers/infiniband/core/nldev.c); unset where there is none, and
  // then RDMA counters are read from sysfs.
  std::function<Result<std::unique_ptr<NetlinkSocket>>()> open_rdma_netlink;
  // A NETLINK_GENERIC socket (net/netlink/genetlink.c: ethtool netlink's statistics groups);
  // unset where there is none, and then only the ethtool ioctl reads statistics.
  std::function<Result<std::unique_ptr<NetlinkSocket>>()> open_genl;
  std::unique_ptr<EthtoolIoctl> ethtool;
  std::unique_ptr<FileTree> files;
  // LLDP frames to the nearest-bridge address on `netdev` (lldp/lldpdu.hpp); unset where
  // nothing can listen.
  std::function<Result<std::unique_ptr<FrameSocket>>(const std::string& netdev)> open_lldp;
  std::string description;  // "this machine" or "simulated node at DIR", for messages
  // Whether a set needs CAP_NET_ADMIN here: the kernel always; a simulated node when told to
  // check as the kernel does.
  bool checks_capabilities = true;
};

}  // namespace roced
