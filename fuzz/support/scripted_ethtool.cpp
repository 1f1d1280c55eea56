// SPDX-License-Identifier: Apache-2.0
#include "fuzz/support/scripted_ethtool.hpp"

#include "sim/transport/sim_ethtool_ioctl.hpp"

namespace roced::fuzz {

Result<void> ScriptedEthtoolIoctl::call(const std::string& ifname, std::span<uint8_t> buffer,
                                        size_t) {
  auto reply = replies_.next();
  if (!reply) return Error{ETIMEDOUT, ifname + ": no answer (input used up)"};
  return roce_sim::decode_sim_ethtool_reply(*reply, ifname, buffer);
}

}  // namespace roced::fuzz
