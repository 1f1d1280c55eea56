// SPDX-License-Identifier: Apache-2.0
#include "health/fec.hpp"

namespace roced::health {

std::optional<double> pre_fec_ber(const CounterWindow& corrected_bits,
                                  std::optional<uint32_t> speed_mbps) {
  const auto rate = corrected_bits.last_rate();
  if (!rate || !speed_mbps || *speed_mbps == 0) return std::nullopt;
  return *rate / (static_cast<double>(*speed_mbps) * 1e6);
}

}  // namespace roced::health
