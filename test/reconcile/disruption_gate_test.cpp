// SPDX-License-Identifier: Apache-2.0
// The disruption gate: no more ports inside than the limit, and waiting ports let in in the order
// they came (the log told each which port it waits for; a later one must not jump the queue).
#include "daemon/reconcile/disruption_gate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace roced::reconcile {
namespace {

using namespace std::chrono_literals;

// Without moving any clock: the real patience is for a hang only.
bool eventually(const std::function<bool()>& done) {
  const auto give_up = std::chrono::steady_clock::now() + 60s;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(DisruptionGate, WaitingPortsGoInTheOrderTheyCame) {
  DisruptionGate gate(real_time(), 1);
  std::atomic<bool> stop{false};
  const auto stopping = [&] { return stop.load(); };
  auto first = gate.enter("lan2", stopping);
  ASSERT_TRUE(first);
  EXPECT_FALSE(first.waited());

  std::mutex mutex;
  std::vector<std::string> order;
  std::atomic<int> waiting{0};
  std::vector<std::future<void>> ports;
  for (const std::string netdev : {"lan3", "lan4", "lan5", "lan6", "lan7"}) {
    const int before = waiting.load();
    ports.push_back(std::async(std::launch::async, [&, netdev] {
      auto slot = gate.enter(netdev, stopping, [&](const std::set<std::string>&) { ++waiting; });
      ASSERT_TRUE(slot);
      EXPECT_TRUE(slot.waited());
      EXPECT_EQ(gate.holders(), std::set<std::string>{netdev});  // alone inside
      std::lock_guard lock(mutex);
      order.push_back(netdev);
    }));
    // Queued before the next one asks.
    ASSERT_TRUE(eventually([&] { return waiting.load() == before + 1; }));
  }
  first = {};
  for (auto& port : ports) ASSERT_EQ(port.wait_for(60s), std::future_status::ready);
  EXPECT_EQ(order, (std::vector<std::string>{"lan3", "lan4", "lan5", "lan6", "lan7"}));
  EXPECT_TRUE(gate.holders().empty());
}

TEST(DisruptionGate, AStopLetsTheWaitingGoEmptyHanded) {
  DisruptionGate gate(real_time(), 1);
  std::atomic<bool> stop{false};
  const auto stopping = [&] { return stop.load(); };
  auto held = gate.enter("lan2", stopping);
  std::atomic<bool> queued{false};
  auto waiter = std::async(std::launch::async, [&] {
    return static_cast<bool>(
        gate.enter("lan3", stopping, [&](const std::set<std::string>&) { queued = true; }));
  });
  ASSERT_TRUE(eventually([&] { return queued.load(); }));
  stop = true;
  gate.wake_all();
  ASSERT_EQ(waiter.wait_for(60s), std::future_status::ready);
  EXPECT_FALSE(waiter.get());
  EXPECT_EQ(gate.holders(), std::set<std::string>{"lan2"});
  // A later port is not stuck behind the one that gave up.
  held = {};
  stop = false;
  EXPECT_TRUE(gate.enter("lan4", stopping));
}

}  // namespace
}  // namespace roced::reconcile
