// SPDX-License-Identifier: Apache-2.0
// NodeSampler over a scratch node directory (no roce-sim: ethtool and link fail, the hw_counters
// files are ours to write): 32-bit wraps carried into 64-bit totals, resets counted, a port no
// longer targeted forgotten.
#include "telemetry/node_sampler.hpp"
#include "sim/transport/simulated_system.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace roced::telemetry {
namespace {

namespace fs = std::filesystem;

class NodeSamplerTree : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/roced-node-sampler-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    system_ = std::make_unique<System>(roce_sim::simulated_system(dir_));
    fs::create_directories(system_->files->resolve(kCounters));
  }
  void TearDown() override { fs::remove_all(dir_); }

  void set(const std::string& counter, uint64_t value) {
    std::ofstream(system_->files->resolve(kCounters + "/" + counter)) << value << "\n";
  }
  // Samples the netdevs in netdevs_ at the time of each sample (all on mlx5_0 port 1).
  NodeSampler sampler() {
    return NodeSampler(*system_, [this] {
      std::vector<PortTarget> targets;
      for (const auto& netdev : netdevs_) {
        PortTarget target;
        target.port =
            DiscoveredPort{netdev, "mlx5_core", "0000:17:00.0", "mlx5_0", 1, "mlx5_core", true};
        targets.push_back(target);
      }
      return targets;
    });
  }

  static inline const std::string kCounters = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters";
  fs::path dir_;
  std::unique_ptr<System> system_;
  std::vector<std::string> netdevs_ = {"lan2"};
};

TEST_F(NodeSamplerTree, WrapsAreCarriedAndResetsCounted) {
  set("out_of_sequence", 4'294'967'000);  // 32-bit Q counter near its top
  set("np_cnp_sent", 10);                 // 64-bit congestion counter
  NodeSampler node = sampler();

  NodeSample first = node.sample();
  ASSERT_EQ(first.ports.size(), 1u);
  EXPECT_EQ(first.ports[0].rdma_totals.at("out_of_sequence"), 4'294'967'000u);
  EXPECT_EQ(first.ports[0].rdma_totals.at("np_cnp_sent"), 10u);
  EXPECT_TRUE(first.sources.at("rdma").ok);
  EXPECT_FALSE(first.sources.at("ethtool").ok);  // no roce-sim behind this directory
  EXPECT_FALSE(first.sources.at("link").ok);

  set("out_of_sequence", 100);  // wrapped: 296 to the top, then 100
  set("np_cnp_sent", 3);        // a 64-bit counter going down: a driver reload
  const NodeSample second = node.sample();
  const PortSample& port = second.ports[0];
  EXPECT_EQ(port.rdma.at("out_of_sequence"), 100u);
  EXPECT_EQ(port.rdma_totals.at("out_of_sequence"), (uint64_t{1} << 32) + 100);
  EXPECT_EQ(port.rdma_totals.at("np_cnp_sent"), 13u);  // 10 before, 3 since the restart
  EXPECT_EQ(port.counter_wraps, 1u);
  EXPECT_EQ(port.counter_resets, 1u);
}

TEST_F(NodeSamplerTree, APortNoLongerTargetedStartsAfreshWhenItReturns) {
  set("out_of_sequence", 4'294'967'000);
  NodeSampler node = sampler();
  node.sample();
  netdevs_.clear();
  EXPECT_TRUE(node.sample().ports.empty());
  netdevs_ = {"lan2"};
  set("out_of_sequence", 100);
  const NodeSample back = node.sample();
  // Forgotten in between: 100 is a new baseline, not a wrap from 4294967000.
  EXPECT_EQ(back.ports[0].rdma_totals.at("out_of_sequence"), 100u);
  EXPECT_EQ(back.ports[0].counter_wraps, 0u);
}

}  // namespace
}  // namespace roced::telemetry
