// SPDX-License-Identifier: Apache-2.0
// RoCE against the lossless priorities between two readings: the counters picked by name, and
// the judgement's edges (too little sent, half on the lossless priority, a counter missing).
#include "health/roce_class.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace roced::health {
namespace {

// A sample with every priority at `bytes` except those given, and `rdma` bytes of RDMA.
ClassSample sample(uint64_t rdma, std::vector<std::pair<int, uint64_t>> priorities) {
  ClassSample out;
  out.rdma_tx_bytes = rdma;
  for (auto& bytes : out.priority_tx_bytes) bytes = 0;
  for (const auto& [p, bytes] : priorities) out.priority_tx_bytes[static_cast<size_t>(p)] = bytes;
  return out;
}

TEST(ClassSample, ThePrioritiesBytesAndTheRdmaWordsAreReadByName) {
  const std::vector<std::string> names = {"tx_prio3_bytes", "rx_prio3_bytes", "tx_prio0_bytes",
                                          "tx_prio3_packets", "tx_prio9_bytes"};
  const ClassSample read = class_sample(names, std::vector<uint64_t>{30, 1, 5, 2, 7}, 100);
  EXPECT_EQ(read.rdma_tx_bytes, 400u);  // 4-octet words
  EXPECT_EQ(read.priority_tx_bytes[3], 30u);
  EXPECT_EQ(read.priority_tx_bytes[0], 5u);
  EXPECT_FALSE(read.priority_tx_bytes[1]);
  EXPECT_FALSE(class_sample(names, std::vector<uint64_t>{}, std::nullopt).rdma_tx_bytes);
}

TEST(JudgeRoceClass, HalfOnTheLosslessPriorityIsFineLessIsFound) {
  const ClassSample before = sample(0, {});
  const uint64_t sent = 10'000'000'000;
  // Other traffic on the lossless priority never hides RoCE, nor does RoCE on it show falsely.
  EXPECT_FALSE(judge_roce_class("lan2", 0x08, before, sample(sent, {{3, sent}, {0, sent}})));
  EXPECT_FALSE(
      judge_roce_class("lan2", 0x08, before, sample(sent, {{3, sent / 2}, {0, sent / 2}})));
  const auto found =
      judge_roce_class("lan2", 0x08, before, sample(sent, {{3, sent / 2 - 1}, {5, sent / 2}}));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->found, "priority 5");
  EXPECT_EQ(found->wanted, "priority 3");
  // Two lossless priorities count together.
  EXPECT_FALSE(
      judge_roce_class("lan2", 0x18, before, sample(sent, {{3, sent / 4}, {4, sent / 4}})));
}

TEST(JudgeRoceClass, TooLittleOrAMissingCounterOrNoLosslessPriorityIsNoEvidence) {
  const ClassSample before = sample(0, {});
  EXPECT_FALSE(judge_roce_class("lan2", 0x08, before, sample(kRoceClassMinBytes - 1, {{0, 9}})));
  ClassSample partial = sample(10'000'000'000, {{0, 10'000'000'000}});
  partial.priority_tx_bytes[6].reset();
  EXPECT_FALSE(judge_roce_class("lan2", 0x08, before, partial));
  ClassSample no_rdma = sample(0, {{0, 10'000'000'000}});
  no_rdma.rdma_tx_bytes.reset();
  EXPECT_FALSE(judge_roce_class("lan2", 0x08, before, no_rdma));
  EXPECT_FALSE(judge_roce_class("lan2", 0, before, sample(10'000'000'000, {{0, 10'000'000'000}})));
}

// RoCE's bytes are some of the priorities' bytes: readings whose priorities carried less than
// half of them in all were taken over different spans, and say nothing.
TEST(JudgeRoceClass, PrioritiesThatCarriedLessThanRoceAllTogetherAreNoEvidence) {
  const ClassSample before = sample(0, {});
  const uint64_t sent = 10'000'000'000;
  EXPECT_FALSE(judge_roce_class("lan2", 0x08, before, sample(sent, {})));
  EXPECT_FALSE(judge_roce_class("lan2", 0x08, before, sample(sent, {{3, 1}, {0, sent / 2 - 2}})));
  EXPECT_TRUE(judge_roce_class("lan2", 0x08, before, sample(sent, {{3, 1}, {0, sent / 2}})));
}

}  // namespace
}  // namespace roced::health
