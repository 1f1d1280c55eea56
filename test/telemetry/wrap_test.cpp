// SPDX-License-Identifier: Apache-2.0
// CounterAccumulator: exact totals across 32-bit wraps and 64-bit resets.
#include "telemetry/wrap.hpp"

#include <gtest/gtest.h>

namespace roced::telemetry {
namespace {

constexpr uint64_t kTwoTo32 = uint64_t{1} << 32;

TEST(CounterWrap, FirstReadingIsTheBaselineAndRisesAdd) {
  CounterAccumulator counter(CounterWidth::bits32);
  EXPECT_EQ(counter.feed(100), 100u);
  EXPECT_EQ(counter.feed(100), 100u);
  EXPECT_EQ(counter.feed(250), 250u);
  EXPECT_EQ(counter.wraps(), 0u);
  EXPECT_EQ(counter.resets(), 0u);
}

TEST(CounterWrap, ThirtyTwoBitWrapAddsTheDistanceAcross2To32) {
  CounterAccumulator counter(CounterWidth::bits32);
  EXPECT_EQ(counter.feed(4294967000u), uint64_t{4294967000});      // 2^32 - 296
  EXPECT_EQ(counter.feed(200), uint64_t{4294967000} + 296 + 200);  // wrapped: +496
  EXPECT_EQ(counter.total(), kTwoTo32 + 200);
  EXPECT_EQ(counter.feed(300), kTwoTo32 + 300);
  EXPECT_EQ(counter.feed(3000000000u), kTwoTo32 + 3000000000u);
  EXPECT_EQ(counter.feed(10), 2 * kTwoTo32 + 10);  // second wrap
  EXPECT_EQ(counter.wraps(), 2u);
  EXPECT_EQ(counter.resets(), 0u);
}

TEST(CounterWrap, WrapToZeroAndFromMax) {
  CounterAccumulator counter(CounterWidth::bits32);
  counter.feed(kTwoTo32 - 1);
  EXPECT_EQ(counter.feed(0), kTwoTo32);
  EXPECT_EQ(counter.wraps(), 1u);
}

// A 64-bit counter of the same reading going down says the whole reading restarted: a 32-bit one
// dropping from its upper half beside it was reset too, not wrapped.
TEST(CounterWrap, AResetReadingIsNoWrapEvenFromTheUpperHalf) {
  CounterAccumulator counter(CounterWidth::bits32);
  counter.feed(kTwoTo32 - 100);
  EXPECT_EQ(counter.feed(40, /*reading_reset=*/true), kTwoTo32 - 100 + 40);
  EXPECT_EQ(counter.wraps(), 0u);
  EXPECT_EQ(counter.resets(), 1u);
}

TEST(CounterStep, TheOneRule) {
  EXPECT_EQ(counter_step(5, 9, CounterWidth::bits32), (CounterStep{CounterChange::advanced, 4}));
  EXPECT_EQ(counter_step(kTwoTo32 - 1, 2, CounterWidth::bits32),
            (CounterStep{CounterChange::wrapped, 3}));
  EXPECT_EQ(counter_step(kTwoTo32 - 1, 2, CounterWidth::bits32, true),
            (CounterStep{CounterChange::reset, 2}));
  EXPECT_EQ(counter_step(1000, 2, CounterWidth::bits32), (CounterStep{CounterChange::reset, 2}));
  EXPECT_EQ(counter_step(kTwoTo32 - 1, 2, CounterWidth::bits64),
            (CounterStep{CounterChange::reset, 2}));
  const CounterWidth widths[] = {CounterWidth::bits32, CounterWidth::bits64};
  const uint64_t before[] = {kTwoTo32 - 1, 10};
  const uint64_t wrapped[] = {2, 11};
  const uint64_t restarted[] = {2, 1};
  EXPECT_FALSE(reading_reset(widths, before, wrapped));
  EXPECT_TRUE(reading_reset(widths, before, restarted));
}

TEST(CounterWrap, SixtyFourBitDropIsAReset) {
  CounterAccumulator counter(CounterWidth::bits64);
  EXPECT_EQ(counter.feed(1000), 1000u);
  EXPECT_EQ(counter.feed(30), 1030u);  // restarted from 0, counted 30 since
  EXPECT_EQ(counter.feed(50), 1050u);
  EXPECT_EQ(counter.resets(), 1u);
  EXPECT_EQ(counter.wraps(), 0u);
}

TEST(CounterWrap, ThirtyTwoBitCounterWithA64BitReadingFallsBackToReset) {
  CounterAccumulator counter(CounterWidth::bits32);
  counter.feed(kTwoTo32 + 5);  // does not fit 32 bits: the wrap rule cannot apply
  EXPECT_EQ(counter.feed(7), kTwoTo32 + 12);
  EXPECT_EQ(counter.resets(), 1u);
  EXPECT_EQ(counter.wraps(), 0u);
}

TEST(CounterWrap, TotalNeverGoesBackwards) {
  CounterAccumulator counter(CounterWidth::bits32);
  uint64_t previous = 0;
  for (uint64_t raw : {5u, 3u, 4000000000u, 1u, 1u, 0u, 17u}) {
    const uint64_t total = counter.feed(raw);
    EXPECT_GE(total, previous) << raw;
    previous = total;
  }
  EXPECT_EQ(counter.wraps(), 1u);   // 4e9->1
  EXPECT_EQ(counter.resets(), 2u);  // 5->3, 1->0
}

TEST(CounterWrap, ThirtyTwoBitDropFromTheLowerHalfIsAReset) {
  CounterAccumulator counter(CounterWidth::bits32);
  EXPECT_EQ(counter.feed(1000), 1000u);
  EXPECT_EQ(counter.feed(20), 1020u);  // a driver reload, not ~4 billion errors
  EXPECT_EQ(counter.resets(), 1u);
  EXPECT_EQ(counter.wraps(), 0u);
}

TEST(CounterWrap, HwCounterWidthsFollowMlx5) {
  EXPECT_EQ(hw_counter_width("np_cnp_sent"), CounterWidth::bits64);
  EXPECT_EQ(hw_counter_width("rp_cnp_handled"), CounterWidth::bits64);
  EXPECT_EQ(hw_counter_width("rp_cnp_ignored"), CounterWidth::bits64);
  EXPECT_EQ(hw_counter_width("np_ecn_marked_roce_packets"), CounterWidth::bits64);
  EXPECT_EQ(hw_counter_width("rx_icrc_encapsulated"), CounterWidth::bits64);
  EXPECT_EQ(hw_counter_width("out_of_sequence"), CounterWidth::bits32);
  EXPECT_EQ(hw_counter_width("local_ack_timeout_err"), CounterWidth::bits32);
  EXPECT_EQ(hw_counter_width("req_cqe_error"), CounterWidth::bits32);
}

}  // namespace
}  // namespace roced::telemetry
