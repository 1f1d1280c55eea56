// SPDX-License-Identifier: Apache-2.0
// The path probing module on a simulated fabric (test/support/probe_fabric.hpp) and a clock the
// test moves: what it serves, what it finds, and that it does nothing until switched on.
#include "daemon/probe/probe_module.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "test/support/build_paths.hpp"
#include "test/support/exposition_families.hpp"
#include "test/support/probe_fabric.hpp"

namespace roced::probe_module {
namespace {

using namespace std::chrono_literals;
using test::ProbeFabric;
using TimePoint = TimeSource::TimePoint;

const TimePoint kStart = TimePoint{} + 1000s;

class TestClock final : public TimeSource {
 public:
  TimePoint now() const override { return now_; }
  WallTime wall_now() const override { return WallTime{} + (now_ - TimePoint{}); }
  bool wait_until(std::unique_lock<std::mutex>&, std::condition_variable&, TimePoint,
                  const std::function<bool()>& ready) override {
    return ready();
  }
  void wait(std::unique_lock<std::mutex>&, std::condition_variable&,
            const std::function<bool()>&) override {}
  void sleep_until(TimePoint) override {}
  int poll_until(std::span<pollfd>, TimePoint) override { return 0; }
  std::chrono::nanoseconds thread_cpu_time() const override { return {}; }
  TimePoint now_ = kStart;
};

// A fabric endpoint handed to the module, which owns what it is given.
class FabricPort final : public probe::ProbeTransport {
 public:
  explicit FabricPort(ProbeFabric::Endpoint& endpoint) : endpoint_(endpoint) {}
  Result<void> post(const probe::Remote& to, const probe::MessageBytes& message,
                    uint32_t flow_label, uint64_t wr) override {
    return endpoint_.post(to, message, flow_label, wr);
  }
  void poll(std::vector<probe::Completion>& out) override { endpoint_.poll(out); }

 private:
  ProbeFabric::Endpoint& endpoint_;
};

// Node A (the module, two ports) and two responders, B under tor1 and C under tor2.
struct Fabric {
  ProbeFabric fabric{kStart};
  TestClock clock;
  ProbeFabric::Endpoint& a0 = fabric.add("10.0.0.1", 1);
  ProbeFabric::Endpoint& a1 = fabric.add("10.0.1.1", 2);
  ProbeFabric::Endpoint& b = fabric.add("10.0.0.2", 3);
  ProbeFabric::Endpoint& c = fabric.add("10.0.0.3", 4);
  probe::ProbeEngine rb{settings(), {{"b0", &b, {}}}, kStart, 8};
  probe::ProbeEngine rc{settings(), {{"c0", &c, {}}}, kStart, 9};
  std::vector<ProbeEndpoint> endpoints{{"a0", "10.0.0.1", 106, 3, ""},
                                       {"a1", "10.0.1.1", 106, 3, ""}};
  std::vector<std::string> opened;

  static probe::ProbeSettings settings() {
    probe::ProbeSettings s;
    s.enabled = true;
    s.peers = {{"10.0.0.2", "tor1"}, {"10.0.0.3", "tor2"}};
    return s;
  }
  std::unique_ptr<ProbeModule> module(const probe::ProbeSettings& s = settings()) {
    return std::make_unique<ProbeModule>(
        [this] { return endpoints; },
        [this](const ProbeEndpoint& endpoint,
               const probe::ProbeSettings&) -> Result<std::unique_ptr<probe::ProbeTransport>> {
          opened.push_back(endpoint.netdev);
          if (endpoint.netdev == "a9") return Error{ENODEV, "ibv_create_qp (UD): No such device"};
          return std::unique_ptr<probe::ProbeTransport>(
              new FabricPort(endpoint.netdev == "a0" ? a0 : a1));
        },
        s, clock);
  }
  // Every millisecond: the module's pass and the responders' turns.
  void run(ProbeModule& module, std::chrono::milliseconds span) {
    const TimePoint end = clock.now_ + span;
    while (clock.now_ < end) {
      clock.now_ += 1ms;
      fabric.advance_to(clock.now_);
      (void)module.run_once();
      (void)rb.turn(clock.now_);
      (void)rc.turn(clock.now_);
    }
  }
};

std::string scrape(ProbeModule& module) {
  telemetry::ExpositionWriter out;
  module.collect(out);
  return out.take();
}

double sample(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

TEST(ProbeModule, OffByDefaultItOpensNothingAndServesNothing) {
  Fabric net;
  probe::ProbeSettings off = Fabric::settings();
  off.enabled = false;
  auto module = net.module(off);
  EXPECT_EQ(module->run_once(), TimePoint::max());  // nothing to wake for
  net.run(*module, 2s);
  EXPECT_TRUE(net.opened.empty());
  EXPECT_TRUE(net.fabric.posted().empty());
  EXPECT_TRUE(module->findings().empty());
  EXPECT_EQ(scrape(*module), "");
}

// Off, its thread sleeps until a reload: the service's watchdog must not take that for a hang.
TEST(ProbeModule, OffItsSleepingLoopIsHealthyHoweverLong) {
  probe::ProbeSettings off;
  ProbeModule module(
      [] { return std::vector<ProbeEndpoint>{}; },
      [](const ProbeEndpoint&,
         const probe::ProbeSettings&) -> Result<std::unique_ptr<probe::ProbeTransport>> {
        return Error{ENODEV, "not used"};
      },
      off);
  module.start();
  const auto much_later = std::chrono::steady_clock::now() + std::chrono::hours(1);
  // Until its loop has made its first pass; the bound only stops a hang.
  bool healthy = false;
  for (int i = 0; i < 1000 && !healthy; ++i) {
    healthy = module.healthy(much_later);
    if (!healthy) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(healthy);
  module.stop();
}

TEST(ProbeModule, ProbesThePeersAndTheNodesOwnPortsAndServesTheirGroups) {
  Fabric net;
  auto module = net.module();
  net.run(*module, 20s);
  const std::string text = scrape(*module);
  for (const std::string group : {"tor1", "tor2", "local"}) {
    const std::string labels = "{netdev=\"a0\",group=\"" + group + "\"}";
    EXPECT_GT(sample(text, "roce_probe_sent_total" + labels), 20) << group << "\n" << text;
    EXPECT_EQ(sample(text, "roce_probe_lost_total" + labels), 0) << group;
    EXPECT_GT(sample(text, "roce_probe_network_rtt_seconds_count" + labels), 20) << group;
    EXPECT_EQ(sample(text, "roce_probe_bad_paths" + labels), 0) << group;
  }
  // Twice the fabric's 5 µs a way: every round trip in the 10 µs bucket.
  const std::string tor1 = "{netdev=\"a1\",group=\"tor1\"";
  EXPECT_EQ(sample(text, "roce_probe_network_rtt_seconds_bucket" + tor1 + ",le=\"1e-05\"}"),
            sample(text, "roce_probe_network_rtt_seconds_count" + tor1 + "}"));
  EXPECT_EQ(sample(text, "roce_probe_up{netdev=\"a0\"}"), 1);
  // a1 answers a0's self-probes.
  EXPECT_GT(sample(text, "roce_probe_answers_total{netdev=\"a1\"}"), 20);
  EXPECT_TRUE(module->findings().empty());
  // Every family it serves is in docs/metrics.md.
  const std::set<std::string> documented = test::documented_families(ROCED_METRICS_DOC);
  for (const auto& family : test::read_back(text)) {
    EXPECT_TRUE(documented.count(family.name)) << family.name << " is not in docs/metrics.md";
  }
}

TEST(ProbeModule, APeerLosingProbesFromEveryPortIsAFindingNamingIt) {
  Fabric net;
  net.fabric.set_link("10.0.0.1", "10.0.0.3", {5us, 0.2});
  net.fabric.set_link("10.0.1.1", "10.0.0.3", {5us, 0.2});
  auto module = net.module();
  net.run(*module, 40s);
  const auto findings = module->findings();
  ASSERT_EQ(findings.size(), 2u);
  for (const finding::Finding& finding : findings) {
    EXPECT_EQ(finding.id, "probe_path_loss");
    EXPECT_EQ(finding.about, "peer 10.0.0.3");
    EXPECT_NE(finding.text.find("likely place: peer 10.0.0.3 (tor2)"), std::string::npos)
        << finding.text;
    EXPECT_EQ(finding.wanted, "0.02");
  }
  EXPECT_EQ(findings[0].subject, "a0");
  EXPECT_EQ(findings[1].subject, "a1");
  const std::string text = scrape(*module);
  EXPECT_EQ(sample(text, "roce_probe_bad_paths{netdev=\"a0\",group=\"tor2\"}"), 1);
  EXPECT_EQ(sample(text, "roce_probe_bad_paths{netdev=\"a0\",group=\"tor1\"}"), 0);
  EXPECT_NE(text.find("roced_finding{netdev=\"a1\",id=\"probe_path_loss\",severity=\"critical\","
                      "source=\"probe\",about=\"peer 10.0.0.3\""),
            std::string::npos)
      << text;
  EXPECT_NEAR(sample(text, "roce_probe_lost_total{netdev=\"a0\",group=\"tor2\"}") /
                  sample(text, "roce_probe_sent_total{netdev=\"a0\",group=\"tor2\"}"),
              0.2, 0.03);
}

TEST(ProbeModule, APortThatCannotProbeSaysWhyAndTheOthersProbe) {
  Fabric net;
  net.endpoints.push_back({"a8", "", 106, 3, "its RDMA device mlx5_8 has no RoCE v2 ipv4 GID"});
  net.endpoints.push_back({"a9", "10.0.9.1", 106, 3, ""});
  auto module = net.module();
  net.run(*module, 3s);
  const auto findings = module->findings();
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].id, "probe_unavailable");
  EXPECT_EQ(findings[0].subject, "a8");
  EXPECT_EQ(findings[0].verdict, finding::Verdict::CannotTell);
  EXPECT_EQ(findings[1].subject, "a9");
  EXPECT_NE(findings[1].text.find("ibv_create_qp (UD): No such device"), std::string::npos);
  const std::string text = scrape(*module);
  EXPECT_EQ(sample(text, "roce_probe_up{netdev=\"a8\"}"), 0);
  EXPECT_EQ(sample(text, "roce_probe_up{netdev=\"a9\"}"), 0);
  EXPECT_EQ(sample(text, "roce_probe_up{netdev=\"a0\"}"), 1);
  EXPECT_GT(sample(text, "roce_probe_sent_total{netdev=\"a0\",group=\"tor1\"}"), 0);
}

TEST(ProbeModule, AReloadSwitchingItOffStopsProbingAndKeepsTheCounts) {
  Fabric net;
  auto module = net.module();
  net.run(*module, 5s);
  const double sent =
      sample(scrape(*module), "roce_probe_sent_total{netdev=\"a0\",group=\"tor1\"}");
  EXPECT_GT(sent, 5);
  config::Config before;
  before.probe = Fabric::settings();
  config::Config after = before;
  after.probe.enabled = false;
  module->reconfigure(before, after);
  net.run(*module, 1s);
  const size_t posted = net.fabric.posted().size();
  const std::string series = "roce_probe_sent_total{netdev=\"a0\",group=\"tor1\"}";
  const double when_off = sample(scrape(*module), series);
  net.run(*module, 5s);
  EXPECT_EQ(net.fabric.posted().size(), posted);
  // What was counted stays (the scrapes' counters never go back), and nothing more is.
  EXPECT_GE(when_off, sent);
  EXPECT_EQ(sample(scrape(*module), series), when_off);
  EXPECT_TRUE(module->findings().empty());
}

}  // namespace
}  // namespace roced::probe_module
