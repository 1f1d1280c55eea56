// SPDX-License-Identifier: Apache-2.0
#pragma once
// The ethtool ioctl: driver info, the statistics string set and values, and tunables.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

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
// with PFC on mlx5), the values alone otherwise, into a buffer kept between reads. The kernel
// answers ETHTOOL_GSTATS with as many values as the driver has *now*, so a count that differs
// from the names' says the string set changed.
class StatsReader {
 public:
  StatsReader(System& system, std::string ifname);

  const std::string& ifname() const { return ifname_; }
  Result<std::vector<std::string>> names();  // ETHTOOL_GSSET_INFO + GSTRINGS
  // ETHTOOL_GSTATS (after a GSSET_INFO the first time, to size the buffer); valid until the
  // next call.
  Result<std::span<const uint64_t>> values();
  // The same in two halves, for EthtoolIoctl::call_batch: the GSTATS call to make, then the
  // values once it was made.
  Result<EthtoolCall> values_call();
  Result<std::span<const uint64_t>> values_answered(const EthtoolCall& call);

 private:
  System& system_;
  std::string ifname_;
  std::optional<size_t> known_count_;  // the driver's count when last seen
  std::vector<uint64_t> buffer_;       // ethtool_stats, then its values
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

 private:
  System& system_;
};

}  // namespace roced
