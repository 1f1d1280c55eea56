// SPDX-License-Identifier: Apache-2.0
#pragma once
// A port's forward error correction through ethtool netlink (ETHTOOL_MSG_FEC_GET with
// ETHTOOL_FLAG_STATS, net/ethtool/fec.c): the active mode and the FEC's own counters, the
// codewords it corrected and could not, and the bits it corrected (the pre-FEC errors). On mlx5
// it costs four firmware commands (two PPLM and two PPCNT queries: en_ethtool.c
// mlx5e_get_fecparam, en_stats.c mlx5e_stats_fec_get), and answers EOPNOTSUPP while the link is
// down.
#include <linux/ethtool_netlink.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "os/genl_family.hpp"
#include "os/system.hpp"

namespace roced {

// One of the statistics: the port's total and, where the driver counts per lane (mlx5 in
// FireCode mode), each lane's. No total: the driver set none (mlx5 without the PPCNT statistical
// group, or FEC off).
struct FecCounter {
  std::optional<uint64_t> total;
  std::vector<uint64_t> lanes;
  bool operator==(const FecCounter&) const = default;
};

struct FecState {
  // ETHTOOL_A_FEC_ACTIVE: the link mode bit of the mode in use (ETHTOOL_LINK_MODE_FEC_*_BIT);
  // none when the driver reports none.
  std::optional<uint32_t> active_mode;
  FecCounter corrected_blocks, uncorrectable_blocks, corrected_bits;
  bool operator==(const FecState&) const = default;
};

// "rs", "baser", "llrs", "off", or "" for a link mode bit that is no FEC mode.
const char* fec_mode_name(uint32_t link_mode_bit);

// A FEC_GET reply's attributes (after the generic header), as fec_fill_reply puts them; a
// statistic whose length is not a whole number of u64 is EBADMSG.
Result<FecState> parse_fec_reply(const void* attributes, int length, const std::string& netdev);

class FecReader {
 public:
  explicit FecReader(const System& system)
      : genl_(system, ETHTOOL_GENL_NAME, ETHTOOL_GENL_VERSION) {}

  bool available() const { return genl_.available(); }
  // Each port's state, all asked before the first answer is read; in the same order.
  std::vector<Result<FecState>> read(std::span<const std::string> netdevs,
                                     std::chrono::milliseconds timeout);

 private:
  GenlFamily genl_;
};

}  // namespace roced
