// SPDX-License-Identifier: Apache-2.0
#include "probe/window.hpp"

#include <gtest/gtest.h>

namespace roced::probe {
namespace {

using namespace std::chrono_literals;
using TimePoint = PathWindow::TimePoint;

TEST(ProbeWindow, LossAndTheTailOverTheSpan) {
  PathWindow window(30s);
  const TimePoint start{};
  for (int i = 0; i < 98; ++i)
    window.answered(start + i * 100ms, std::chrono::microseconds(10 + i));
  window.lost(start + 9800ms);
  window.lost(start + 9900ms);
  EXPECT_EQ(window.probes(), 100u);
  EXPECT_EQ(window.losses(), 2u);
  EXPECT_DOUBLE_EQ(window.loss_ratio(), 0.02);
  // 98 timed answers, 10..107 µs: the nearest-rank p99 is the 98th.
  EXPECT_EQ(window.rtt_quantile(0.99), std::chrono::microseconds(107));
  EXPECT_EQ(window.rtt_quantile(0.5), std::chrono::microseconds(58));
}

TEST(ProbeWindow, WhatIsOlderThanTheSpanIsForgotten) {
  PathWindow window(30s);
  const TimePoint start{};
  window.lost(start);
  window.answered(start + 10s, 20us);
  window.trim(start + 30s);
  EXPECT_EQ(window.losses(), 1u);
  window.trim(start + 31s);
  EXPECT_EQ(window.losses(), 0u);
  EXPECT_EQ(window.probes(), 1u);
  window.trim(start + 41s);
  EXPECT_EQ(window.probes(), 0u);
  EXPECT_DOUBLE_EQ(window.loss_ratio(), 0.0);
  EXPECT_FALSE(window.rtt_quantile(0.99));
}

TEST(ProbeWindow, AnUntimedAnswerIsNeitherLossNorRtt) {
  PathWindow window(30s);
  window.answered_untimed(TimePoint{});
  EXPECT_EQ(window.probes(), 1u);
  EXPECT_EQ(window.losses(), 0u);
  EXPECT_FALSE(window.rtt_quantile(0.99));
}

}  // namespace
}  // namespace roced::probe
