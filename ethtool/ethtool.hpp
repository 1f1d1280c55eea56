// SPDX-License-Identifier: Apache-2.0
#pragma once
// The ethtool ioctl: driver info, the statistics string set and values, tunables and pause
// parameters.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ethtool/guarded_buffer.hpp"
#include "os/system.hpp"

namespace roced {

struct DriverInfo {
  std::string driver;
  std::string version;
  std::string firmware;
  std::string bus_info;  // PCI address
};

struct NamedCounter {
  std::string name;
  uint64_t value = 0;
};

// One port's ethtool statistics, read again and again: the names only when asked (they change
// with PFC and channels on mlx5), the values alone otherwise. The kernel answers ETHTOOL_GSTATS
// with as many values as the driver has *now*, so each read is sized from a fresh count, into a
// buffer that ends at a guard page; a count that differs from the names' says the string set
// changed.
class StatsReader {
 public:
  StatsReader(System& system, std::string ifname);

  const std::string& ifname() const { return ifname_; }
  Result<std::vector<std::string>> names();  // ETHTOOL_GSSET_INFO + GSTRINGS
  // ETHTOOL_GSTATS of the count last read (GSSET_INFO first when none was); valid until the next
  // call. A count that changed (none answered, or EFAULT at the guard) is counted again and read
  // once more; one that shrank on an older kernel comes back as fewer values.
  Result<std::span<const uint64_t>> values();
  // The same in two halves, for EthtoolIoctl::call_batch: the GSTATS call to make, then the
  // values once it was made. When the count changed, `call` is replaced by the second read's
  // (its buffer and times describe the values returned).
  Result<EthtoolCall> values_call();
  Result<std::span<const uint64_t>> values_answered(EthtoolCall& call);

 private:
  System& system_;
  std::string ifname_;
  GuardedBuffer buffer_;  // ethtool_stats, then its values
  std::optional<uint32_t> count_;  // the string set's count as the driver last answered it
};

// struct ethtool_pauseparam: 802.3x global (link-level) pause in each direction, and whether it
// is autonegotiated.
struct PauseParams {
  bool autoneg = false;
  bool rx = false;
  bool tx = false;
  bool operator==(const PauseParams&) const = default;
};

class EthtoolClient {
 public:
  explicit EthtoolClient(System& system) : system_(system) {}
  Result<DriverInfo> driver_info(const std::string& ifname);
  // ETHTOOL_GSSET_INFO + GSTRINGS + GSTATS; names are re-read every call (they change with PFC).
  Result<std::vector<NamedCounter>> stats(const std::string& ifname);
  // ETHTOOL_PFC_PREVENTION_TOUT: 0 off, 0xffff auto, else milliseconds.
  Result<uint16_t> pfc_prevention_timeout(const std::string& ifname);
  Result<void> set_pfc_prevention_timeout(const std::string& ifname, uint16_t value);
  // ETHTOOL_GPAUSEPARAM / ETHTOOL_SPAUSEPARAM (ethtool/pause.cpp). On mlx5 a PFC mask change turns
  // global pause off, a VF's set is EOPNOTSUPP and autoneg EINVAL.
  Result<PauseParams> pause(const std::string& ifname);
  Result<void> set_pause(const std::string& ifname, const PauseParams& wanted);

 private:
  System& system_;
};

}  // namespace roced
