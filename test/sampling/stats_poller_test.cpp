// SPDX-License-Identifier: Apache-2.0
// The statistics poller on roce-sim's node in this process and its simulated clock: a quiet port
// costs a probe (one firmware command) a round and a full reading every kRestInterval; the first
// MAC control frame makes the next round read fully, and so do the rounds of kHotHold after the
// last one, and every round of a port the caller watches. Scrapes are served the latest reading.
#include "sampling/stats_poller.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "in_process_node.hpp"

namespace roced::sampling {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string> kPorts = {"lan2", "lan3", "lan4", "lan5"};

class Poller : public test::InProcessNode {
 protected:
  void SetUp() override {
    InProcessNode::SetUp();
    poller_ = std::make_unique<StatsPoller>(system_, time_);
  }
  void TearDown() override {
    poller_.reset();  // its sockets are the node's
    InProcessNode::TearDown();
  }
  // QUERY_VNIC_ENV is a full reading's alone (en_stats.c mlx5e_stats_update: the vnic env
  // group); the probe costs an ACCESS_REG.
  uint64_t full_reads(const std::string& netdev) { return commands(netdev, "QUERY_VNIC_ENV"); }
  uint64_t commands(const std::string& netdev, const std::string& name) {
    uint64_t n = 0;
    node_->inspect([&](roce_sim::Node& node) {
      const auto& all = node.find(netdev)->firmware_commands();
      if (auto it = all.find(name); it != all.end()) n = it->second.n;
    });
    return n;
  }
  // One round every 100 ms of the clock; the names of the ports read fully.
  std::vector<std::string> round(StatsPoller::Watched watched = {}) {
    time_.advance(100ms);
    std::vector<std::string> full;
    for (const auto& port : poller_->round(kPorts, watched)) {
      if (!port.full) continue;
      EXPECT_TRUE(port.reading.ok()) << port.netdev;
      full.push_back(port.netdev);
    }
    return full;
  }
  void pause_frames(const std::string& netdev, uint64_t frames) {
    node_->change(
        [&](roce_sim::Node& node) { node.find(netdev)->counters().rx_pause_ctrl_phy += frames; });
  }

  std::unique_ptr<StatsPoller> poller_;
};

TEST_F(Poller, AQuietPortIsProbedAndReadFullyEveryRestInterval) {
  EXPECT_EQ(round(), kPorts);  // nothing known yet
  const uint64_t reads = full_reads("lan2");
  const uint64_t access = commands("lan2", "ACCESS_REG");
  int rounds = 0;
  std::vector<std::string> full;
  while (full.empty() && rounds < 100) {
    full = round();
    ++rounds;
  }
  EXPECT_EQ(full, kPorts);
  // 2 s of 100 ms rounds: 19 probes, then the full reading that is due (its own probe too).
  EXPECT_EQ(rounds, 20);
  EXPECT_EQ(full_reads("lan2") - reads, 1u);
  // Each probe one ACCESS_REG; the full reading its GSTATS' (firmware::kStatsAccessRegs and
  // the congestion group's where the port has it).
  EXPECT_GE(commands("lan2", "ACCESS_REG") - access, 19u + 15u);
  EXPECT_EQ(poller_->probes(), 4u * 19u);
}

TEST_F(Poller, PauseFramesMakeTheNextRoundReadTheirPortFully) {
  round();
  round();
  pause_frames("lan3", 1);
  EXPECT_EQ(round(), std::vector<std::string>{"lan3"});
  // Still hot for kHotHold after the last frame, then quiet again.
  int hot = 1;
  while (round() == std::vector<std::string>{"lan3"}) ++hot;
  EXPECT_EQ(hot * 100ms, StatsPoller::kHotHold);
  EXPECT_TRUE(round().empty());
}

// PFC turned on swaps the port's global pause counters for priority 3's, as many of them
// (en_stats.c mlx5e_grp_per_prio_pfc_get_num_stats, mlx5e_grp_pport_pfc...): the names read
// before no longer match. Told so (a DCB notification), the next round reads the port fully,
// quiet or not, and scrapes are served the new names, not the old ones for up to kRestInterval.
TEST_F(Poller, StaleNamesMakeTheNextRoundReadTheirPortFully) {
  round();
  round();
  node_->change([](roce_sim::Node& node) {
    ieee_pfc pfc{};
    ASSERT_EQ(node.find("lan4")->ieee_getpfc(pfc), 0);
    pfc.pfc_en = pfc.pfc_en ? 0 : 1u << 3;
    ASSERT_EQ(node.find("lan4")->ieee_setpfc(pfc), 0);
  });
  poller_->names_stale("lan4");
  EXPECT_EQ(round(), std::vector<std::string>{"lan4"});
  const auto served = poller_->reading("lan4", 1s);
  ASSERT_TRUE(served.has_value());
  auto fresh = StatsPoller(system_, time_).reading("lan4", 0s);
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(*served->names, *fresh->names);
}

TEST_F(Poller, AStormKeepsItsPortReadEveryRound) {
  round();
  for (int i = 0; i < 15; ++i) {  // within kRestInterval: the other ports are only probed
    pause_frames("lan4", 300);    // a storm refreshes its pause every few microseconds
    EXPECT_EQ(round(), std::vector<std::string>{"lan4"}) << "round " << i;
  }
}

TEST_F(Poller, AWatchedPortIsReadEveryRound) {
  round();
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(round([](const std::string& netdev) { return netdev == "lan5"; }),
              std::vector<std::string>{"lan5"});
  }
}

TEST_F(Poller, ScrapesAreServedTheLatestReadingAndReadAnOldOne) {
  round();
  const uint64_t reads = full_reads("lan2");
  time_.advance(900ms);
  auto served = poller_->reading("lan2", 1s);
  ASSERT_TRUE(served.has_value());
  EXPECT_EQ(full_reads("lan2"), reads);
  time_.advance(200ms);
  auto read = poller_->reading("lan2", 1s);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(full_reads("lan2"), reads + 1);
  EXPECT_EQ(read->answered, time_.now());
  EXPECT_FALSE(poller_->reading("lan2", 0s, false).has_value());
}

// A port that vanishes within a round is forgotten at once (its reader, its buffers): the
// round's read times, which the storm watchdog's poll budget takes after the round, stay whole.
TEST_F(Poller, TheLastRoundsReadTimesOutliveAPortForgottenAfterIt) {
  round();
  poller_->forget("lan3");
  poller_->forget("lan4");
  std::vector<std::string> named;
  for (const auto& read : poller_->last_reads()) {
    named.emplace_back(read.netdev);
    EXPECT_LE(read.issued, read.answered) << read.netdev;
  }
  EXPECT_EQ(named, kPorts);
}

// Without ethtool netlink (an old kernel, a transport without NETLINK_GENERIC) every round reads
// every port fully, as before the probe.
TEST_F(Poller, WithoutTheProbeEveryRoundReadsFully) {
  system_.open_genl = nullptr;
  StatsPoller poller(system_, time_);
  for (int i = 0; i < 3; ++i) {
    time_.advance(100ms);
    for (const auto& port : poller.round(kPorts, {})) EXPECT_TRUE(port.full) << port.netdev;
  }
}

}  // namespace
}  // namespace roced::sampling
