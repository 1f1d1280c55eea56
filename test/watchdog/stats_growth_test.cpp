// SPDX-License-Identifier: Apache-2.0
// The ethtool statistics as the storm watchdog reads them, on roce-sim's model, while the driver's
// string set grows: mlx5 adds a channel's statistics when it first opens (en_main.c
// mlx5e_channel_stats_alloc raises priv->stats_nch). Before mainline 7b07be1ff1cb, ETHTOOL_GSTATS
// writes the driver's count whatever the caller passed (net/ethtool/ioctl.c ethtool_get_stats), as
// the default node's kernel (Debian 6.1.115) does: roce-sim's transport stops the test where the
// kernel would have overwritten memory after the caller's buffer. Since, a changed count is
// answered with none.
#include <gtest/gtest.h>
#include <linux/ethtool.h>
#include <roce_sim.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "daemon/watchdog/port_poller.hpp"
#include "ethtool/ethtool.hpp"
#include "ethtool/guarded_buffer.hpp"
#include "in_process_node.hpp"
#include "sim/transport/sim_ethtool_ioctl.hpp"

namespace roced {
namespace {

// What a channel adds to the model's string set: ch (6), rx (14) and tx (14) statistics.
constexpr size_t kStatsPerChannel = 34;

// The node's ethtool ioctl, with a hook that runs before each command reaches it.
class Interposed final : public EthtoolIoctl {
 public:
  Interposed(std::unique_ptr<EthtoolIoctl> inner, std::function<void(uint32_t)> before)
      : inner_(std::move(inner)), before_(std::move(before)) {}
  Result<void> call(const std::string& ifname, std::span<uint8_t> buffer, size_t in_len) override {
    uint32_t cmd = 0;
    std::memcpy(&cmd, buffer.data(), sizeof cmd);
    commands.push_back(cmd);
    before_(cmd);
    return inner_->call(ifname, buffer, in_len);
  }
  std::vector<uint32_t> commands;

 private:
  std::unique_ptr<EthtoolIoctl> inner_;
  std::function<void(uint32_t)> before_;
};

class StatsGrowth : public test::InProcessNode {
 protected:
  void open_channels(uint32_t channels) {
    node_->change(
        [&](roce_sim::Node& node) { ASSERT_EQ(node.find("lan2")->set_channels(channels), 0); });
  }
  size_t count_now() {
    auto names = StatsReader(system_, "lan2").names();
    EXPECT_TRUE(names.ok());
    return names ? names->size() : 0;
  }
};

TEST_F(StatsGrowth, ChannelsOpenedSinceTheLastReadAreReadWhole) {
  StatsReader reader(system_, "lan2");
  auto names = reader.names();
  ASSERT_TRUE(names.ok()) << names.error().message;
  const size_t before = names->size();
  ASSERT_TRUE(reader.values().ok());
  open_channels(16);  // ethtool -L lan2 combined 16: 510 more values than the names
  auto values = reader.values();
  ASSERT_TRUE(values.ok()) << values.error().message;
  EXPECT_EQ(values->size(), before + 15 * kStatsPerChannel);
  EXPECT_EQ(values->size(), count_now());
}

TEST_F(StatsGrowth, FewerChannelsKeepTheirStatisticsUntilTheDriverReloads) {
  const size_t one = count_now();
  open_channels(8);
  open_channels(2);
  EXPECT_EQ(count_now(), one + 7 * kStatsPerChannel);
  node_->change([](roce_sim::Node& node) {
    node.unbind("lan2");
    node.rebind("lan2");
  });
  EXPECT_EQ(count_now(), one);  // the driver's default channel count again
}

TEST_F(StatsGrowth, GrowthBetweenTheCountAndTheValuesIsCountedAgain) {
  bool grown = false;
  auto interposed = std::make_unique<Interposed>(std::move(system_.ethtool), [&](uint32_t cmd) {
    if (cmd == ETHTOOL_GSTATS && !grown) {
      grown = true;
      open_channels(4);
    }
  });
  Interposed& seen = *interposed;
  system_.ethtool = std::move(interposed);
  StatsReader reader(system_, "lan2");
  auto values = reader.values();
  ASSERT_TRUE(values.ok()) << values.error().message;
  EXPECT_EQ(values->size(), count_now());
  // GSSET_INFO, GSTATS (EFAULT at the guard page), GSSET_INFO, GSTATS, and count_now's two.
  const std::vector<uint32_t> expected = {ETHTOOL_GSSET_INFO, ETHTOOL_GSTATS,
                                          ETHTOOL_GSSET_INFO, ETHTOOL_GSTATS,
                                          ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS};
  EXPECT_EQ(seen.commands, expected);
}

// In two halves (the poller's batch), the call is the second read's afterwards: the values lie
// in its buffer and its times bracket the GSTATS that brought them.
TEST_F(StatsGrowth, AfterARereadTheCallDescribesTheReadItsValuesCameFrom) {
  int gstats = 0;
  std::chrono::steady_clock::time_point second_read;
  system_.ethtool = std::make_unique<Interposed>(std::move(system_.ethtool), [&](uint32_t cmd) {
    if (cmd != ETHTOOL_GSTATS) return;
    if (++gstats == 1) open_channels(16);  // the buffer must grow: 510 more values
    if (gstats == 2) second_read = std::chrono::steady_clock::now();
  });
  StatsReader reader(system_, "lan2");
  auto call = reader.values_call();
  ASSERT_TRUE(call.ok()) << call.error().message;
  system_.ethtool->call_batch(std::span(&*call, 1));
  auto values = reader.values_answered(*call);
  ASSERT_TRUE(values.ok()) << values.error().message;
  ASSERT_EQ(gstats, 2);
  EXPECT_EQ(values->size(), count_now());
  const auto* first = reinterpret_cast<const uint64_t*>(call->buffer.data());
  const auto* end = reinterpret_cast<const uint64_t*>(call->buffer.data() + call->buffer.size());
  EXPECT_TRUE(values->data() >= first && values->data() + values->size() <= end);
  EXPECT_LE(call->issued, second_read);
  EXPECT_GE(call->answered, second_read);
}

// A count already read is the next GSTATS's: no GSSET_INFO a read while it holds. On this node's
// kernel (Debian 6.1.115, before the count check) growth is EFAULT at the guard page.
TEST_F(StatsGrowth, AKeptCountIsReadWithoutCountingAgainUntilItChanges) {
  auto interposed = std::make_unique<Interposed>(std::move(system_.ethtool), [](uint32_t) {});
  Interposed& seen = *interposed;
  system_.ethtool = std::move(interposed);
  StatsReader reader(system_, "lan2");
  ASSERT_TRUE(reader.names().ok());
  seen.commands.clear();
  ASSERT_TRUE(reader.values().ok());
  ASSERT_TRUE(reader.values().ok());
  EXPECT_EQ(seen.commands, (std::vector<uint32_t>{ETHTOOL_GSTATS, ETHTOOL_GSTATS}));
  open_channels(4);
  seen.commands.clear();
  auto values = reader.values();
  ASSERT_TRUE(values.ok()) << values.error().message;
  EXPECT_EQ(seen.commands,
            (std::vector<uint32_t>{ETHTOOL_GSTATS, ETHTOOL_GSSET_INFO, ETHTOOL_GSTATS}));
  EXPECT_EQ(values->size(), count_now());
}

// A kernel that checks the caller's count (mainline 7b07be1ff1cb; the node's trixie kernel,
// Debian 6.12.117) answers a changed one with none: counted again, not taken for no values.
class StatsGrowthCheckedCount : public StatsGrowth {
 protected:
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.kernel_package = "Debian 6.12.117-1";
  }
};

TEST_F(StatsGrowthCheckedCount, AChangedCountAnsweredWithNoneIsCountedAgain) {
  StatsReader reader(system_, "lan2");
  ASSERT_TRUE(reader.names().ok());
  ASSERT_TRUE(reader.values().ok());
  open_channels(4);
  auto values = reader.values();
  ASSERT_TRUE(values.ok()) << values.error().message;
  EXPECT_EQ(values->size(), count_now());
  open_channels(8);
  auto call = reader.values_call();
  ASSERT_TRUE(call.ok());
  system_.ethtool->call_batch(std::span(&*call, 1));
  ASSERT_TRUE(call->result.ok());
  EXPECT_EQ(reinterpret_cast<const ethtool_stats*>(call->buffer.data())->n_stats, 0u);
  values = reader.values_answered(*call);
  ASSERT_TRUE(values.ok()) << values.error().message;
  EXPECT_EQ(values->size(), count_now());
}

TEST_F(StatsGrowth, GrowthOnEveryAttemptIsAnErrorNotAnOverrun) {
  uint32_t channels = 1;
  system_.ethtool = std::make_unique<Interposed>(std::move(system_.ethtool), [&](uint32_t cmd) {
    if (cmd == ETHTOOL_GSTATS) open_channels(++channels);
  });
  auto values = StatsReader(system_, "lan2").values();
  ASSERT_FALSE(values.ok());
  EXPECT_EQ(values.error().code, EAGAIN);
}

TEST_F(StatsGrowth, ThePollerReadsTheGrownSetByName) {
  watchdog::PortPoller poller(system_, "lan2", time_);
  ASSERT_TRUE(poller.read().ok());
  open_channels(32);
  auto counters = poller.read();
  ASSERT_TRUE(counters.ok()) << counters.error().message;
  EXPECT_EQ(counters->netdev, "lan2");
}

// The transport itself: a reply longer than a buffer that ends at a guard page is EFAULT, with
// the part that fits written, as copy_to_user leaves it.
TEST(SimEthtoolReply, ALongerReplyStopsAtTheGuardPage) {
  GuardedBuffer buffer;
  auto room = buffer.reserve(16);
  ASSERT_TRUE(room.ok());
  roce_sim_ethtool_rep header{0, 24};
  std::vector<uint8_t> reply(sizeof header + 24, 0xab);
  std::memcpy(reply.data(), &header, sizeof header);
  auto decoded = roce_sim::decode_sim_ethtool_reply(reply, "lan2", *room);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().code, EFAULT);
  EXPECT_EQ((*room)[15], 0xab);
}

TEST(SimEthtoolReplyDeathTest, ALongerReplyWithMemoryAfterTheBufferStopsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<uint8_t> memory(64, 0);
  roce_sim_ethtool_rep header{0, 24};
  std::vector<uint8_t> reply(sizeof header + 24, 0xab);
  std::memcpy(reply.data(), &header, sizeof header);
  EXPECT_DEATH((void)roce_sim::decode_sim_ethtool_reply(reply, "lan2", {memory.data(), 16}),
               "overwrite the caller's memory");
}

}  // namespace
}  // namespace roced
