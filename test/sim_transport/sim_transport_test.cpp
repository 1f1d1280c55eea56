// SPDX-License-Identifier: Apache-2.0
// The simulated transports' framing (uapi/roce_sim.h) against a tiny in-test SEQPACKET server:
// BIND first, ADD_MEMBERSHIP on join_group, netlink bytes unchanged, the ethtool request/reply
// headers.
#include <gtest/gtest.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <roce_sim.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <thread>

#include "ethtool/ethtool.hpp"
#include "link/link.hpp"
#include "os/unique_fd.hpp"
#include "sim/transport/simulated_system.hpp"
#include "test/support/wire.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;
using testing::concat;
using testing::Wire;

UniqueFd listen_on(const fs::path& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  EXPECT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(::listen(fd.get(), 4), 0);
  return fd;
}

std::vector<uint8_t> recv_datagram(int fd) {
  std::vector<uint8_t> buffer(ROCE_SIM_MAX_DATAGRAM);
  const ssize_t got = ::recv(fd, buffer.data(), buffer.size(), 0);
  buffer.resize(got > 0 ? static_cast<size_t>(got) : 0);
  return buffer;
}

class SimTransport : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/roced-simtransport-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SimTransport, NetlinkConnectionBindsThenCarriesNetlinkBytes) {
  UniqueFd listener = listen_on(dir_ / ROCE_SIM_RTNL_SOCKET);
  uint32_t bound_port = 0;
  uint32_t joined_group = 0;
  std::thread server([&] {
    UniqueFd conn(::accept(listener.get(), nullptr, nullptr));
    ASSERT_TRUE(conn.valid());
    // 1. BIND, before anything else
    auto bind = recv_datagram(conn.get());
    ASSERT_EQ(bind.size(), NLMSG_HDRLEN + sizeof(roce_sim_nl_ctl));
    const auto* header = reinterpret_cast<const nlmsghdr*>(bind.data());
    EXPECT_EQ(header->nlmsg_type, ROCE_SIM_NLMSG_CTL);
    roce_sim_nl_ctl ctl{};
    std::memcpy(&ctl, bind.data() + NLMSG_HDRLEN, sizeof(ctl));
    EXPECT_EQ(ctl.op, static_cast<uint32_t>(ROCE_SIM_CTL_BIND));
    bound_port = ctl.arg;
    // 2. a GETLINK, answered like the kernel: reply + ACK in one datagram
    auto request = recv_datagram(conn.get());
    const auto* req = reinterpret_cast<const nlmsghdr*>(request.data());
    EXPECT_EQ(req->nlmsg_type, RTM_GETLINK);
    EXPECT_EQ(req->nlmsg_pid, bound_port);
    Wire w;
    ifinfomsg info{};
    info.ifi_index = 4;
    w.begin_message(RTM_NEWLINK, 0, req->nlmsg_seq, bound_port).raw(&info, sizeof(info));
    w.attr_str(IFLA_IFNAME, "lan2").attr_u32(IFLA_MTU, 1500).end_message();
    auto reply = concat({w.bytes, Wire::error(req->nlmsg_seq, bound_port, 0)});
    ASSERT_EQ(::send(conn.get(), reply.data(), reply.size(), 0),
              static_cast<ssize_t>(reply.size()));
  });
  System system = roce_sim::simulated_system(dir_);
  auto link = LinkClient(system).get("lan2");
  server.join();
  ASSERT_TRUE(link.ok()) << link.error().message;
  EXPECT_EQ(link->ifindex, 4);
  EXPECT_EQ(link->mtu, 1500u);
  EXPECT_EQ(bound_port & 0x3fffff, static_cast<uint32_t>(::getpid()) & 0x3fffff)
      << "kernel-style port ids: pid + (n << 22)";

  std::thread group_server([&] {
    UniqueFd conn(::accept(listener.get(), nullptr, nullptr));
    recv_datagram(conn.get());  // BIND
    auto join = recv_datagram(conn.get());
    ASSERT_EQ(join.size(), NLMSG_HDRLEN + sizeof(roce_sim_nl_ctl));
    roce_sim_nl_ctl ctl{};
    std::memcpy(&ctl, join.data() + NLMSG_HDRLEN, sizeof(ctl));
    EXPECT_EQ(ctl.op, static_cast<uint32_t>(ROCE_SIM_CTL_ADD_MEMBERSHIP));
    joined_group = ctl.arg;
  });
  auto socket = system.open_rtnl();
  ASSERT_TRUE(socket.ok()) << socket.error().message;
  EXPECT_NE((*socket)->port_id(), bound_port) << "every socket gets its own port id";
  ASSERT_TRUE((*socket)->join_group(RTNLGRP_DCB).ok());
  group_server.join();
  EXPECT_EQ(joined_group, static_cast<uint32_t>(RTNLGRP_DCB));
}

TEST_F(SimTransport, EthtoolCallIsOneFramedDatagramEachWay) {
  UniqueFd listener = listen_on(dir_ / ROCE_SIM_ETHTOOL_SOCKET);
  std::thread server([&] {
    UniqueFd conn(::accept(listener.get(), nullptr, nullptr));
    // GDRVINFO
    auto request = recv_datagram(conn.get());
    roce_sim_ethtool_req req{};
    ASSERT_GE(request.size(), sizeof(req));
    std::memcpy(&req, request.data(), sizeof(req));
    EXPECT_STREQ(req.ifname, "lan2");
    EXPECT_EQ(req.cmd, static_cast<uint32_t>(ETHTOOL_GDRVINFO));
    EXPECT_EQ(request.size(), sizeof(req) + req.len);
    ethtool_drvinfo info{};
    info.cmd = ETHTOOL_GDRVINFO;
    std::strcpy(info.driver, "mlx5_core");
    std::strcpy(info.bus_info, "0000:17:00.0");
    roce_sim_ethtool_rep rep{0, sizeof(info)};
    std::vector<uint8_t> reply(sizeof(rep) + sizeof(info));
    std::memcpy(reply.data(), &rep, sizeof(rep));
    std::memcpy(reply.data() + sizeof(rep), &info, sizeof(info));
    ASSERT_GT(::send(conn.get(), reply.data(), reply.size(), 0), 0);
    // STUNABLE: header + u16 in, an error out
    request = recv_datagram(conn.get());
    std::memcpy(&req, request.data(), sizeof(req));
    EXPECT_EQ(req.cmd, static_cast<uint32_t>(ETHTOOL_STUNABLE));
    EXPECT_EQ(req.len, sizeof(ethtool_tunable) + 2);
    uint16_t value = 0;
    std::memcpy(&value, request.data() + sizeof(req) + sizeof(ethtool_tunable), 2);
    EXPECT_EQ(value, 50);
    roce_sim_ethtool_rep error{-EINVAL, 0};
    ASSERT_GT(::send(conn.get(), &error, sizeof(error), 0), 0);
  });
  System system = roce_sim::simulated_system(dir_);
  EthtoolClient ethtool(system);
  auto info = ethtool.driver_info("lan2");
  auto bad = ethtool.set_pfc_prevention_timeout("lan2", 50);
  server.join();
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->driver, "mlx5_core");
  EXPECT_EQ(info->bus_info, "0000:17:00.0");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, EINVAL);
}

}  // namespace
}  // namespace roced
