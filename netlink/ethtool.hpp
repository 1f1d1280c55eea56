#pragma once
// The ethtool ioctl: driver info, the statistics string set and values, and tunables.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "netlink/system.hpp"

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
