// SPDX-License-Identifier: Apache-2.0
#include "probe/schedule.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace roced::probe {
namespace {

using namespace std::chrono_literals;
using TimePoint = ProbeSchedule::TimePoint;

// Every probe the schedule gives over `span`, stepping the clock to each next due time.
std::vector<std::pair<TimePoint, DueProbe>> run(ProbeSchedule& schedule, TimePoint start,
                                                std::chrono::seconds span) {
  std::vector<std::pair<TimePoint, DueProbe>> sent;
  for (TimePoint now = schedule.next_due(); now <= start + span; now = schedule.next_due()) {
    for (const DueProbe& due : schedule.take_due(now)) sent.emplace_back(now, due);
  }
  return sent;
}

TEST(ProbeSchedule, EachPortGoesRoundItsTargetsAtItsRate) {
  const TimePoint start{};
  ProbeSchedule schedule(
      {.probes_per_second_per_port = 10, .probes_per_second_total = 100, .jitter = 0}, {3, 0, 2},
      start, 1);
  EXPECT_EQ(schedule.interval(), 100ms);
  std::map<size_t, std::vector<size_t>> targets;
  for (const auto& [at, due] : run(schedule, start, 10s)) targets[due.port].push_back(due.target);
  EXPECT_EQ(targets.count(1), 0u);  // no targets, no probes
  ASSERT_EQ(targets[0].size(), 100u);
  ASSERT_EQ(targets[2].size(), 100u);
  EXPECT_EQ((std::vector<size_t>(targets[0].begin(), targets[0].begin() + 4)),
            (std::vector<size_t>{0, 1, 2, 0}));
  EXPECT_EQ((std::vector<size_t>(targets[2].begin(), targets[2].begin() + 3)),
            (std::vector<size_t>{0, 1, 0}));
}

TEST(ProbeSchedule, TheNodesBudgetCapsEveryPort) {
  const TimePoint start{};
  ProbeSchedule schedule(
      {.probes_per_second_per_port = 10, .probes_per_second_total = 5, .jitter = 0.2}, {4, 4},
      start, 7);
  EXPECT_EQ(schedule.interval(), 400ms);
  const auto sent = run(schedule, start, 60s);
  // 2.5 a second a port over 60 s: 150 each, give or take the jitter's last interval.
  EXPECT_NEAR(static_cast<double>(sent.size()), 300.0, 4.0);
  std::map<size_t, TimePoint> last;
  for (const auto& [at, due] : sent) {
    if (const auto it = last.find(due.port); it != last.end()) {
      EXPECT_GE(at - it->second, 320ms);
      EXPECT_LE(at - it->second, 480ms);
    }
    last[due.port] = at;
  }
}

TEST(ProbeSchedule, ALateCallerGetsOneRoundNotABurst) {
  const TimePoint start{};
  ProbeSchedule schedule({.jitter = 0}, {1}, start, 1);
  EXPECT_EQ(schedule.take_due(start + 5s).size(), 1u);
  EXPECT_TRUE(schedule.take_due(start + 5s).empty());
  EXPECT_GT(schedule.next_due(), start + 5s);
}

TEST(ProbeSchedule, ProbesToATargetRotateOverAFewFlowLabels) {
  const TimePoint start{};
  ProbeSchedule schedule({.jitter = 0, .flow_labels = 4}, {1, 1}, start, 99);
  std::map<size_t, std::vector<uint32_t>> labels;
  for (const auto& [at, due] : run(schedule, start, 2s)) labels[due.port].push_back(due.flow_label);
  for (const auto& [port, list] : labels) {
    ASSERT_GE(list.size(), 8u);
    EXPECT_EQ(std::set<uint32_t>(list.begin(), list.end()).size(), 4u);
    EXPECT_EQ(list[0], list[4]);
    for (const uint32_t label : list) {
      EXPECT_GT(label, 0u);
      EXPECT_LE(label, 0xfffffu);
    }
  }
  EXPECT_NE(labels[0][0], labels[1][0]);
}

TEST(ProbeSchedule, NoTargetsNothingDue) {
  ProbeSchedule schedule({}, {0, 0}, TimePoint{}, 1);
  EXPECT_EQ(schedule.next_due(), TimePoint::max());
  EXPECT_TRUE(schedule.take_due(TimePoint{} + 1h).empty());
}

}  // namespace
}  // namespace roced::probe
