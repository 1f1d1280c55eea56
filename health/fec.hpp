// SPDX-License-Identifier: Apache-2.0
#pragma once
// The pre-FEC bit error rate: how many of the bits a port received its FEC had to correct. A
// link whose optic or cable is going bad shows it here days before the FEC gives up and frames
// are lost; a healthy 400G link with RS-FEC runs well below 1e-6.
#include <chrono>
#include <cstdint>
#include <optional>

#include "health/counter_window.hpp"

namespace roced::health {

// The FEC's corrected bits over the last few minutes (a 64-bit counter).
inline CounterWindow corrected_bits_window() {
  return CounterWindow(std::chrono::minutes(5), CounterWidth::bits64);
}

// Corrected bits per bit of the link's data rate over the interval since the reading before;
// none without two readings or without a speed (no carrier). The line carries a few per cent
// more than the data rate (64b/66b or 256b/257b coding and the FEC's parity), so the figure reads
// that much higher than one taken against the serial rate, as mlxlink's is.
std::optional<double> pre_fec_ber(const CounterWindow& corrected_bits,
                                  std::optional<uint32_t> speed_mbps);

}  // namespace roced::health
