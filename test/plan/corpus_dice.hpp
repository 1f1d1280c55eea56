// SPDX-License-Identifier: Apache-2.0
#pragma once
// The seeded dice of the golden corpora (plan and apply) and the profiles they ask for.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "daemon/config/config.hpp"

namespace roced::test {

// Portable across standard libraries: mt19937's output is specified, the distributions are not.
class Dice {
 public:
  explicit Dice(uint32_t seed) : rng_(seed) {}
  uint32_t pick(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  bool chance(uint32_t percent) { return pick(100) < percent; }
  template <class T>
  const T& one_of(const std::vector<T>& options) {
    return options[pick(static_cast<uint32_t>(options.size()))];
  }

 private:
  std::mt19937 rng_;
};

// A profile near the default one: the changes a site makes (firmware DCBX, PCP trust, other
// priorities, bandwidths, MTUs, stall prevention, ECN and DCQCN, manual buffers, rdma_cm).
inline config::Profile wanted_profile(Dice& dice) {
  config::Profile p = config::default_profile();
  if (dice.chance(15)) p.dcbx = config::DcbxMode::Firmware;
  if (dice.chance(20)) p.trust = dcb::Trust::Pcp;
  if (dice.chance(20)) p.dscp_map[46] = 5;
  p.pfc_priorities = dice.one_of<uint8_t>({0x08, 0x08, 0x18});
  p.cable_length_m = dice.one_of<uint16_t>({7, 7, 20});
  if (dice.chance(15)) p.ets.bandwidth = {20, 10, 10, 40, 10, 10, 0, 0};
  p.mtu = dice.one_of<uint32_t>({9000, 9000, 1500, 4200, 10000});
  switch (dice.pick(4)) {
    case 0:
      p.stall_prevention = config::StallPrevention{config::StallPrevention::Mode::Off, 0};
      break;
    case 1:
      p.stall_prevention = config::StallPrevention{config::StallPrevention::Mode::Manual, 500};
      break;
    default:
      break;
  }
  if (dice.chance(30)) p.ecn.enabled_priorities = dice.one_of<uint8_t>({0x08, 0x18});
  p.ecn.cnp_dscp = dice.one_of<uint8_t>({48, 48, 26});
  p.ecn.cnp_priority = dice.one_of<uint8_t>({6, 6, 7});
  switch (dice.pick(4)) {
    case 0:
      p.ecn.dcqcn = {{"rp_ai_rate", dice.one_of<uint64_t>({5, 10})}};
      break;
    case 1:
      p.ecn.dcqcn = {{"rp_ai_rate", 5}, {"rp_hai_rate", 50}, {"np_min_time_between_cnps", 4}};
      break;
    default:
      break;
  }
  if (dice.chance(40)) {
    config::BufferProfile buffers;
    buffers.prio2buffer = {0, 0, 0, 1, 0, 0, 0, 0};
    buffers.buffer_size = {262144, 131072, 0, 0, 0, 0, 0, 0};
    p.buffers = buffers;
  }
  p.roce.rdma_cm_mode = dice.one_of<std::string>({"RoCE v2", "RoCE v2", "IB/RoCE v1"});
  p.roce.tos = dice.one_of<uint8_t>({106, 106, 0});
  if (dice.chance(15)) p.roce.gid_family = "ipv6";
  if (dice.chance(30)) p.roce.gid_index = dice.one_of<int>({3, 5});
  return p;
}

}  // namespace roced::test
