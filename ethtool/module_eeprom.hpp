// SPDX-License-Identifier: Apache-2.0
#pragma once
// A port's module memory through ethtool netlink (ETHTOOL_MSG_MODULE_EEPROM_GET,
// net/ethtool/eeprom.c): at most a half page per read, page 0's lower half or any page's upper
// half, at I2C address 0x50. On mlx5 every 48 bytes cost two firmware commands and the module's
// own I2C time (port.c mlx5_query_module_eeprom_by_page), so the caller reads rarely and never
// on a scrape's path.
#include <linux/ethtool_netlink.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "os/genl_family.hpp"
#include "os/system.hpp"

namespace roced {

struct EepromRead {
  std::string netdev;
  uint8_t page = 0;
  uint32_t offset = 0;  // 0 (lower half, page 0 only) or 128 (upper half)
  uint32_t length = 128;
};

class ModuleEepromReader {
 public:
  explicit ModuleEepromReader(const System& system)
      : genl_(system, ETHTOOL_GENL_NAME, ETHTOOL_GENL_VERSION) {}

  bool available() const { return genl_.available(); }
  // Each read's bytes, in order. mlx5 before the fix of late 2025 answers a read the module
  // did not complete with fewer bytes than asked, even none, and no error: a short answer is
  // EIO here, never bytes to decode. A port with no module of its own is EOPNOTSUPP.
  std::vector<Result<std::vector<uint8_t>>> read(std::span<const EepromRead> reads,
                                                 std::chrono::milliseconds timeout);

 private:
  GenlFamily genl_;
};

}  // namespace roced
