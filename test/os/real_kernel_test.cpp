// SPDX-License-Identifier: Apache-2.0
// The production path against this machine's kernel: a real NETLINK_ROUTE socket and ioctl.
// "lo" exists everywhere, has MTU 65536 and no dcbnl_ops, so it shows the EOPNOTSUPP path too.
#include <gtest/gtest.h>
#include <linux/if.h>
#include <sched.h>

#include <cstdlib>
#include <thread>

#include "dcb/client.hpp"
#include "ethtool/ethtool.hpp"
#include "ethtool/standard_stats.hpp"
#include "link/link.hpp"
#include "os/open_system.hpp"

namespace roced {
namespace {

TEST(RealKernel, LinkListFindsLoopbackWithItsMtu) {
  System system = roced::real_system();
  auto links = LinkClient(system).list();
  ASSERT_TRUE(links.ok()) << links.error().message;
  auto lo =
      std::find_if(links->begin(), links->end(), [](const LinkInfo& l) { return l.name == "lo"; });
  ASSERT_NE(lo, links->end());
  EXPECT_EQ(lo->mtu, 65536u);
  EXPECT_EQ(lo->ifindex, 1);
  EXPECT_TRUE(lo->admin_up);
  EXPECT_EQ(lo->mac, "00:00:00:00:00:00");
}

TEST(RealKernel, LinkGetByName) {
  System system = roced::real_system();
  LinkClient links(system);
  auto lo = links.get("lo");
  ASSERT_TRUE(lo.ok()) << lo.error().message;
  EXPECT_EQ(lo->name, "lo");
  EXPECT_EQ(lo->mtu, 65536u);
  auto missing = links.get("roced-none0");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ENODEV);
}

TEST(RealKernel, DcbOnLoopbackIsUnsupported) {
  System system = roced::real_system();
  dcb::DcbClient client(system);
  auto state = client.get("lo");
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.error().code, EOPNOTSUPP);  // dcb_doit: !netdev->dcbnl_ops
  EXPECT_EQ(state.error().message, "lo: DCB is not supported by this device (EOPNOTSUPP)");
  dcb::Pfc pfc;
  pfc.enabled_mask = 0x08;
  auto set = client.set_pfc("lo", pfc);
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().code, EOPNOTSUPP);
  auto dcbx = client.get_dcbx("lo");
  ASSERT_FALSE(dcbx.ok());
  EXPECT_EQ(dcbx.error().code, EOPNOTSUPP);
}

TEST(RealKernel, DcbOnMissingDeviceIsEnodev) {
  System system = roced::real_system();
  auto state = dcb::DcbClient(system).get("roced-none0");
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.error().code, ENODEV);
}

TEST(RealKernel, EthtoolOnLoopbackHasNoStatistics) {
  System system = roced::real_system();
  EthtoolClient ethtool(system);
  auto stats = ethtool.stats("lo");
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().code, EOPNOTSUPP) << stats.error().message;
  auto missing = ethtool.driver_info("roced-none0");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ENODEV);
}

// A socket that counts what goes out through it, around the real one.
class CountingSocket : public NetlinkSocket {
 public:
  CountingSocket(std::unique_ptr<NetlinkSocket> real, int& sends)
      : real_(std::move(real)), sends_(sends) {}
  uint32_t port_id() const override { return real_->port_id(); }
  Result<void> send(std::span<const uint8_t> datagram) override {
    ++sends_;
    return real_->send(datagram);
  }
  Result<std::vector<uint8_t>> receive(std::chrono::milliseconds timeout) override {
    return real_->receive(timeout);
  }
  Result<void> join_group(uint32_t group) override { return real_->join_group(group); }
  int fd() const override { return real_->fd(); }

 private:
  std::unique_ptr<NetlinkSocket> real_;
  int& sends_;
};

// The kernel handles every message of one datagram, each answered on its own
// (af_netlink.c netlink_rcv_skb): a round of ports costs one sendmsg, a missing port fails
// alone, and the kept requests are good for the next round.
TEST(RealKernel, ARoundOfStatisticsRequestsIsOneDatagram) {
  System system = roced::real_system();
  int sends = 0;
  const auto open = system.open_genl;
  system.open_genl = [&]() -> Result<std::unique_ptr<NetlinkSocket>> {
    auto socket = open();
    if (!socket) return socket.error();
    return std::unique_ptr<NetlinkSocket>(new CountingSocket(std::move(*socket), sends));
  };
  StandardStatsReader reader(system, ETHTOOL_STATS_ETH_CTRL);
  const std::vector<std::string> ports = {"lo", "roced-none0", "lo"};
  for (int round = 1; round <= 2; ++round) {
    const auto answers = reader.read(ports, std::chrono::milliseconds(2000));
    ASSERT_EQ(answers.size(), 3u);
    EXPECT_TRUE(answers[0].ok()) << answers[0].error().message;
    ASSERT_FALSE(answers[1].ok());
    EXPECT_EQ(answers[1].error().code, ENODEV) << answers[1].error().message;
    EXPECT_TRUE(answers[2].ok()) << answers[2].error().message;
    // The family's lookup, then one datagram a round.
    EXPECT_EQ(sends, 1 + round);
  }
}

// Changes happen on a veth pair in a network namespace of their own: unshare(CLONE_NEWNET) moves
// only the calling thread, sockets opened there stay in it, and the namespace (with the veths)
// goes away when the thread ends. Needs root (CI runs as root).
template <class Body>
void in_private_netns_with_veth(Body body) {
  std::thread worker([&] {
    ASSERT_EQ(::unshare(CLONE_NEWNET), 0)
        << "unshare(CLONE_NEWNET): " << std::strerror(errno) << " (this test needs root)";
    ASSERT_EQ(std::system("ip link add roced-v0 type veth peer name roced-v1"), 0);
    body();
  });
  worker.join();
}

TEST(RealKernelVeth, MtuAndAdminStateRoundTrip) {
  in_private_netns_with_veth([] {
    System system = roced::real_system();
    LinkClient links(system);
    auto before = links.get("roced-v0");
    ASSERT_TRUE(before.ok()) << before.error().message;
    EXPECT_EQ(before->kind, "veth");
    EXPECT_EQ(before->mtu, 1500u);
    EXPECT_EQ(before->max_mtu, 65535u);  // veth: ETH_MAX_MTU
    EXPECT_FALSE(before->admin_up);

    ASSERT_TRUE(links.set_mtu("roced-v0", 9000).ok());
    ASSERT_TRUE(links.set_admin_up("roced-v0", true).ok());
    auto after = links.get("roced-v0");
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->mtu, 9000u);
    EXPECT_TRUE(after->admin_up);

    auto too_big = links.set_mtu("roced-v0", 70000);
    ASSERT_FALSE(too_big.ok());
    EXPECT_EQ(too_big.error().code, EINVAL);
    EXPECT_NE(too_big.error().message.find("roced-v0"), std::string::npos)
        << too_big.error().message;
    EXPECT_EQ(links.get("roced-v0")->mtu, 9000u);

    ASSERT_TRUE(links.set_admin_up("roced-v0", false).ok());
    EXPECT_FALSE(links.get("roced-v0")->admin_up);
  });
}

TEST(RealKernelVeth, DcbIsUnsupportedWithAClearMessage) {
  in_private_netns_with_veth([] {
    System system = roced::real_system();
    dcb::DcbClient client(system);
    auto state = client.get("roced-v0");
    ASSERT_FALSE(state.ok());
    EXPECT_EQ(state.error().code, EOPNOTSUPP);
    EXPECT_EQ(state.error().message, "roced-v0: DCB is not supported by this device (EOPNOTSUPP)");
    auto apps = client.add_apps("roced-v0", {{5, 3, 26}});
    ASSERT_FALSE(apps.ok());
    EXPECT_EQ(apps.error().code, EOPNOTSUPP);
  });
}

}  // namespace
}  // namespace roced
