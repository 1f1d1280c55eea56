// SPDX-License-Identifier: Apache-2.0
#pragma once
// roce-sim's stand-in for ioctl(SIOCETHTOOL): the command struct goes to DIR/ethtool.sock and what
// the kernel would copy back comes back, framed as in uapi/roce_sim.h.

#include <filesystem>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "os/system.hpp"
#include "os/unique_fd.hpp"

namespace roce_sim {

// A call is one send and one recv (the timeout is the socket's), into buffers kept between calls;
// a batch is one sendmmsg, then the replies: the storm watchdog makes one call per port every poll.
class SimEthtoolIoctl final : public roced::EthtoolIoctl {
 public:
  explicit SimEthtoolIoctl(std::filesystem::path socket_path)
      : socket_path_(std::move(socket_path)) {}
  roced::Result<void> call(const std::string& ifname, std::span<uint8_t> buffer,
                           size_t in_len) override;
  void call_batch(std::span<roced::EthtoolCall> calls) override;

 private:
  roced::Result<void> ensure_connected();
  // One request out, one reply in (mutex_ held).
  roced::Result<void> send_request(std::string_view ifname, std::span<uint8_t> buffer,
                                   size_t in_len);
  roced::Result<void> receive_reply(std::string_view ifname, std::span<uint8_t> buffer);
  roced::Result<void> decode_reply(std::span<const uint8_t> reply, std::string_view ifname,
                                   std::span<uint8_t> buffer);
  // A recv that failed: the connection is dropped (a late reply must not answer the next call).
  roced::Error receive_failed(int err, std::string_view ifname, std::span<uint8_t> buffer);
  std::filesystem::path socket_path_;
  std::mutex mutex_;
  roced::UniqueFd fd_;            // connected on first use, dropped after a transport error
  std::vector<uint8_t> request_;  // guarded by mutex_, like the ones below
  std::vector<uint8_t> reply_;
  std::vector<std::vector<uint8_t>> batch_;  // call_batch's requests
};

// One ethtool call as a roce-sim request datagram (framing of uapi/roce_sim.h), into `out`.
roced::Result<void> encode_sim_ethtool_request(std::string_view ifname, std::span<uint8_t> buffer,
                                               size_t in_len, std::vector<uint8_t>& out);

// One roce-sim ethtool reply (uapi/roce_sim.h) into `buffer`, as the kernel's copy_to_user would
// leave it: a negative `error` is the call's errno. Free of the socket so it can be fuzzed.
roced::Result<void> decode_sim_ethtool_reply(std::span<const uint8_t> reply,
                                             std::string_view ifname, std::span<uint8_t> buffer);

}  // namespace roce_sim
