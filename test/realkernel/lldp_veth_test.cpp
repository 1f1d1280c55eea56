// SPDX-License-Identifier: Apache-2.0
// LLDP through the real kernel's packet path: a switch played by a process in a network namespace
// of its own sends LLDP over a veth pair to the port the PeerWatch listens on (an AF_PACKET socket
// from os/packet_socket.cpp, in the host's namespace of the test). A veth has no DCB
// (dcbnl: EOPNOTSUPP), so the comparison is the frame size against the MTU.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "daemon/lldp/peer_watch.hpp"
#include "os/open_system.hpp"
#include "run_command.hpp"
#include "sim/model/switch_peer.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

using namespace std::chrono_literals;
using test::run_command;

bool ip(std::vector<std::string> args) {
  args.insert(args.begin(), "ip");
  const auto result = run_command(args);
  if (result.exit_code != 0) ADD_FAILURE() << "ip failed: " << result.err;
  return result.exit_code == 0;
}

// Two namespaces, "host" and "switch", joined by vethH (host) and vethS (switch).
class Cable {
 public:
  Cable()
      : host_("roced-lldp-h-" + std::to_string(::getpid())),
        switch_("roced-lldp-s-" + std::to_string(::getpid())) {
    for (const auto* ns : {&host_, &switch_}) run_command({"ip", "netns", "del", *ns});
    ok_ = ip({"netns", "add", host_}) && ip({"netns", "add", switch_}) &&
          ip({"-n", host_, "link", "add", "vethH", "type", "veth", "peer", "name", "vethS", "netns",
              switch_}) &&
          ip({"-n", host_, "link", "set", "vethH", "mtu", "9000", "up"}) &&
          ip({"-n", switch_, "link", "set", "vethS", "mtu", "9000", "up"});
  }
  ~Cable() {
    for (const auto* ns : {&host_, &switch_}) run_command({"ip", "netns", "del", *ns});
  }
  bool ok() const { return ok_; }
  const std::string& host() const { return host_; }
  const std::string& sw() const { return switch_; }

 private:
  std::string host_, switch_;
  bool ok_ = false;
};

// Enters `ns` on the calling thread (threads it starts later are there too).
bool enter(const std::string& ns) {
  const int fd = ::open(("/var/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool entered = ::setns(fd, CLONE_NEWNET) == 0;
  ::close(fd);
  return entered;
}

// Sends `frames` on `netdev` in namespace `ns` every 100 ms until killed: the switch.
pid_t start_switch(const std::string& ns, const std::string& netdev,
                   const std::vector<std::vector<uint8_t>>& frames) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  if (!enter(ns)) ::_exit(2);
  const int fd = ::socket(AF_PACKET, SOCK_RAW, 0);
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_ifindex = static_cast<int>(::if_nametoindex(netdev.c_str()));
  to.sll_halen = 6;
  if (fd < 0 || to.sll_ifindex == 0) ::_exit(3);
  for (;;) {
    for (const auto& frame : frames) {
      (void)::sendto(fd, frame.data(), frame.size(), 0, reinterpret_cast<sockaddr*>(&to),
                     sizeof to);
    }
    ::usleep(100'000);
  }
}

void stop(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

// Until `done` or 30 s of real time: what a machine however busy delivers well within it.
bool eventually(const std::function<bool()>& done) {
  for (auto end = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < end;) {
    if (done()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return done();
}

TEST(LldpVeth, TheSwitchsFramesCrossTheKernelAndAreCompared) {
  ASSERT_EQ(::geteuid(), 0u) << "needs root (network namespaces, packet sockets); CI runs as root";
  Cable cable;
  ASSERT_TRUE(cable.ok());
  roce_sim::SwitchPeer leaf;
  leaf.system_name = "leaf9";
  leaf.port = "swp9";
  leaf.pfc = 1u << 3;
  leaf.max_frame_size = 1518;  // below vethH's MTU 9000
  // What must not reach the listener: another ethertype to the same group, and LLDP to a unicast
  // address no one has (the group is the one joined).
  auto lldp = roce_sim::lldp_frame(leaf, "0c:42:a1:00:00:09");
  auto other_type = lldp;
  other_type[12] = 0x88;
  other_type[13] = 0xb5;
  auto truncated = std::vector<uint8_t>(lldp.begin(), lldp.begin() + 30);
  truncated.resize(60, 0);  // the End TLV and padding, then a TLV header claiming more
  truncated[30] = 0xfe;
  truncated[31] = 0xff;

  // The host's side: a thread of this test in the host namespace, as roced would be in its own.
  std::unique_ptr<lldp::PeerWatch> watch;
  System system;
  std::vector<std::string> told;
  std::mutex told_mutex;
  std::thread host([&] {
    ASSERT_TRUE(enter(cable.host()));
    system = real_system();
    watch =
        std::make_unique<lldp::PeerWatch>(system, [] { return std::vector<std::string>{"vethH"}; });
    watch->on_notice([&](const lldp::PeerNotice& notice) {
      const std::lock_guard lock(told_mutex);
      told.push_back(notice.text);
    });
    watch->start();  // its thread is made here: in the host namespace
  });
  host.join();
  ASSERT_TRUE(watch);

  const pid_t sw = start_switch(cable.sw(), "vethS", {other_type, truncated, lldp});
  const bool heard = eventually([&] {
    const auto peer = watch->peer("vethH");
    return peer && peer->neighbour && !peer->report.findings.empty();
  });
  stop(sw);
  ASSERT_TRUE(heard) << "nothing heard on vethH";
  const lldp::PortPeer peer = *watch->peer("vethH");
  EXPECT_EQ(peer.switch_port(), "leaf9 swp9");
  EXPECT_EQ(peer.report.state, lldp::PeerState::Compared);
  ASSERT_EQ(peer.report.findings.size(), 1u);
  EXPECT_EQ(peer.report.findings[0].id, "switch_max_frame_size");
  EXPECT_EQ(peer.report.findings[0].wanted, "MTU 9000 (frames up to 9018 bytes)");
  EXPECT_EQ(peer.report.findings[0].found, "1518 bytes");
  // The socket filter and the bound ethertype kept the other frame out; the truncated LLDP frame
  // reached the decoder and was counted.
  EXPECT_EQ(peer.dropped.count("not_lldp"), 0u);
  EXPECT_GE(peer.dropped.count("truncated"), 1u);
  {
    const std::lock_guard lock(told_mutex);
    EXPECT_EQ(std::count_if(told.begin(), told.end(),
                            [](const std::string& t) { return t.find("maximum frame") != t.npos; }),
              1);
  }
  watch.reset();
}

// rocectl qualify --listen on the host's side of the cable: the switch's frames reach the
// command through the kernel's packet path, and the report says what the switch advertises and
// how it differs, without its names.
TEST(LldpVeth, QualifyListenHearsTheSwitchAndLeavesItsNamesOut) {
  ASSERT_EQ(::geteuid(), 0u) << "needs root (network namespaces, packet sockets); CI runs as root";
  Cable cable;
  ASSERT_TRUE(cable.ok());
  roce_sim::SwitchPeer leaf;
  leaf.system_name = "leaf-private-7";
  leaf.port = "swp7";
  leaf.pfc = 1u << 3;
  leaf.max_frame_size = 1518;
  const pid_t sw =
      start_switch(cable.sw(), "vethS", {roce_sim::lldp_frame(leaf, "0c:42:a1:00:00:07")});
  char pattern[] = "/tmp/roced-qualify-veth-XXXXXX";
  const std::string out = ::mkdtemp(pattern);
  const auto result = run_command({"ip", "netns", "exec", cable.host(), ROCECTL_BINARY, "qualify",
                                   "--port", "vethH", "--listen", "20", "--json", "--out", out});
  stop(sw);
  std::filesystem::remove_all(out);
  // A veth is no mlx5 port: driver_is_mlx5 differs (exit 3); the listening is what is asked.
  EXPECT_EQ(result.exit_code, 3) << result.err;
  const auto report = nlohmann::json::parse(result.out);
  std::string evidence;
  std::string verdict;
  for (const auto& check : report["ports"][0]["checks"]) {
    if (check["id"] == "switch_lldp_heard") {
      evidence = check["evidence"];
      verdict = check["verdict"];
    }
  }
  EXPECT_EQ(verdict, "pass") << evidence;
  EXPECT_NE(evidence.find("switch_max_frame_size: the switch's maximum frame is below the host's "
                          "MTU: host MTU 9000"),
            std::string::npos)
      << evidence;
  EXPECT_NE(evidence.find("PFC on 3"), std::string::npos) << evidence;
  EXPECT_EQ(result.out.find("leaf-private-7"), std::string::npos);
  EXPECT_EQ(result.out.find("swp7"), std::string::npos);
}

// Without CAP_NET_RAW (a drop-in that removes it from the unit) the port reads not_listening,
// with the kernel's EPERM, and the watch goes on: in a child that drops the capability first.
TEST(LldpVeth, WithoutCapNetRawThePortReadsNotListening) {
  ASSERT_EQ(::geteuid(), 0u);
  const pid_t child = ::fork();
  if (child == 0) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (::syscall(SYS_capget, &header, data) != 0) ::_exit(10);
    for (auto& d : data) {
      d.effective &= ~(1u << CAP_NET_RAW);
      d.permitted &= ~(1u << CAP_NET_RAW);
    }
    if (::syscall(SYS_capset, &header, data) != 0) ::_exit(11);
    System system = real_system();
    lldp::PeerWatch watch(system, [] { return std::vector<std::string>{"lo"}; });
    watch.start();
    const bool told = eventually([&] { return watch.peer("lo").has_value(); });
    const auto peer = watch.peer("lo");
    if (!told || !peer) ::_exit(12);
    if (peer->report.state != lldp::PeerState::NotListening) ::_exit(13);
    if (peer->listen_error.find("Operation not permitted") == std::string::npos) ::_exit(14);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "12: no peer entry, 13: another state, 14: not EPERM";
}

}  // namespace
}  // namespace roced
