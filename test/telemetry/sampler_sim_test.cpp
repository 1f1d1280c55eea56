// SPDX-License-Identifier: Apache-2.0
// sample_port against a running roce-sim (default node: lan2..lan5 on mlx5_0..mlx5_3).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "dcb/client.hpp"
#include "ethtool/ethtool.hpp"
#include "in_process_node.hpp"
#include "link/link.hpp"
#include "port/discovery.hpp"
#include "rdma/hw_counters.hpp"
#include "sampling/stats_poller.hpp"
#include "telemetry/metric_families.hpp"
#include "telemetry/node_sampler.hpp"
#include "telemetry/sampler.hpp"

namespace roced::telemetry {
namespace {

class SamplerSim : public roced::test::InProcessNode {
 protected:
  void SetUp() override { InProcessNode::SetUp(); }
  // How many QUERY_CONG_STATISTICS commands the netdev's firmware has run: one of the three
  // each RDMA counter read costs on mlx5 (hw/mlx5/counters.c do_get_hw_stats).
  uint64_t cong_queries(const std::string& netdev) {
    uint64_t n = 0;
    node_->inspect([&](roce_sim::Node& node) {
      const auto& commands = node.find(netdev)->firmware_commands();
      if (auto it = commands.find("QUERY_CONG_STATISTICS"); it != commands.end()) n = it->second.n;
    });
    return n;
  }
  DiscoveredPort lan2() {
    auto port = describe_netdev(*system_.files, "lan2");
    EXPECT_TRUE(port.ok()) << (port.ok() ? "" : port.error().message);
    return port.ok() ? *port : DiscoveredPort{};
  }
};

TEST_F(SamplerSim, SamplesEverySourceOfAPort) {
  const DiscoveredPort port = lan2();
  ASSERT_EQ(port.rdma_device, "mlx5_0");
  const PortSample sample = sample_port(system_, port);

  EXPECT_TRUE(sample.errors.empty()) << sample.errors.front();
  EXPECT_EQ(sample.netdev, "lan2");
  EXPECT_EQ(sample.rdma_device, "mlx5_0");
  EXPECT_EQ(sample.rdma_port, 1);
  EXPECT_TRUE(sample.link_known);
  EXPECT_TRUE(sample.link_up);
  EXPECT_EQ(sample.mtu, 1500u);

  // A steady node with no traffic: the counters exist and read zero.
  ASSERT_EQ(sample.ethtool.count("rx_discards_phy"), 1u);
  EXPECT_EQ(sample.ethtool.at("rx_discards_phy"), 0u);
  ASSERT_EQ(sample.rdma.count("np_cnp_sent"), 1u);
  EXPECT_EQ(sample.rdma.at("np_cnp_sent"), 0u);
  ASSERT_EQ(sample.rdma.count("out_of_sequence"), 1u);
  // PFC is off by default: mlx5 has no per-priority pause names, and they are absent, not 0.
  EXPECT_EQ(sample.ethtool.count("rx_prio3_pause"), 0u);
}

TEST_F(SamplerSim, NamesAreReReadAfterAPfcChange) {
  const DiscoveredPort port = lan2();
  EXPECT_EQ(sample_port(system_, port).ethtool.count("rx_prio3_pause"), 0u);

  dcb::DcbClient dcb(system_);
  auto state = dcb.get("lan2");
  ASSERT_TRUE(state.ok()) << state.error().message;
  ASSERT_TRUE(state->pfc.has_value());
  dcb::Pfc pfc = *state->pfc;
  pfc.enabled_mask = 1u << 3;
  ASSERT_TRUE(dcb.set_pfc("lan2", pfc).ok());

  const PortSample after = sample_port(system_, port);
  EXPECT_TRUE(after.errors.empty()) << after.errors.front();
  for (const char* name : {"rx_prio3_pause", "rx_prio3_pause_duration", "rx_prio3_pause_transition",
                           "tx_prio3_pause", "tx_prio3_pause_duration"}) {
    ASSERT_EQ(after.ethtool.count(name), 1u) << name;
    EXPECT_EQ(after.ethtool.at(name), 0u) << name;
  }
  EXPECT_EQ(after.ethtool.count("rx_prio4_pause"), 0u);
}

TEST_F(SamplerSim, LinkStateFollowsAdminDownAndMtu) {
  const DiscoveredPort port = lan2();
  LinkClient links(system_);
  ASSERT_TRUE(links.set_mtu("lan2", 4200).ok());
  ASSERT_TRUE(links.set_admin_up("lan2", false).ok());
  const PortSample sample = sample_port(system_, port);
  EXPECT_TRUE(sample.link_known);
  EXPECT_FALSE(sample.link_up);
  EXPECT_EQ(sample.mtu, 4200u);
}

TEST_F(SamplerSim, PortWithoutRdmaDeviceHasNoRdmaCountersAndNoError) {
  DiscoveredPort port = lan2();
  port.rdma_device.clear();
  port.rdma_port = 0;
  const PortSample sample = sample_port(system_, port);
  EXPECT_TRUE(sample.errors.empty()) << sample.errors.front();
  EXPECT_TRUE(sample.rdma.empty());
  EXPECT_FALSE(sample.ethtool.empty());
}

TEST_F(SamplerSim, AFailedSourceIsRecordedAndLeftEmpty) {
  DiscoveredPort port = lan2();
  port.netdev = "nosuch0";  // ethtool and link fail; hw_counters of mlx5_0 still read
  const PortSample sample = sample_port(system_, port);
  EXPECT_TRUE(sample.ethtool.empty());
  EXPECT_FALSE(sample.link_known);
  EXPECT_FALSE(sample.link_up);
  EXPECT_EQ(sample.mtu, 0u);
  EXPECT_EQ(sample.rdma.count("np_cnp_sent"), 1u);
  ASSERT_EQ(sample.errors.size(), 2u);
  EXPECT_EQ(sample.errors[0].rfind("ethtool stats: ", 0), 0u) << sample.errors[0];
  EXPECT_EQ(sample.errors[1].rfind("link: ", 0), 0u) << sample.errors[1];
}

}  // namespace
}  // namespace roced::telemetry

namespace roced::telemetry {
namespace {

// With a recent reading in the statistics poller (the one the storm watchdog drives), a node
// sample serves it: no statistics read reaches the NIC, so none of its firmware commands (mlx5's
// debugfs commands/ count them; QUERY_VNIC_ENV is the statistics read's alone, the RDMA counters'
// read has its own), and the age is said. A reading older than the limit is read again.
TEST_F(SamplerSim, ARecentReadingIsServedWithoutAFirmwareCommand) {
  const DiscoveredPort port = lan2();
  auto poller = std::make_shared<sampling::StatsPoller>(system_, time_);
  ASSERT_TRUE(poller->round({"lan2"}, {})[0].reading.ok());
  // After the reading, so that a fresh read is told apart from the served one.
  node_->change([](roce_sim::Node& node) { node.find("lan2")->counters().rx_discards_phy = 4242; });
  time_.advance(std::chrono::milliseconds(500));

  const std::string commands = "/sys/kernel/debug/mlx5/" + port.pci + "/commands/QUERY_VNIC_ENV/n";
  const auto commands_now = [&] {
    auto text = system_.files->read(commands);
    return text.ok() ? std::stoull(*text) : 0ull;
  };
  NodeSampler sampler(system_, [&] {
    PortTarget target;
    target.port = port;
    return std::vector<PortTarget>{target};
  });
  sampler.use_time(time_);
  sampler.use_poller(poller, std::chrono::seconds(1));
  const uint64_t before = commands_now();
  const NodeSample served_sample = sampler.sample();
  ASSERT_EQ(served_sample.ports.size(), 1u);
  EXPECT_EQ(served_sample.ports[0].ethtool.at("rx_discards_phy"), 0u);
  // Only what a family exports is copied from the reading: mlx5's rx_packets is not.
  EXPECT_EQ(served_sample.ports[0].ethtool.count("rx_packets"), 0u);
  for (const auto& [name, value] : served_sample.ports[0].ethtool) {
    EXPECT_TRUE(exports_ethtool_stat(name)) << name;
  }
  EXPECT_EQ(served_sample.ports[0].ethtool_age, std::chrono::milliseconds(500));
  EXPECT_EQ(commands_now(), before);

  time_.advance(std::chrono::milliseconds(600));  // older than the limit: read through the poller
  const NodeSample read_sample = sampler.sample();
  EXPECT_EQ(read_sample.ports[0].ethtool.at("rx_discards_phy"), 4242u);
  EXPECT_EQ(read_sample.ports[0].ethtool_age, std::chrono::steady_clock::duration::zero());
  EXPECT_GT(commands_now(), before);
}

// rx_out_of_buffer is the Q counter, a 32-bit firmware field (en_stats.c q_stats_desc,
// MLX5E_READ_CTR32_CPU) that starts again from 0 past 2^32: the exported counter carries the
// wrap and keeps increasing. A driver reload allocates a new Q counter (en_main.c
// mlx5e_create_q_counters), from 0: no wrap is invented then.
TEST_F(SamplerSim, AThirtyTwoBitEthtoolCounterKeepsIncreasingAcrossItsWrap) {
  const DiscoveredPort port = lan2();
  NodeSampler sampler(system_, [&] {
    PortTarget target;
    target.port = port;
    return std::vector<PortTarget>{target};
  });
  sampler.use_time(time_);
  constexpr uint64_t kTwoTo32 = uint64_t{1} << 32;
  const auto set = [&](uint64_t value) {
    node_->change(
        [&](roce_sim::Node& node) { node.find("lan2")->counters().rx_out_of_buffer = value; });
  };
  const auto exported = [&](const NodeSample& sample) {
    const std::string text = exposition_text(sample, ExporterInfo{"test"});
    const std::string series =
        "roce_port_out_of_buffer_total{netdev=\"lan2\",device=\"mlx5_0\",port=\"1\"} ";
    const auto at = text.find(series);
    EXPECT_NE(at, std::string::npos) << text.substr(0, 400);
    return at == std::string::npos
               ? std::string()
               : text.substr(at + series.size(), text.find('\n', at) - at - series.size());
  };
  set(kTwoTo32 - 100);
  const NodeSample first = sampler.sample();
  ASSERT_EQ(first.ports[0].ethtool.count("rx_out_of_buffer"), 1u);
  EXPECT_EQ(first.ports[0].ethtool.at("rx_out_of_buffer"), kTwoTo32 - 100);
  EXPECT_EQ(exported(first), "4294967196");
  set(kTwoTo32 + 200);  // the NIC reads 200
  const NodeSample second = sampler.sample();
  EXPECT_EQ(second.ports[0].ethtool.at("rx_out_of_buffer"), kTwoTo32 + 200);
  EXPECT_EQ(exported(second), "4294967496");

  node_->change([](roce_sim::Node& node) {
    node.unbind("lan2");
    node.rebind("lan2");
    node.find("lan2")->counters().rx_out_of_buffer = 7;  // counted since the reload
  });
  const NodeSample third = sampler.sample();
  EXPECT_EQ(third.ports[0].ethtool.at("rx_out_of_buffer"), kTwoTo32 + 207);
}

// A scrape opens only the hw_counters files a family exports: the listing scrape and the ones
// reading by name alike. The simulated mlx5 port has counters no family takes (rx_read_requests).
TEST_F(SamplerSim, OnlyTheExportedHwCountersAreRead) {
  const DiscoveredPort port = lan2();
  auto listed = system_.files->list("/sys/class/infiniband/" + port.rdma_device + "/ports/" +
                                    std::to_string(port.rdma_port) + "/hw_counters");
  ASSERT_TRUE(listed.ok());
  ASSERT_NE(std::find(listed->begin(), listed->end(), "rx_read_requests"), listed->end());
  NodeSampler sampler(system_, [&] {
    PortTarget target;
    target.port = port;
    return std::vector<PortTarget>{target};
  });
  for (int scrape = 0; scrape < 2; ++scrape) {  // the first lists the directory, the next do not
    const NodeSample sample = sampler.sample();
    ASSERT_EQ(sample.ports.size(), 1u);
    const auto& rdma = sample.ports[0].rdma;
    EXPECT_EQ(rdma.count("np_cnp_sent"), 1u) << "scrape " << scrape;
    EXPECT_EQ(rdma.count("rx_read_requests"), 0u) << "scrape " << scrape;
    for (const auto& [name, value] : rdma) EXPECT_TRUE(exports_hw_counter(name)) << name;
  }
}

// The RDMA counters of every port come from RDMA netlink, one RDMA_NLDEV_CMD_STAT_GET each (the
// driver's three firmware queries, hw/mlx5/counters.c do_get_hw_stats), with the files' values.
TEST_F(SamplerSim, RdmaCountersComeFromOneNetlinkRequestPerPort) {
  const DiscoveredPort port = lan2();
  NodeSampler sampler(system_, [&] {
    PortTarget target;
    target.port = port;
    return std::vector<PortTarget>{target};
  });
  const uint64_t before = cong_queries("lan2");
  const NodeSample sample = sampler.sample();
  EXPECT_EQ(cong_queries("lan2"), before + 1);
  ASSERT_EQ(sample.ports.size(), 1u);
  EXPECT_TRUE(sample.sources.at("rdma").ok);
  auto files = rdma::read_hw_counters(*system_.files, port.rdma_device, port.rdma_port);
  ASSERT_TRUE(files.ok());
  std::erase_if(*files, [](const auto& entry) { return !exports_hw_counter(entry.first); });
  EXPECT_EQ(sample.ports[0].rdma, *files);
}

// The daemon's background reading (refresh_rdma) is what a sample serves while it is at most the
// limit old: no RDMA netlink request, so none of the driver's firmware queries, and its age said.
// Older than the limit, or not covering a port, the sample reads the NICs itself.
TEST_F(SamplerSim, AKeptRdmaReadingIsServedWhileFreshAndReadAgainWhenOld) {
  using namespace std::chrono_literals;
  std::vector<std::string> netdevs = {"lan2"};
  NodeSampler sampler(system_, [&] {
    std::vector<PortTarget> targets;
    for (const auto& netdev : netdevs) {
      PortTarget target;
      target.port = *describe_netdev(*system_.files, netdev);
      targets.push_back(target);
    }
    return targets;
  });
  sampler.use_time(time_);
  sampler.keep_rdma_readings(2s);

  const uint64_t before = cong_queries("lan2");
  sampler.refresh_rdma();
  EXPECT_EQ(cong_queries("lan2"), before) << "no sample has asked yet: nothing read";
  (void)sampler.sample();  // reads them itself
  EXPECT_EQ(cong_queries("lan2"), before + 1);
  sampler.refresh_rdma();
  EXPECT_EQ(cong_queries("lan2"), before + 2);
  time_.advance(1500ms);
  const NodeSample served = sampler.sample();
  EXPECT_EQ(cong_queries("lan2"), before + 2) << "served from the background reading";
  ASSERT_EQ(served.ports.size(), 1u);
  EXPECT_EQ(served.ports[0].rdma_age, 1500ms);
  EXPECT_EQ(served.ports[0].rdma.count("np_cnp_sent"), 1u);
  EXPECT_TRUE(served.sources.at("rdma").ok);

  time_.advance(1s);  // 2.5 s old: too old
  const NodeSample old = sampler.sample();
  EXPECT_EQ(cong_queries("lan2"), before + 3);
  EXPECT_EQ(old.ports[0].rdma_age, std::chrono::steady_clock::duration::zero());

  netdevs.push_back("lan3");  // fresh (the last sample's read), but lan3 was not in it
  const NodeSample wider = sampler.sample();
  EXPECT_EQ(cong_queries("lan2"), before + 4);
  ASSERT_EQ(wider.ports.size(), 2u);
  EXPECT_EQ(wider.ports[1].rdma.count("np_cnp_sent"), 1u);

  sampler.keep_rdma_readings(0s);  // the default: every sample reads
  (void)sampler.sample();
  EXPECT_EQ(cong_queries("lan2"), before + 5);
}

// Nobody scrapes any more: the background reading stops once no sample has asked for
// kRdmaIdleAfter, or for three of the gaps between the last samples when those are longer.
TEST_F(SamplerSim, TheBackgroundRdmaReadingStopsWhenNoScrapeAsks) {
  using namespace std::chrono_literals;
  NodeSampler sampler(system_, [&] {
    PortTarget target;
    target.port = *describe_netdev(*system_.files, "lan2");
    return std::vector<PortTarget>{target};
  });
  sampler.use_time(time_);
  sampler.keep_rdma_readings(2s);
  (void)sampler.sample();
  const uint64_t asked = cong_queries("lan2");
  time_.advance(NodeSampler::kRdmaIdleAfter - 1s);
  sampler.refresh_rdma();
  EXPECT_EQ(cong_queries("lan2"), asked + 1) << "a sample asked within kRdmaIdleAfter";
  time_.advance(2s);
  sampler.refresh_rdma();
  EXPECT_EQ(cong_queries("lan2"), asked + 1) << "none asked for longer: not read";

  // Scrapes five minutes apart keep it going for fifteen.
  (void)sampler.sample();  // served nothing fresh: reads
  time_.advance(5min);
  (void)sampler.sample();
  const uint64_t slow = cong_queries("lan2");
  time_.advance(14min);
  sampler.refresh_rdma();
  EXPECT_EQ(cong_queries("lan2"), slow + 1);
  time_.advance(2min);
  sampler.refresh_rdma();
  EXPECT_EQ(cong_queries("lan2"), slow + 1);
}

// Where the system has no NETLINK_RDMA the hw_counters files are read, with the same result.
TEST_F(SamplerSim, WithoutRdmaNetlinkTheFilesAreRead) {
  system_.open_rdma_netlink = nullptr;
  const DiscoveredPort port = lan2();
  NodeSampler sampler(system_, [&] {
    PortTarget target;
    target.port = port;
    return std::vector<PortTarget>{target};
  });
  const NodeSample sample = sampler.sample();
  ASSERT_EQ(sample.ports.size(), 1u);
  EXPECT_TRUE(sample.sources.at("rdma").ok);
  EXPECT_EQ(sample.ports[0].rdma.count("np_cnp_sent"), 1u);
  node_->inspect([&](roce_sim::Node& node) {
    EXPECT_EQ(node.find("lan2")->firmware_commands().count("QUERY_CONG_STATISTICS"), 0u);
  });
}

}  // namespace
}  // namespace roced::telemetry
