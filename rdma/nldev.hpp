// SPDX-License-Identifier: Apache-2.0
#pragma once
// RDMA netlink (NETLINK_RDMA, drivers/infiniband/core/nldev.c): the device list and a port's
// counters, what `rdma dev` and `rdma statistic show link` read. A port's counters come in one
// answer (stat_get_doit_default_counter) where sysfs has a file per counter; the values are the
// same, as both add the QP-bound counters' share (rdma_counter_get_hwstat_value).

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "os/system.hpp"

namespace roced::rdma {

struct NldevDevice {
  uint32_t index = 0;  // ib_device.index: a reloaded driver's device gets a new one
  std::string name;    // "mlx5_0"
  uint32_t ports = 0;  // the last port number (rdma_end_port)
};

// RDMA_NLDEV_CMD_GET, dumped.
Result<std::vector<NldevDevice>> list_nldev_devices(NetlinkSocket& socket);

struct PortCountersRequest {
  uint32_t device_index = 0;
  std::string device;  // the name the answer must carry
  uint32_t port = 1;
};

using CounterValues = std::map<std::string, uint64_t>;

// RDMA_NLDEV_CMD_STAT_GET for each request, all sent before the first answer is read; the
// answers in the same order. An answer for another device name than asked is ESTALE (the index
// now belongs to another device); an unknown index or port is the kernel's EINVAL.
std::vector<Result<CounterValues>> read_port_counters(NetlinkSocket& socket,
                                                      std::span<const PortCountersRequest> requests,
                                                      std::chrono::milliseconds timeout);

// The devices' indexes, learnt once and kept across reads, each read on a NETLINK_RDMA socket of
// its own (as the link reads open theirs: nothing outlives a read). The device list is taken
// again when a name is not in it or an answer says an index went stale (a driver reload registers
// the device anew).
class NldevCounterReader {
 public:
  explicit NldevCounterReader(const System& system) : system_(system) {}

  // False when the system has no NETLINK_RDMA (the caller reads sysfs instead).
  bool available() const { return static_cast<bool>(system_.open_rdma_netlink); }
  // The counters of each (device, port); ENODEV for a device RDMA netlink does not list. None
  // at all when RDMA netlink cannot be used now (no socket, no device list): read sysfs then.
  std::optional<std::vector<Result<CounterValues>>> read(
      std::span<const std::pair<std::string, int>> ports);

 private:
  Result<void> refresh_devices();
  std::vector<Result<CounterValues>> read_once(std::span<const std::pair<std::string, int>> ports,
                                               bool& stale);

  const System& system_;
  std::unique_ptr<NetlinkSocket> socket_;  // during read() only
  std::map<std::string, uint32_t> indexes_;
  // A device that stays unknown (or a port that stays invalid) costs one listing a second at
  // most, not one per read.
  std::chrono::steady_clock::time_point listed_at_{};
};

}  // namespace roced::rdma
