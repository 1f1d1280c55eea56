// SPDX-License-Identifier: Apache-2.0
#pragma once
// An ethtool ioctl whose every answer comes from fuzz input: each datagram is one roce-sim reply
// (uapi/roce_sim.h), decoded by roce-sim's decode_sim_ethtool_reply.

#include "fuzz/support/datagram_stream.hpp"
#include "os/system.hpp"

namespace roced::fuzz {

class ScriptedEthtoolIoctl final : public EthtoolIoctl {
 public:
  explicit ScriptedEthtoolIoctl(DatagramStream& replies) : replies_(replies) {}
  Result<void> call(const std::string& ifname, std::span<uint8_t> buffer, size_t in_len) override;

 private:
  DatagramStream& replies_;
};

}  // namespace roced::fuzz
