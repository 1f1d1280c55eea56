// SPDX-License-Identifier: Apache-2.0
// The storm watchdog's poller across a 32-bit ethtool counter's wrap, on roce-sim's model: mlx5
// reads rx_out_of_buffer (the Q counter) and the PCIe counters from 32-bit firmware fields
// (en_stats.c MLX5E_READ_CTR32_CPU / _BE), so they start again from 0 past 2^32. A wrap is a
// count, not a reset; a counter that drops otherwise still is one.
#include <gtest/gtest.h>
#include <roce_sim.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <vector>

#include "daemon/watchdog/port_poller.hpp"
#include "in_process_node.hpp"

namespace roced {
namespace {

constexpr uint64_t kTwoTo32 = uint64_t{1} << 32;

class CounterWrap : public test::InProcessNode {
 protected:
  void SetUp() override {
    InProcessNode::SetUp();
    previous_ = spdlog::default_logger();
    sink_ = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
    auto logger = std::make_shared<spdlog::logger>("wrap-test", sink_);
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);
  }
  void TearDown() override {
    spdlog::set_default_logger(previous_);
    InProcessNode::TearDown();
  }
  void set(const std::function<void(roce_sim::PortCounters&)>& change) {
    node_->change([&](roce_sim::Node& node) { change(node.find("lan2")->counters()); });
  }
  size_t lines_with(const std::string& text) {
    size_t n = 0;
    for (const auto& line : sink_->last_formatted()) n += line.find(text) != std::string::npos;
    return n;
  }
  std::shared_ptr<spdlog::logger> previous_;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
};

TEST_F(CounterWrap, AThirtyTwoBitCounterPassing2To32IsAWrapNotAReset) {
  watchdog::PortPoller poller(system_, "lan2", time_);
  set([](roce_sim::PortCounters& c) {
    c.rx_out_of_buffer = kTwoTo32 - 100;
    c.tx_pci_signal_integrity = kTwoTo32 - 1;
  });
  ASSERT_TRUE(poller.read().ok());
  set([](roce_sim::PortCounters& c) {
    c.rx_out_of_buffer += 300;  // reads 200
    c.tx_pci_signal_integrity += 2;
  });
  ASSERT_TRUE(poller.read().ok());
  EXPECT_EQ(lines_with("went backwards"), 0u);
  EXPECT_EQ(lines_with("rx_out_of_buffer (32-bit in firmware) wrapped: 4294967196 -> 200, 300"),
            1u);
  EXPECT_EQ(poller.counter_wraps(), 2u);
  EXPECT_EQ(poller.counter_resets(), 0u);
}

// outbound_pci_stalled_wr is the share of the last second the NIC's PCIe writes stalled
// (mlx5 counters.rst): it falls as often as it rises, and its fall is neither a wrap nor a reset
// that would cost the watchdog a poll.
TEST_F(CounterWrap, APcieStallGaugeFallingIsNoResetAndTheWatchdogJudgesThePoll) {
  watchdog::PortPoller poller(system_, "lan2", time_);
  set([](roce_sim::PortCounters& c) { c.outbound_pci_stalled_wr = 80; });
  ASSERT_TRUE(poller.read().ok());
  set([](roce_sim::PortCounters& c) { c.outbound_pci_stalled_wr = 5; });
  ASSERT_TRUE(poller.read().ok());
  EXPECT_EQ(lines_with("went backwards"), 0u);
  EXPECT_EQ(poller.counter_resets(), 0u);
  EXPECT_EQ(poller.counter_wraps(), 0u);
}

TEST_F(CounterWrap, ADroppingSixtyFourBitCounterMakesTheReadingAReset) {
  watchdog::PortPoller poller(system_, "lan2", time_);
  set([](roce_sim::PortCounters& c) {
    c.rx_out_of_buffer = kTwoTo32 - 100;
    c.rx_discards_phy = 5000;
  });
  ASSERT_TRUE(poller.read().ok());
  // Both went down: counters cleared together (mlxlink, a firmware reset), not a wrap.
  set([](roce_sim::PortCounters& c) {
    c.rx_out_of_buffer = 10;
    c.rx_discards_phy = 3;
  });
  ASSERT_TRUE(poller.read().ok());
  EXPECT_EQ(lines_with("went backwards"), 1u);
  EXPECT_EQ(poller.counter_wraps(), 0u);
  EXPECT_EQ(poller.counter_resets(), 1u);
}

TEST_F(CounterWrap, AThirtyTwoBitCounterDroppingFromItsLowerHalfIsAReset) {
  // The driver reload's new Q counter starts from 0 (en_main.c mlx5e_create_q_counters): no
  // counter of these climbs 2^31 between two polls, so a drop from 5000 is no wrap.
  watchdog::PortPoller poller(system_, "lan2", time_);
  set([](roce_sim::PortCounters& c) { c.rx_out_of_buffer = 5000; });
  ASSERT_TRUE(poller.read().ok());
  set([](roce_sim::PortCounters& c) { c.rx_out_of_buffer = 7; });
  ASSERT_TRUE(poller.read().ok());
  EXPECT_EQ(lines_with("went backwards"), 1u);
  EXPECT_EQ(poller.counter_wraps(), 0u);
  EXPECT_EQ(poller.counter_resets(), 1u);
}

}  // namespace
}  // namespace roced
