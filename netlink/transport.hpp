// SPDX-License-Identifier: Apache-2.0
#pragma once
// The ethtool ioctl and file-tree transports behind System::real() and System::simulated(DIR).

#include <filesystem>
#include <mutex>
#include <utility>
#include <vector>

#include "netlink/system.hpp"
#include "netlink/unique_fd.hpp"

namespace roced {

// ioctl(SIOCETHTOOL) on an AF_INET datagram socket, as ethtool(8) does.
class KernelEthtoolIoctl final : public EthtoolIoctl {
 public:
  Result<void> call(const std::string& ifname, std::span<uint8_t> buffer, size_t in_len) override;

 private:
  std::mutex mutex_;
  UniqueFd fd_;  // opened on first use
};

// One datagram per call on DIR/ethtool.sock, framed as in uapi/roce_sim.h. A call is one send and
// one recv (the timeout is the socket's), into buffers kept between calls; a batch is one
// sendmmsg, then the replies: the storm watchdog makes one call per port every poll.
class SimEthtoolIoctl final : public EthtoolIoctl {
 public:
  explicit SimEthtoolIoctl(std::filesystem::path socket_path)
      : socket_path_(std::move(socket_path)) {}
  Result<void> call(const std::string& ifname, std::span<uint8_t> buffer, size_t in_len) override;
  void call_batch(std::span<EthtoolCall> calls) override;

 private:
  Result<void> ensure_connected();
  // A request's datagram (framing of uapi/roce_sim.h) into `out`.
  static Result<void> encode_request(std::string_view ifname, std::span<uint8_t> buffer,
                                     size_t in_len, std::vector<uint8_t>& out);
  // One request out, one reply in (mutex_ held).
  Result<void> send_request(std::string_view ifname, std::span<uint8_t> buffer, size_t in_len);
  Result<void> receive_reply(std::string_view ifname, std::span<uint8_t> buffer);
  Result<void> decode_reply(std::span<const uint8_t> reply, std::string_view ifname,
                            std::span<uint8_t> buffer);
  // A recv that failed: the connection is dropped (a late reply must not answer the next call).
  Error receive_failed(int err, std::string_view ifname, std::span<uint8_t> buffer);
  std::filesystem::path socket_path_;
  std::mutex mutex_;
  UniqueFd fd_;                   // connected on first use, dropped after a transport error
  std::vector<uint8_t> request_;  // guarded by mutex_, like the ones below
  std::vector<uint8_t> reply_;
  std::vector<std::vector<uint8_t>> batch_;  // call_batch's requests
};

// One roce-sim ethtool reply (uapi/roce_sim.h) into `buffer`, as the kernel's copy_to_user would
// leave it: a negative `error` is the call's errno. Free of the socket so it can be fuzzed.
Result<void> decode_sim_ethtool_reply(std::span<const uint8_t> reply, std::string_view ifname,
                                      std::span<uint8_t> buffer);

// Real absolute paths mapped onto directories: the longest matching prefix wins; a path no prefix
// matches goes to `fallback_root` / path. System::real() maps nothing (fallback "/").
class MappedFileTree final : public FileTree {
 public:
  struct Mapping {
    std::filesystem::path real_prefix;  // "/sys/kernel/config"
    std::filesystem::path target;       // "DIR/config"
  };
  MappedFileTree(std::vector<Mapping> mappings, std::filesystem::path fallback_root);

  std::filesystem::path resolve(const std::filesystem::path& real_path) const override;
  Result<std::string> read(const std::filesystem::path& real_path) const override;
  Result<void> write(const std::filesystem::path& real_path, const std::string& text) override;
  Result<std::vector<std::string>> list(const std::filesystem::path& real_path) const override;
  bool exists(const std::filesystem::path& real_path) const override;
  Result<void> make_dir(const std::filesystem::path& real_path) override;
  Result<std::filesystem::path> read_link(const std::filesystem::path& real_path) const override;

 private:
  std::vector<Mapping> mappings_;  // longest prefix first
  std::filesystem::path fallback_root_;
};

}  // namespace roced
