// SPDX-License-Identifier: Apache-2.0
// The PeerWatch on roce-sim's node: its switches send LLDP as the node's clock passes, and the
// watch hears, compares, tells once and forgets with the TTL, all on that clock.
#include "daemon/lldp/peer_watch.hpp"

#include <gtest/gtest.h>
#include <linux/dcbnl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <deque>

#include "daemon/lldp/peer_json.hpp"
#include "sim/model/switch_peer.hpp"
#include "test/support/in_process_node.hpp"
#include "test/support/seen_finding.hpp"

namespace roced::lldp {
namespace {

using test::Seen;
using test::seen;

using namespace std::chrono_literals;

class PeerWatchTest : public test::InProcessNode {
 protected:
  // lan2 in host DCBX mode with a switch whose PFC is on 3; lan3 left in firmware mode with one.
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) {
      if (spec.netdev != "lan2" && spec.netdev != "lan3") continue;
      roce_sim::SwitchPeerChange change;
      change.system_name = "leaf7";
      change.port = spec.netdev == "lan2" ? "Ethernet1/7" : "Ethernet1/8";
      change.pfc = 1u << 3;
      change.max_frame_size = 9216;
      spec.switch_peer = change;
      spec.firmware_dcbx_host = spec.netdev == "lan2";
    }
  }
  void SetUp() override {
    test::InProcessNode::SetUp();
    watch_ = std::make_unique<PeerWatch>(
        system_, [this] { return targets(); }, time_);
    watch_->on_notice([this](const PeerNotice& notice) {
      const std::lock_guard lock(mutex_);
      notices_.push_back(notice);
    });
    watch_->start();
  }
  void TearDown() override {
    watch_.reset();
    test::InProcessNode::TearDown();
  }
  bool run_until(const std::function<bool()>& done) { return time_.advance_until(done, 100ms); }
  void advance(std::chrono::nanoseconds total) {
    for (auto left = total; left > 0ns; left -= 1s)
      time_.advance(std::min<std::chrono::nanoseconds>(left, 1s));
  }
  std::optional<PortPeer> peer(const std::string& netdev) { return watch_->peer(netdev); }
  bool heard(const std::string& netdev) {
    const auto p = peer(netdev);
    return p && p->neighbour.has_value();
  }
  size_t notices_containing(const std::string& text) {
    const std::lock_guard lock(mutex_);
    return static_cast<size_t>(std::count_if(notices_.begin(), notices_.end(), [&](const auto& n) {
      return n.text.find(text) != std::string::npos;
    }));
  }
  void switch_change(const std::string& netdev, const roce_sim::SwitchPeerChange& change) {
    node_->change([&](roce_sim::Node& node) { node.set_switch(netdev, change); });
  }

  // The watch's thread asks for them.
  std::vector<std::string> targets() {
    const std::lock_guard lock(mutex_);
    return targets_;
  }
  void set_targets(std::vector<std::string> netdevs) {
    const std::lock_guard lock(mutex_);
    targets_ = std::move(netdevs);
  }
  std::vector<std::string> targets_ = {"lan2", "lan3"};
  std::unique_ptr<PeerWatch> watch_;
  std::mutex mutex_;
  std::vector<PeerNotice> notices_;
};

TEST_F(PeerWatchTest, TheSwitchIsHeardComparedAndToldOnce) {
  ASSERT_TRUE(run_until([&] { return heard("lan2"); }));
  const PortPeer lan2 = *peer("lan2");
  EXPECT_EQ(lan2.switch_port(), "leaf7 Ethernet1/7");
  EXPECT_EQ(lan2.report.state, lldp::PeerState::Compared);
  ASSERT_EQ(lan2.report.findings.size(), 1u);  // firmware defaults: PFC off, MTU 1500
  EXPECT_EQ(seen(lan2.report.findings[0]),
            (Seen{"switch_pfc_priorities", finding::Severity::Critical, "none", "3"}));
  EXPECT_EQ(notices_containing("LLDP: switch leaf7 port Ethernet1/7"), 1u);
  EXPECT_EQ(notices_containing("PFC priorities differ: host none, switch 3"), 1u);
  // The switch sends every 30 s: nothing new is told.
  const auto first = peer("lan2")->neighbour->first_heard;
  ASSERT_TRUE(run_until([&] { return peer("lan2")->frames >= 4; }));
  EXPECT_LE(time_.now() - first, 91s);
  EXPECT_EQ(notices_containing("PFC priorities differ"), 1u);
  const auto json = peer_to_json(*peer("lan2"));
  EXPECT_EQ(json["switch"]["system_name"], "leaf7");
  EXPECT_EQ(json["switch"]["max_frame_size"], 9216);
  EXPECT_EQ(json["findings"][0]["switch"], "3");
}

TEST_F(PeerWatchTest, FirmwareDcbxModeIsAStateNotAMismatch) {
  ASSERT_TRUE(run_until([&] {
    const auto p = peer("lan3");
    return p && p->report.state == lldp::PeerState::FirmwareDcbx;
  }));
  advance(65s);
  const PortPeer lan3 = *peer("lan3");
  EXPECT_EQ(lan3.report.state, lldp::PeerState::FirmwareDcbx);
  EXPECT_TRUE(lan3.report.findings.empty());
  EXPECT_EQ(lan3.frames, 0u);  // the NIC's agent takes them
  EXPECT_EQ(notices_containing("firmware mode"), 1u);
}

TEST_F(PeerWatchTest, ASilentSwitchIsForgottenWhenItsTtlRunsOut) {
  ASSERT_TRUE(run_until([&] { return heard("lan2"); }));
  roce_sim::SwitchPeerChange quiet;
  quiet.lldp = roce_sim::SwitchLldp::Off;
  const auto last_heard = peer("lan2")->neighbour->last_heard;
  switch_change("lan2", quiet);
  advance(last_heard + 119s - time_.now());
  EXPECT_TRUE(heard("lan2"));
  ASSERT_TRUE(run_until([&] { return !heard("lan2"); }));
  EXPECT_GE(time_.now() - last_heard, 120s);
  EXPECT_LE(time_.now() - last_heard, 121s);
  EXPECT_EQ(peer("lan2")->report.state, lldp::PeerState::NoPeer);
  EXPECT_EQ(notices_containing("no longer heard"), 1u);
}

TEST_F(PeerWatchTest, AShutdownLldpduForgetsAtOnce) {
  ASSERT_TRUE(run_until([&] { return heard("lan2"); }));
  roce_sim::SwitchPeerChange shutdown;
  shutdown.lldp = roce_sim::SwitchLldp::Shutdown;
  const auto at = time_.now();
  switch_change("lan2", shutdown);
  ASSERT_TRUE(run_until([&] { return !heard("lan2"); }));
  EXPECT_LT(time_.now() - at, 2s);
}

TEST_F(PeerWatchTest, ASwitchReconfiguredMidRunAndAHostThatFollows) {
  ASSERT_TRUE(run_until([&] { return heard("lan2"); }));
  roce_sim::SwitchPeerChange to_four;
  to_four.pfc = 1u << 4;
  switch_change("lan2", to_four);
  ASSERT_TRUE(run_until([&] { return notices_containing("host none, switch 4") == 1; }));
  // The host turns PFC on 4 (another tool, or roced's own apply): told within the host refresh.
  node_->change([](roce_sim::Node& node) {
    ieee_pfc pfc{};
    pfc.pfc_en = 1u << 4;
    node.find("lan2")->ieee_setpfc(pfc);
  });
  watch_->recheck("lan2");
  ASSERT_TRUE(run_until([&] { return notices_containing("PFC priorities differ no more") == 1; }));
  EXPECT_TRUE(peer("lan2")->report.findings.empty());
}

// A switch that runs a class strict and classifies RoCE v2 by its UDP port, against the host's
// driver defaults (mlx5e_ets_init: every class vendor at 100 %): the scheduling differs and is
// said so, no bandwidth is compared (no class is ETS on both sides), and the switch's RoCE
// priority is held against the host's PFC (none yet).
TEST_F(PeerWatchTest, AStrictClassAndRoceByUdpPortAreComparedForWhatTheyMean) {
  ASSERT_TRUE(run_until([&] { return heard("lan2"); }));
  roce_sim::SwitchPeerChange change;
  change.prio_tc = std::array<uint8_t, 8>{1, 0, 2, 3, 4, 5, 6, 7};  // as the host's
  change.ets_bandwidth = std::array<uint8_t, 8>{10, 10, 10, 40, 10, 10, 0, 10};
  change.ets_tsa = std::array<uint8_t, 8>{2, 2, 2, 2, 2, 2, 0, 2};  // tc6 strict
  change.udp_ports = std::vector<std::pair<uint16_t, uint8_t>>{{4791, 3}};
  switch_change("lan2", change);
  const auto with = [&](std::string_view id) -> std::optional<finding::Finding> {
    const auto p = peer("lan2");
    if (!p) return std::nullopt;
    for (const auto& f : p->report.findings) {
      if (f.id == id) return f;
    }
    return std::nullopt;
  };
  // The comparison after the change: one of ETS's findings (each a notice of its own) is there.
  ASSERT_TRUE(run_until([&] {
    return with("switch_ets_tsa").has_value() || with("switch_ets_bandwidth").has_value();
  }));
  ASSERT_TRUE(with("switch_roce_udp_priority").has_value());
  EXPECT_EQ(seen(*with("switch_roce_udp_priority")),
            (Seen{"switch_roce_udp_priority", finding::Severity::Critical, "PFC on none",
                  "udp 4791 -> 3"}));
  const auto tsa = with("switch_ets_tsa");
  ASSERT_TRUE(tsa.has_value());
  EXPECT_NE(tsa->wanted.find("tc6 vendor"), std::string::npos) << tsa->wanted;
  EXPECT_NE(tsa->found.find("tc6 strict"), std::string::npos) << tsa->found;
  EXPECT_FALSE(with("switch_ets_bandwidth").has_value());
  EXPECT_FALSE(with("switch_ets_priority_tc").has_value());
}

TEST_F(PeerWatchTest, APortThatCannotBeListenedOnIsToldOnce) {
  set_targets({"lan2", "nope0"});
  ASSERT_TRUE(run_until([&] { return peer("nope0").has_value(); }));
  advance(95s);  // retried every 30 s
  const PortPeer nope = *peer("nope0");
  EXPECT_EQ(nope.report.state, lldp::PeerState::NotListening);
  EXPECT_NE(nope.listen_error.find("nope0"), std::string::npos);
  EXPECT_EQ(notices_containing("LLDP: not listening"), 1u);
}

// Frames from a socket the test feeds: hostile ones are counted by reason and change nothing.
class ScriptedFrames final : public FrameSocket {
 public:
  explicit ScriptedFrames(std::deque<std::vector<uint8_t>> frames)
      : frames_(std::move(frames)),
        fd_(::eventfd(static_cast<unsigned>(frames_.size()), EFD_SEMAPHORE | EFD_NONBLOCK)) {}
  ~ScriptedFrames() override { ::close(fd_); }
  Result<std::vector<uint8_t>> receive() override {
    if (frames_.empty()) return std::vector<uint8_t>{};
    uint64_t one = 0;
    [[maybe_unused]] const ssize_t got = ::read(fd_, &one, sizeof one);
    auto frame = std::move(frames_.front());
    frames_.pop_front();
    return frame;
  }
  int fd() const override { return fd_; }

 private:
  std::deque<std::vector<uint8_t>> frames_;
  int fd_;
};

TEST_F(PeerWatchTest, HostileFramesAreCountedAndDropped) {
  watch_.reset();
  System scripted;
  scripted.open_rtnl = system_.open_rtnl;
  scripted.open_lldp = [](const std::string&) -> Result<std::unique_ptr<FrameSocket>> {
    auto good = roce_sim::lldp_frame(roce_sim::SwitchPeer{}, "0c:42:a1:00:00:09");
    std::vector<uint8_t> truncated(good.begin(), good.begin() + 20);
    std::vector<uint8_t> other = good;
    other[12] = 0x08;
    other[13] = 0x00;
    std::vector<uint8_t> empty_chassis = good;
    empty_chassis[15] = 0x00;  // chassis ID TLV of length 0
    return std::unique_ptr<FrameSocket>(
        new ScriptedFrames({truncated, other, empty_chassis, good}));
  };
  set_targets({"lan2"});
  watch_ = std::make_unique<PeerWatch>(
      scripted, [this] { return targets(); }, time_);
  watch_->start();
  ASSERT_TRUE(run_until([&] { return heard("lan2"); }));
  const PortPeer lan2 = *peer("lan2");
  EXPECT_EQ(lan2.frames, 1u);
  EXPECT_EQ(lan2.dropped.at("truncated"), 1u);
  EXPECT_EQ(lan2.dropped.at("not_lldp"), 1u);
  EXPECT_EQ(lan2.dropped.at("malformed"), 1u);
  EXPECT_EQ(lan2.switch_port(), "leaf1 Ethernet1/1");
}

}  // namespace
}  // namespace roced::lldp
