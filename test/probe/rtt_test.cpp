// SPDX-License-Identifier: Apache-2.0
#include "probe/rtt.hpp"

#include <gtest/gtest.h>

namespace roced::probe {
namespace {

using std::chrono::nanoseconds;

TEST(ProbeRtt, ABusyResponderAddsToItsOwnPartNotTheNetworks) {
  // Network 8 µs each way... 16 µs in all; the responder took 200 µs to answer; the prober
  // 3 µs to post and 40 µs to handle the answers. Responder clock far from the prober's.
  ExchangeTimes t;
  t.t1 = 1'000'000;
  t.t2 = t.t1 + 3'000;
  t.t3 = 900'000'000'000;          // its own clock
  t.t4 = t.t3 + 200'000;           // busy
  t.t5 = t.t2 + 16'000 + 200'000;  // what the prober's NIC saw
  t.t6 = t.t5 + 40'000;
  const auto split = breakdown(t);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->network, nanoseconds(16'000));
  EXPECT_EQ(split->responder, nanoseconds(200'000));
  EXPECT_EQ(split->prober, nanoseconds(43'000));
}

TEST(ProbeRtt, TimesThatCannotBeOneExchangeAreNotReported) {
  ExchangeTimes t{.t1 = 0, .t2 = 10, .t5 = 5, .t6 = 20, .t3 = 0, .t4 = 0};  // answer before send
  EXPECT_FALSE(breakdown(t));
  t = {.t1 = 0, .t2 = 10, .t5 = 50, .t6 = 60, .t3 = 100, .t4 = 90};  // answered before received
  EXPECT_FALSE(breakdown(t));
  t = {.t1 = 0, .t2 = 10, .t5 = 50, .t6 = 60, .t3 = 0, .t4 = 100};  // responder longer than all
  EXPECT_FALSE(breakdown(t));
}

}  // namespace
}  // namespace roced::probe
