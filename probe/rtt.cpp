// SPDX-License-Identifier: Apache-2.0
#include "probe/rtt.hpp"

namespace roced::probe {

std::optional<RttBreakdown> breakdown(const ExchangeTimes& t) {
  const int64_t observed = t.t5 - t.t2;
  const int64_t responder = t.t4 - t.t3;
  const int64_t whole = t.t6 - t.t1;
  if (observed < 0 || responder < 0 || whole < observed || responder > observed) {
    return std::nullopt;
  }
  return RttBreakdown{std::chrono::nanoseconds(observed - responder),
                      std::chrono::nanoseconds(responder),
                      std::chrono::nanoseconds(whole - observed)};
}

}  // namespace roced::probe
