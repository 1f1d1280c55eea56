// SPDX-License-Identifier: Apache-2.0
#pragma once
// One probe's round trip split into the network's part and the two hosts' parts, from the six
// timestamps of the two-answer exchange (probe/wire.hpp). Prober: t1 when it posted the probe
// (its monotonic clock), t2 the probe's send completion and t5 the first answer's receive
// completion (the NIC's clock where the device timestamps completions, else the monotonic
// clock at the poll), t6 when the second answer was handled. Responder: t3 the probe's receive
// completion, t4 the first answer's send completion (its own clock, the same kind).
//   network   = (t5 - t2) - (t4 - t3)
//   responder = t4 - t3
//   prober    = (t6 - t1) - (t5 - t2)
// (yuuki/rpingmesh README, "RTT Calculations"; R-Pingmesh, SIGCOMM 2024, section 4.) A busy
// responder so adds to its own part, never to the network's.
#include <chrono>
#include <cstdint>
#include <optional>

namespace roced::probe {

struct ExchangeTimes {
  int64_t t1 = 0, t2 = 0, t5 = 0, t6 = 0;  // prober, ns
  int64_t t3 = 0, t4 = 0;                  // responder, ns
};

struct RttBreakdown {
  std::chrono::nanoseconds network{0};
  std::chrono::nanoseconds responder{0};
  std::chrono::nanoseconds prober{0};
};

// Empty when the times cannot be from one exchange on sane clocks (a part below zero: the
// completion times came from different clocks, or a field was garbled): such a probe answered,
// so it is no loss, but its time is not one to report.
std::optional<RttBreakdown> breakdown(const ExchangeTimes& times);

}  // namespace roced::probe
