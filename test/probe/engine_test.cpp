// SPDX-License-Identifier: Apache-2.0
// The probe engine between nodes of a simulated fabric (test/support/probe_fabric.hpp), on the
// test's clock: what each path reports, and what each responder answers.
#include "probe/engine.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "test/support/probe_fabric.hpp"

namespace roced::probe {
namespace {

using namespace std::chrono_literals;
using test::ProbeFabric;
using TimePoint = ProbeEngine::TimePoint;

const TimePoint kStart = TimePoint{} + 1000s;

// A node: its engine, the endpoints it polls, and how late it turns after a completion (a busy
// host).
struct Node {
  ProbeEngine* engine;
  std::vector<ProbeFabric::Endpoint*> endpoints;
  std::chrono::nanoseconds lag{0};
  TimePoint next_turn = kStart;
};

std::optional<TimePoint> next_completion(const Node& node) {
  std::optional<TimePoint> next;
  for (ProbeFabric::Endpoint* endpoint : node.endpoints) {
    if (const auto at = endpoint->next_at()) {
      const TimePoint handled = *at + node.lag;
      if (!next || handled < *next) next = handled;
    }
  }
  return next;
}

// Turns every node when its time comes, until `until`.
void run_until(ProbeFabric& fabric, std::vector<Node>& nodes, TimePoint until) {
  for (;;) {
    TimePoint at = TimePoint::max();
    for (const Node& node : nodes) {
      at = std::min(at, node.next_turn);
      if (const auto completion = next_completion(node)) at = std::min(at, *completion);
    }
    if (at > until) break;
    fabric.advance_to(std::max(at, fabric.now()));
    for (Node& node : nodes) {
      const auto completion = next_completion(node);
      if (node.next_turn <= fabric.now() || (completion && *completion <= fabric.now())) {
        node.next_turn = node.engine->turn(fabric.now());
      }
    }
  }
  fabric.advance_to(until);
}

ProbeSettings settings() {
  ProbeSettings s;
  s.enabled = true;
  return s;
}

// string_views: see port_plan in test/plan/plan_model_test.cpp (GCC 13+ -Wdangling-reference).
const PathReport& path_of(const std::vector<PathReport>& paths, std::string_view port,
                          std::string_view peer) {
  for (const PathReport& path : paths) {
    if (path.port == port && path.peer.address == peer) return path;
  }
  throw std::runtime_error("no path " + std::string(port) + " -> " + std::string(peer));
}

TEST(ProbeEngine, TheNetworkRttIsTheLinksAloneHoweverSlowTheResponder) {
  ProbeFabric fabric(kStart);
  fabric.link.one_way = 7us;
  // Unrelated NIC clocks on the two sides: only differences taken on one side count.
  auto& a = fabric.add("10.0.0.1", 11, std::chrono::nanoseconds(1'000'000'000'000));
  auto& b = fabric.add("10.0.0.2", 22, std::chrono::nanoseconds(-500'000'000'000));
  ProbeEngine prober(settings(), {{"a0", &a, {{"10.0.0.2", "tor1"}}}}, kStart, 1);
  ProbeEngine responder(settings(), {{"b0", &b, {}}}, kStart, 2);
  std::vector<Node> nodes{{&prober, {&a}}, {&responder, {&b}, 3ms}};

  run_until(fabric, nodes, kStart + 10s);

  const auto rtts = prober.take_rtts();
  ASSERT_GE(rtts.size(), 90u);
  for (const RttSample& sample : rtts) {
    EXPECT_EQ(sample.port, "a0");
    EXPECT_EQ(sample.group, "tor1");
    EXPECT_EQ(sample.rtt.network, 14us);         // twice the link's 7 µs, nothing else
    EXPECT_EQ(sample.rtt.responder, 3ms + 2us);  // its lag and its send
    EXPECT_GE(sample.rtt.prober, std::chrono::nanoseconds(0));
  }
  const auto paths = prober.paths(fabric.now());
  const PathReport& path = path_of(paths, "a0", "10.0.0.2");
  EXPECT_EQ(path.totals.lost, 0u);
  EXPECT_EQ(path.totals.answered + prober.in_flight(), path.totals.sent);
  EXPECT_FALSE(path.bad);
  EXPECT_EQ(path.rtt_p99, 14us);
  EXPECT_GE(responder.responder(0).answered, path.totals.answered);
  EXPECT_LE(responder.responder(0).answered, path.totals.sent);
  EXPECT_TRUE(prober.blame(fabric.now()).empty());
}

// Node A's two ports probe B and C, both under one switch.
struct TwoByTwo {
  ProbeFabric fabric{kStart};
  ProbeFabric::Endpoint& a0 = fabric.add("10.0.0.1", 1);
  ProbeFabric::Endpoint& a1 = fabric.add("10.0.1.1", 2);
  ProbeFabric::Endpoint& b = fabric.add("10.0.0.2", 3);
  ProbeFabric::Endpoint& c = fabric.add("10.0.0.3", 4);
  std::vector<ProbePeer> peers{{"10.0.0.2", "tor1"}, {"10.0.0.3", "tor1"}};
  ProbeEngine a{settings(), {{"a0", &a0, peers}, {"a1", &a1, peers}}, kStart, 7};
  ProbeEngine rb{settings(), {{"b0", &b, {}}}, kStart, 8};
  ProbeEngine rc{settings(), {{"c0", &c, {}}}, kStart, 9};
  std::vector<Node> nodes{{&a, {&a0, &a1}}, {&rb, {&b}}, {&rc, {&c}}};
};

TEST(ProbeEngine, LossOnOnePathBlamesThatPath) {
  TwoByTwo net;
  net.fabric.set_link("10.0.0.1", "10.0.0.2", {5us, 0.1});
  run_until(net.fabric, net.nodes, kStart + 40s);
  const auto paths = net.a.paths(net.fabric.now());
  const PathReport& lossy = path_of(paths, "a0", "10.0.0.2");
  EXPECT_TRUE(lossy.bad);
  EXPECT_NEAR(lossy.loss_ratio, 0.1, 0.02);
  EXPECT_GT(lossy.totals.lost, 10u);
  for (const auto& [port, peer] :
       {std::pair{"a0", "10.0.0.3"}, {"a1", "10.0.0.2"}, {"a1", "10.0.0.3"}}) {
    EXPECT_FALSE(path_of(paths, port, peer).bad) << port << " -> " << peer;
    EXPECT_EQ(path_of(paths, port, peer).totals.lost, 0u) << port << " -> " << peer;
  }
  const std::vector<Blame> expected{{Place::Path, "a0", "10.0.0.2", "tor1"}};
  EXPECT_EQ(net.a.blame(net.fabric.now()), expected);
}

TEST(ProbeEngine, APeerBadFromEveryPortIsBlamed) {
  TwoByTwo net;
  net.fabric.set_link("10.0.0.2", "10.0.0.1", {5us, 0.34});  // B's answers to each port
  net.fabric.set_link("10.0.0.2", "10.0.1.1", {5us, 0.34});
  // Every third of B's answers lost: a first answer or a second, so a third of the probes are
  // lost and a third answered without a time.
  run_until(net.fabric, net.nodes, kStart + 40s);
  const std::vector<Blame> expected{{Place::Peer, "", "10.0.0.2", "tor1"}};
  EXPECT_EQ(net.a.blame(net.fabric.now()), expected);
}

TEST(ProbeEngine, OneLossIsNeverABadPathTwoPastTheRatioAre) {
  ProbeFabric fabric(kStart);
  auto& a = fabric.add("10.0.0.1", 1);
  auto& b = fabric.add("10.0.0.2", 2);
  fabric.set_link("10.0.0.1", "10.0.0.2", {5us, 0.05});  // every twentieth probe
  ProbeEngine prober(settings(), {{"a0", &a, {{"10.0.0.2", "tor1"}}}}, kStart, 4);
  ProbeEngine responder(settings(), {{"b0", &b, {}}}, kStart, 5);
  std::vector<Node> nodes{{&prober, {&a}}, {&responder, {&b}}};
  run_until(fabric, nodes, kStart + 3500ms);
  PathReport path = path_of(prober.paths(fabric.now()), "a0", "10.0.0.2");
  ASSERT_EQ(path.totals.lost, 1u);
  EXPECT_GE(path.judged, ProbeEngine::kMinJudged);
  EXPECT_GT(path.loss_ratio, 0.02);
  EXPECT_FALSE(path.bad);
  run_until(fabric, nodes, kStart + 6s);
  path = path_of(prober.paths(fabric.now()), "a0", "10.0.0.2");
  ASSERT_EQ(path.totals.lost, 2u);
  EXPECT_TRUE(path.bad);
}

TEST(ProbeEngine, TailLatencyPastTheThresholdMakesThePathBad) {
  TwoByTwo net;
  net.fabric.set_link("10.0.0.1", "10.0.0.3", {600us, 0});
  net.fabric.set_link("10.0.1.1", "10.0.0.3", {600us, 0});
  run_until(net.fabric, net.nodes, kStart + 40s);
  const auto paths = net.a.paths(net.fabric.now());
  EXPECT_EQ(path_of(paths, "a0", "10.0.0.3").rtt_p99, 605us);  // there and back
  EXPECT_EQ(path_of(paths, "a0", "10.0.0.3").totals.lost, 0u);
  EXPECT_TRUE(path_of(paths, "a0", "10.0.0.3").bad);
  EXPECT_FALSE(path_of(paths, "a0", "10.0.0.2").bad);
  const std::vector<Blame> expected{{Place::Peer, "", "10.0.0.3", "tor1"}};
  EXPECT_EQ(net.a.blame(net.fabric.now()), expected);
}

TEST(ProbeEngine, AProbeInFlightIsNoLossUntilItsTimeout) {
  TwoByTwo net;
  net.fabric.set_link("10.0.0.1", "10.0.0.2", {5us, 1.0});
  run_until(net.fabric, net.nodes, kStart + 900ms);
  auto lost = path_of(net.a.paths(net.fabric.now()), "a0", "10.0.0.2").totals;
  EXPECT_GT(lost.sent, 0u);
  EXPECT_EQ(lost.lost, 0u);  // none has waited its second yet
  run_until(net.fabric, net.nodes, kStart + 5s);
  lost = path_of(net.a.paths(net.fabric.now()), "a0", "10.0.0.2").totals;
  EXPECT_GT(lost.lost, 0u);
  EXPECT_EQ(lost.answered, 0u);
  EXPECT_EQ(lost.send_failed, 0u);
  // What is neither lost nor answered is still within its second.
  EXPECT_LE(lost.sent - lost.lost, net.a.in_flight());
}

TEST(ProbeEngine, AnUnreachablePeerIsThisPortsLossAtOnce) {
  ProbeFabric fabric(kStart);
  auto& a = fabric.add("10.0.0.1", 1);
  ProbeEngine engine(settings(), {{"a0", &a, {{"10.9.9.9", "tor9"}}}}, kStart, 3);
  std::vector<Node> nodes{{&engine, {&a}}};
  run_until(fabric, nodes, kStart + 2s);
  const PathCounters totals = path_of(engine.paths(fabric.now()), "a0", "10.9.9.9").totals;
  EXPECT_GT(totals.sent, 10u);
  EXPECT_EQ(totals.send_failed, totals.sent);
  EXPECT_EQ(totals.lost, totals.sent);
  EXPECT_EQ(engine.in_flight(), 0u);
}

TEST(ProbeEngine, WhileThePeersServiceIsResolvedNothingIsSentOrLost) {
  ProbeFabric fabric(kStart);
  auto& a = fabric.add("10.0.0.1", 1);
  auto& b = fabric.add("10.0.0.2", 2);
  fabric.resolve_at("10.0.0.2", kStart + 2s);
  ProbeEngine prober(settings(), {{"a0", &a, {{"10.0.0.2", "tor1"}}}}, kStart, 4);
  ProbeEngine responder(settings(), {{"b0", &b, {}}}, kStart, 5);
  std::vector<Node> nodes{{&prober, {&a}}, {&responder, {&b}}};
  run_until(fabric, nodes, kStart + 1900ms);
  EXPECT_EQ(path_of(prober.paths(fabric.now()), "a0", "10.0.0.2").totals, PathCounters{});
  run_until(fabric, nodes, kStart + 5s);
  const PathCounters totals = path_of(prober.paths(fabric.now()), "a0", "10.0.0.2").totals;
  EXPECT_GE(totals.sent, 25u);
  EXPECT_LE(totals.sent, 35u);  // three seconds' worth at ten a second
  EXPECT_EQ(totals.lost, 0u);
}

TEST(ProbeEngine, ALostSecondAnswerLeavesTheProbeAnsweredWithoutATime) {
  ProbeFabric fabric(kStart);
  auto& a = fabric.add("10.0.0.1", 1);
  auto& b = fabric.add("10.0.0.2", 2);
  // Every other message from B is dropped: each probe's first answer arrives, its second not.
  fabric.set_link("10.0.0.2", "10.0.0.1", {5us, 0.5});
  ProbeEngine prober(settings(), {{"a0", &a, {{"10.0.0.2", "tor1"}}}}, kStart, 4);
  ProbeEngine responder(settings(), {{"b0", &b, {}}}, kStart, 5);
  std::vector<Node> nodes{{&prober, {&a}}, {&responder, {&b}}};
  run_until(fabric, nodes, kStart + 5s);
  const PathReport path = path_of(prober.paths(fabric.now()), "a0", "10.0.0.2");
  EXPECT_EQ(path.totals.lost, 0u);
  EXPECT_GT(path.totals.answered, 30u);
  EXPECT_TRUE(prober.take_rtts().empty());
  EXPECT_FALSE(path.rtt_p99);
}

TEST(ProbeEngine, TheResponderAnswersOnlyProbesAndNoFasterThanItsRate) {
  ProbeFabric fabric(kStart);
  auto& a = fabric.add("10.0.0.1", 1);
  auto& b = fabric.add("10.0.0.2", 2);
  ProbeEngine responder(settings(), {{"b0", &b, {}}}, kStart, 6);
  const MessageBytes garbage{};
  ASSERT_TRUE(a.post({"10.0.0.2", 2}, garbage, 0, 1));
  ProbeMessage probe{MessageKind::Probe, 42, 1, 0, 0};
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(a.post({"10.0.0.2", 2}, encode(probe), 0, 2));
  fabric.advance_to(kStart + 1ms);
  (void)responder.turn(fabric.now());
  const ResponderCounters counters = responder.responder(0);
  EXPECT_EQ(counters.malformed, 1u);
  EXPECT_EQ(counters.answered, static_cast<uint64_t>(ProbeEngine::kAnswersPerSecond / 10));
  EXPECT_EQ(counters.over_rate, 500u - counters.answered);
  size_t answers = 0;
  for (const auto& posted : fabric.posted()) {
    if (posted.from == "10.0.0.2") {
      ++answers;
      EXPECT_EQ(posted.kind, MessageKind::FirstAnswer);
      EXPECT_EQ(posted.to, (Remote{"10.0.0.1", 1}));  // back to the queue pair it came from
    }
  }
  EXPECT_EQ(answers, counters.answered);
  // A second later the bucket is full again, not fuller.
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(a.post({"10.0.0.2", 2}, encode(probe), 0, 2));
  fabric.advance_to(kStart + 5s);
  (void)responder.turn(fabric.now());
  EXPECT_EQ(responder.responder(0).answered, 2 * counters.answered);
}

TEST(ProbeEngine, ProbesToAPeerRotateTheirFlowLabels) {
  TwoByTwo net;
  run_until(net.fabric, net.nodes, kStart + 5s);
  std::set<uint32_t> labels;
  for (const auto& posted : net.fabric.posted()) {
    if (posted.from == "10.0.0.1" && posted.to.address == "10.0.0.2") {
      EXPECT_EQ(posted.kind, MessageKind::Probe);
      EXPECT_EQ(posted.to.qpn, 0u);  // the peer's probe service, resolved by the transport
      EXPECT_NE(posted.flow_label, 0u);
      labels.insert(posted.flow_label);
    }
  }
  EXPECT_GE(labels.size(), 4u);
}

}  // namespace
}  // namespace roced::probe
