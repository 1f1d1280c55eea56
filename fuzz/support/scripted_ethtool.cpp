// SPDX-License-Identifier: Apache-2.0
#include "fuzz/support/scripted_ethtool.hpp"

#include <linux/ethtool.h>
#include <roce_sim.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "sim/transport/sim_ethtool_ioctl.hpp"

namespace roced::fuzz {

Result<void> ScriptedEthtoolIoctl::call(const std::string& ifname, std::span<uint8_t> buffer,
                                        size_t) {
  auto reply = replies_.next();
  if (!reply) return Error{ETIMEDOUT, ifname + ": no answer (input used up)"};
  // Only GSTRINGS and GSTATS replies have a length the kernel decides (and may overrun a buffer
  // sized from an older count); every other command's reply is its fixed struct, which the
  // caller's buffer holds. Odd lengths for those stay inside the buffer, as the kernel's would.
  uint32_t cmd = 0;
  std::memcpy(&cmd, buffer.data(), std::min(sizeof cmd, buffer.size()));
  std::vector<uint8_t> bytes(reply->begin(), reply->end());
  if (cmd != ETHTOOL_GSTRINGS && cmd != ETHTOOL_GSTATS &&
      bytes.size() >= sizeof(roce_sim_ethtool_rep)) {
    roce_sim_ethtool_rep header{};
    std::memcpy(&header, bytes.data(), sizeof header);
    header.len = std::min<uint32_t>(header.len, static_cast<uint32_t>(buffer.size()));
    std::memcpy(bytes.data(), &header, sizeof header);
  }
  return roce_sim::decode_sim_ethtool_reply(bytes, ifname, buffer);
}

}  // namespace roced::fuzz
