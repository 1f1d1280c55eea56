// SPDX-License-Identifier: Apache-2.0
// roce-sim's server seen from raw clients: a SEQPACKET socket speaking netlink bytes (as the shim
// or roced's transport would) and the ethtool framing of uapi/roce_sim.h. Each test starts the
// real binary on a fresh directory and waits for its readiness marker.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/dcbnl.h>
#include <linux/ethtool.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "roce_sim.h"
#include "test/support/build_paths.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using Clock = std::chrono::steady_clock;

constexpr auto kDeadline = std::chrono::seconds(30);

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Polls `condition` until it holds or the generous deadline passes.
template <typename F>
bool eventually(F condition) {
  const auto deadline = Clock::now() + kDeadline;
  while (Clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

// ---- a netlink message builder and parser, independent of the server's code
struct Msg {
  Bytes bytes;
  Msg(uint16_t type, uint16_t flags, uint32_t seq) {
    nlmsghdr h{};
    h.nlmsg_type = type;
    h.nlmsg_flags = flags;
    h.nlmsg_seq = seq;
    raw(&h, sizeof h);
  }
  void raw(const void* data, size_t len) {
    auto* p = static_cast<const uint8_t*>(data);
    bytes.insert(bytes.end(), p, p + len);
    bytes.resize(NLMSG_ALIGN(bytes.size()), 0);
  }
  size_t attr(uint16_t type, const void* data, size_t len) {
    const size_t start = bytes.size();
    nlattr a{static_cast<uint16_t>(NLA_HDRLEN + len), type};
    raw(&a, sizeof a);
    bytes.resize(start + NLA_HDRLEN);
    if (len)
      bytes.insert(bytes.end(), static_cast<const uint8_t*>(data),
                   static_cast<const uint8_t*>(data) + len);
    bytes.resize(NLA_ALIGN(bytes.size()), 0);
    return start;
  }
  void str(uint16_t type, const std::string& s) { attr(type, s.c_str(), s.size() + 1); }
  void end_nest(size_t start) {
    const auto len = static_cast<uint16_t>(bytes.size() - start);
    std::memcpy(bytes.data() + start, &len, 2);
  }
  Bytes done() {
    const auto len = static_cast<uint32_t>(bytes.size());
    std::memcpy(bytes.data(), &len, 4);
    return bytes;
  }
};

struct Parsed {
  nlmsghdr header{};
  Bytes payload;
};

std::vector<Parsed> split(const Bytes& datagram) {
  std::vector<Parsed> out;
  size_t off = 0;
  while (off + sizeof(nlmsghdr) <= datagram.size()) {
    Parsed p;
    std::memcpy(&p.header, datagram.data() + off, sizeof p.header);
    if (p.header.nlmsg_len < sizeof(nlmsghdr) || off + p.header.nlmsg_len > datagram.size()) break;
    p.payload.assign(datagram.begin() + static_cast<long>(off + sizeof(nlmsghdr)),
                     datagram.begin() + static_cast<long>(off + p.header.nlmsg_len));
    out.push_back(p);
    off += NLMSG_ALIGN(p.header.nlmsg_len);
  }
  return out;
}

std::map<uint16_t, Bytes> attrs(const Bytes& data, size_t offset) {
  std::map<uint16_t, Bytes> out;
  while (offset + NLA_HDRLEN <= data.size()) {
    nlattr a{};
    std::memcpy(&a, data.data() + offset, sizeof a);
    if (a.nla_len < NLA_HDRLEN || offset + a.nla_len > data.size()) break;
    out[a.nla_type & NLA_TYPE_MASK] = Bytes(data.begin() + static_cast<long>(offset + NLA_HDRLEN),
                                            data.begin() + static_cast<long>(offset + a.nla_len));
    offset += NLA_ALIGN(a.nla_len);
  }
  return out;
}

std::vector<std::pair<uint16_t, Bytes>> attr_list(const Bytes& data) {
  std::vector<std::pair<uint16_t, Bytes>> out;
  size_t offset = 0;
  while (offset + NLA_HDRLEN <= data.size()) {
    nlattr a{};
    std::memcpy(&a, data.data() + offset, sizeof a);
    if (a.nla_len < NLA_HDRLEN || offset + a.nla_len > data.size()) break;
    out.emplace_back(a.nla_type, Bytes(data.begin() + static_cast<long>(offset + NLA_HDRLEN),
                                       data.begin() + static_cast<long>(offset + a.nla_len)));
    offset += NLA_ALIGN(a.nla_len);
  }
  return out;
}

template <typename T>
T as(const Bytes& b) {
  T value{};
  std::memcpy(&value, b.data(), std::min(sizeof value, b.size()));
  return value;
}

std::string as_string(const Bytes& b) {
  return std::string(reinterpret_cast<const char*>(b.data()));
}

int error_of(const Parsed& p) { return as<int>(p.payload); }

// ---- a connection to one of the server's sockets
class Conn {
 public:
  explicit Conn(const fs::path& path) {
    fd_ = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Conn() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send(const Bytes& datagram) const {
    ASSERT_EQ(::send(fd_, datagram.data(), datagram.size(), 0),
              static_cast<ssize_t>(datagram.size()));
  }
  std::optional<Bytes> recv(int timeout_ms = 30000) const {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) != 1) return std::nullopt;
    Bytes buffer(ROCE_SIM_MAX_DATAGRAM);
    const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
    if (n <= 0) return std::nullopt;
    buffer.resize(static_cast<size_t>(n));
    return buffer;
  }
  void ctl(uint32_t op, uint32_t arg, uint32_t arg2 = 0) const {
    Msg m(ROCE_SIM_NLMSG_CTL, NLM_F_REQUEST, 0);
    roce_sim_nl_ctl c{op, arg, arg2, 0};
    m.raw(&c, sizeof c);
    send(m.done());
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

// ---- the server process
class SimServer : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/roce-sim-server-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::vector<std::string> args = {"run", "--dir", (dir_ / "node").string()};
    for (std::string& extra : extra_run_args()) args.push_back(std::move(extra));
    if (instant_links()) {
      args.push_back("--link-training");
      args.push_back("0");
    }
    start(std::move(args));
    const auto deadline = Clock::now() + kDeadline;
    while (!fs::exists(node() / ROCE_SIM_PIDFILE)) {
      int status = 0;
      ASSERT_EQ(::waitpid(pid_, &status, WNOHANG), 0)
          << "roce-sim exited during start-up: " << log();
      ASSERT_LT(Clock::now(), deadline) << "roce-sim did not become ready";
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // Written before the readiness marker (uapi/roce_sim.h).
    ASSERT_TRUE(fs::exists(node() / ROCE_SIM_CLOCKFILE));
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    fs::remove_all(dir_);
  }

  // Arguments added to `run --dir DIR` (dir_ is set): a derived fixture adds a scenario.
  virtual std::vector<std::string> extra_run_args() { return {}; }
  // Links that train inside a PFC change instead of in mlx5's seconds.
  virtual bool instant_links() const { return false; }

  void start(std::vector<std::string> args) { pid_ = spawn(std::move(args), dir_ / "server.log"); }

  // `input`, when given, is the command's stdin.
  static pid_t spawn(std::vector<std::string> args, const fs::path& output,
                     const fs::path& input = {}) {
    std::string binary = ROCE_SIM_BINARY;
    std::vector<char*> argv{binary.data()};
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    if (!input.empty()) posix_spawn_file_actions_addopen(&actions, 0, input.c_str(), O_RDONLY, 0);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc == 0 ? pid : -1;
  }

  fs::path node() const { return dir_ / "node"; }
  std::string log() const { return read_file(dir_ / "server.log"); }

  // A netlink connection bound to `pid`.
  std::unique_ptr<Conn> rtnl(uint32_t pid) {
    auto c = std::make_unique<Conn>(node() / ROCE_SIM_RTNL_SOCKET);
    EXPECT_TRUE(c->connected());
    c->ctl(ROCE_SIM_CTL_BIND, pid, 0);
    return c;
  }

  // Sends one request; returns every message of the next datagram.
  static std::vector<Parsed> request(const Conn& c, const Bytes& message) {
    c.send(message);
    auto reply = c.recv();
    EXPECT_TRUE(reply.has_value()) << "no reply";
    return reply ? split(*reply) : std::vector<Parsed>{};
  }

  static Bytes dcb_request(uint16_t type, uint8_t cmd, const std::string& ifname, uint32_t seq,
                           const std::function<void(Msg&)>& body = {}) {
    Msg m(type, NLM_F_REQUEST, seq);
    dcbmsg d{};
    d.dcb_family = AF_UNSPEC;
    d.cmd = cmd;
    m.raw(&d, sizeof d);
    m.str(DCB_ATTR_IFNAME, ifname);
    if (body) body(m);
    return m.done();
  }

  // IEEE_GET -> the nested DCB_ATTR_IEEE attributes, plus DCBX.
  struct Ieee {
    std::map<uint16_t, Bytes> ieee;
    std::vector<dcb_app> apps;
    std::optional<uint8_t> dcbx;
  };
  static Ieee ieee_get(const Conn& c, const std::string& ifname) {
    Ieee out;
    auto msgs = request(c, dcb_request(RTM_GETDCB, DCB_CMD_IEEE_GET, ifname, 7));
    EXPECT_EQ(msgs.size(), 1u);
    if (msgs.empty()) return out;
    EXPECT_EQ(msgs[0].header.nlmsg_type, RTM_GETDCB);
    EXPECT_EQ(as<dcbmsg>(msgs[0].payload).cmd, DCB_CMD_IEEE_GET);
    auto top = attrs(msgs[0].payload, NLMSG_ALIGN(sizeof(dcbmsg)));
    EXPECT_EQ(as_string(top[DCB_ATTR_IFNAME]), ifname);
    out.ieee = attrs(top[DCB_ATTR_IEEE], 0);
    for (const auto& [type, value] : attr_list(out.ieee[DCB_ATTR_IEEE_APP_TABLE])) {
      if (type == DCB_ATTR_IEEE_APP) out.apps.push_back(as<dcb_app>(value));
    }
    if (top.count(DCB_ATTR_DCBX)) out.dcbx = top[DCB_ATTR_DCBX][0];
    return out;
  }

  // IEEE_SET with one sub-attribute; returns the status byte of the reply.
  static int ieee_set(const Conn& c, const std::string& ifname, uint16_t type, const void* data,
                      size_t len) {
    auto msgs = request(c, dcb_request(RTM_SETDCB, DCB_CMD_IEEE_SET, ifname, 9, [&](Msg& m) {
                          const size_t nest = m.attr(DCB_ATTR_IEEE, nullptr, 0);
                          m.attr(type, data, len);
                          m.end_nest(nest);
                        }));
    EXPECT_EQ(msgs.size(), 1u);
    if (msgs.empty()) return -1;
    EXPECT_EQ(msgs[0].header.nlmsg_type, RTM_SETDCB);
    EXPECT_EQ(msgs[0].header.nlmsg_pid, 4242u);
    auto top = attrs(msgs[0].payload, NLMSG_ALIGN(sizeof(dcbmsg)));
    EXPECT_EQ(top[DCB_ATTR_IEEE].size(), 1u);
    return top[DCB_ATTR_IEEE].empty() ? -1 : top[DCB_ATTR_IEEE][0];
  }
  // `dcb apptrust set`'s attribute with a malformed selector entry: what the node's kernel makes
  // of it decides, before mlx5 is asked.
  static int set_app_trust(const Conn& c, const std::string& ifname) {
    const uint8_t table[8] = {6, 0, 1, 0, 5, 3, 0, 0};  // one 2-byte entry: nla_len 6, type 1
    constexpr uint16_t kAppTrustTable = 11;             // DCB_ATTR_DCB_APP_TRUST_TABLE (6.2+)
    return ieee_set(c, ifname, kAppTrustTable | NLA_F_NESTED, table, sizeof table);
  }

  // ethtool framing: header + payload; returns (error, payload).
  std::pair<int, Bytes> ethtool(const std::string& ifname, uint32_t cmd, const Bytes& payload) {
    Conn c(node() / ROCE_SIM_ETHTOOL_SOCKET);
    EXPECT_TRUE(c.connected());
    roce_sim_ethtool_req req{};
    std::strncpy(req.ifname, ifname.c_str(), sizeof req.ifname - 1);
    req.cmd = cmd;
    req.len = static_cast<uint32_t>(payload.size());
    Bytes datagram(sizeof req);
    std::memcpy(datagram.data(), &req, sizeof req);
    datagram.insert(datagram.end(), payload.begin(), payload.end());
    c.send(datagram);
    auto reply = c.recv();
    EXPECT_TRUE(reply.has_value());
    if (!reply || reply->size() < sizeof(roce_sim_ethtool_rep)) return {-9999, {}};
    auto rep = as<roce_sim_ethtool_rep>(*reply);
    EXPECT_EQ(rep.len, reply->size() - sizeof rep);
    return {rep.error, Bytes(reply->begin() + sizeof rep, reply->end())};
  }

  std::vector<std::string> stat_names(const std::string& ifname) {
    ethtool_gstrings g{};
    g.cmd = ETHTOOL_GSTRINGS;
    g.string_set = ETH_SS_STATS;
    Bytes in(sizeof g);
    std::memcpy(in.data(), &g, sizeof g);
    auto [err, out] = ethtool(ifname, ETHTOOL_GSTRINGS, in);
    EXPECT_EQ(err, 0);
    std::vector<std::string> names;
    if (out.size() < sizeof g) return names;
    const auto header = as<ethtool_gstrings>(out);
    EXPECT_EQ(out.size(), sizeof g + header.len * ETH_GSTRING_LEN);
    for (size_t i = 0; i < header.len; ++i) {
      names.emplace_back(
          reinterpret_cast<const char*>(out.data() + sizeof g + i * ETH_GSTRING_LEN));
    }
    return names;
  }

  fs::path dir_;
  pid_t pid_ = -1;
};

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// ---------------------------------------------------------------------------------------------

TEST_F(SimServer, LinkDumpIsOneDatagramWithFourPortsAndDone) {
  auto c = rtnl(4242);
  Msg m(RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 11);
  ifinfomsg ifi{};
  m.raw(&ifi, sizeof ifi);
  uint32_t mask = RTEXT_FILTER_VF;
  m.attr(IFLA_EXT_MASK, &mask, sizeof mask);  // ignored, as for a device without VFs
  auto msgs = request(*c, m.done());
  ASSERT_EQ(msgs.size(), 5u);
  std::vector<std::string> names;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(msgs[i].header.nlmsg_type, RTM_NEWLINK);
    EXPECT_EQ(msgs[i].header.nlmsg_flags, NLM_F_MULTI);
    EXPECT_EQ(msgs[i].header.nlmsg_seq, 11u);
    EXPECT_EQ(msgs[i].header.nlmsg_pid, 4242u);
    const auto info = as<ifinfomsg>(msgs[i].payload);
    EXPECT_EQ(info.ifi_type, 1);  // ARPHRD_ETHER
    EXPECT_EQ(info.ifi_flags & (IFF_UP | IFF_RUNNING | IFF_LOWER_UP),
              IFF_UP | IFF_RUNNING | IFF_LOWER_UP);
    auto a = attrs(msgs[i].payload, NLMSG_ALIGN(sizeof(ifinfomsg)));
    names.push_back(as_string(a[IFLA_IFNAME]));
    EXPECT_EQ(as<uint32_t>(a[IFLA_MTU]), 1500u);
    EXPECT_EQ(a[IFLA_ADDRESS].size(), 6u);
    EXPECT_EQ(a[IFLA_OPERSTATE].at(0), IF_OPER_UP);
    EXPECT_EQ(as_string(a[IFLA_PARENT_DEV_BUS_NAME]), "pci");
  }
  EXPECT_EQ(names, (std::vector<std::string>{"lan2", "lan3", "lan4", "lan5"}));
  EXPECT_EQ(msgs[4].header.nlmsg_type, NLMSG_DONE);
  EXPECT_EQ(msgs[4].header.nlmsg_flags, NLM_F_MULTI);
}

TEST_F(SimServer, SetLinkMtuReadsBackAndRefusesBadValues) {
  auto c = rtnl(4242);
  auto set_mtu = [&](const std::string& name, uint32_t mtu) {
    Msg m(RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, 21);
    ifinfomsg ifi{};
    m.raw(&ifi, sizeof ifi);
    m.str(IFLA_IFNAME, name);
    m.attr(IFLA_MTU, &mtu, sizeof mtu);
    auto msgs = request(*c, m.done());
    EXPECT_EQ(msgs.size(), 1u);
    EXPECT_EQ(msgs.at(0).header.nlmsg_type, NLMSG_ERROR);
    EXPECT_EQ(msgs.at(0).header.nlmsg_pid, 4242u);
    return error_of(msgs.at(0));
  };
  auto get = [&](const std::string& name) {
    Msg m(RTM_GETLINK, NLM_F_REQUEST, 22);
    ifinfomsg ifi{};
    m.raw(&ifi, sizeof ifi);
    m.str(IFLA_IFNAME, name);
    return request(*c, m.done());
  };
  EXPECT_EQ(set_mtu("lan2", 4200), 0);
  auto msgs = get("lan2");
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0].header.nlmsg_type, RTM_NEWLINK);
  EXPECT_EQ(as<uint32_t>(attrs(msgs[0].payload, NLMSG_ALIGN(sizeof(ifinfomsg)))[IFLA_MTU]), 4200u);
  EXPECT_TRUE(eventually([&] { return read_file(node() / "sys/class/net/lan2/mtu") == "4200\n"; }));

  EXPECT_EQ(set_mtu("lan2", 20000), -EINVAL);  // above max_mtu
  EXPECT_EQ(set_mtu("lan9", 9000), -ENODEV);
  msgs = get("lan9");
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0].header.nlmsg_type, NLMSG_ERROR);
  EXPECT_EQ(error_of(msgs[0]), -ENODEV);
  msgs = get("lan2");
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(as<uint32_t>(attrs(msgs[0].payload, NLMSG_ALIGN(sizeof(ifinfomsg)))[IFLA_MTU]), 4200u);
}

TEST_F(SimServer, MtuChangeIsNotifiedOnRtnlgrpLink) {
  auto listener = rtnl(777);
  listener->ctl(ROCE_SIM_CTL_ADD_MEMBERSHIP, RTNLGRP_LINK);
  auto c = rtnl(4242);
  Msg m(RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, 5);
  ifinfomsg ifi{};
  m.raw(&ifi, sizeof ifi);
  m.str(IFLA_IFNAME, "lan4");
  uint32_t mtu = 9000;
  m.attr(IFLA_MTU, &mtu, sizeof mtu);
  auto ack = request(*c, m.done());
  ASSERT_EQ(ack.size(), 1u);
  EXPECT_EQ(error_of(ack[0]), 0);
  auto note = listener->recv();
  ASSERT_TRUE(note.has_value());
  auto msgs = split(*note);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0].header.nlmsg_type, RTM_NEWLINK);
  EXPECT_EQ(msgs[0].header.nlmsg_pid, 0u);
  auto a = attrs(msgs[0].payload, NLMSG_ALIGN(sizeof(ifinfomsg)));
  EXPECT_EQ(as_string(a[IFLA_IFNAME]), "lan4");
  EXPECT_EQ(as<uint32_t>(a[IFLA_MTU]), 9000u);
}

TEST_F(SimServer, DcbIeeeGetCarriesEtsPfcAppTableAndDcbx) {
  auto c = rtnl(4242);
  auto got = ieee_get(*c, "lan2");
  ASSERT_EQ(got.ieee[DCB_ATTR_IEEE_ETS].size(), sizeof(ieee_ets));
  ASSERT_EQ(got.ieee[DCB_ATTR_IEEE_PFC].size(), sizeof(ieee_pfc));
  EXPECT_EQ(got.ieee.count(DCB_ATTR_IEEE_APP_TABLE), 1u);
  EXPECT_EQ(got.ieee.count(DCB_ATTR_IEEE_MAXRATE), 1u);
  const auto ets = as<ieee_ets>(got.ieee[DCB_ATTR_IEEE_ETS]);
  for (int tc = 0; tc < 8; ++tc) {  // mlx5 at load: every TC vendor-specific at 100
    EXPECT_EQ(ets.tc_tsa[tc], IEEE_8021QAZ_TSA_VENDOR) << tc;
    EXPECT_EQ(ets.tc_tx_bw[tc], 100) << tc;
  }
  EXPECT_EQ(ets.prio_tc[0], 1);  // mlx5 default prio_tc {1,0,2,...}
  const auto pfc = as<ieee_pfc>(got.ieee[DCB_ATTR_IEEE_PFC]);
  EXPECT_EQ(pfc.pfc_cap, 8);
  EXPECT_EQ(pfc.pfc_en, 0);
  EXPECT_TRUE(got.apps.empty());
  EXPECT_TRUE(got.dcbx.has_value());

  // Unknown device: NLMSG_ERROR -ENODEV.
  auto msgs = request(*c, dcb_request(RTM_GETDCB, DCB_CMD_IEEE_GET, "lan9", 8));
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0].header.nlmsg_type, NLMSG_ERROR);
  EXPECT_EQ(error_of(msgs[0]), -ENODEV);
}

TEST_F(SimServer, PfcSetReportsStatusZeroAndChangesTheEthtoolStringSet) {
  auto c = rtnl(4242);
  auto before = stat_names("lan2");
  EXPECT_TRUE(contains(before, "rx_prio3_bytes"));
  EXPECT_FALSE(contains(before, "rx_prio3_pause"));

  auto pfc = as<ieee_pfc>(ieee_get(*c, "lan2").ieee[DCB_ATTR_IEEE_PFC]);
  pfc.pfc_en = 1 << 3;
  EXPECT_EQ(ieee_set(*c, "lan2", DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc), 0);
  EXPECT_EQ(as<ieee_pfc>(ieee_get(*c, "lan2").ieee[DCB_ATTR_IEEE_PFC]).pfc_en, 1 << 3);

  auto after = stat_names("lan2");
  EXPECT_TRUE(contains(after, "rx_prio3_pause"));
  EXPECT_FALSE(contains(after, "rx_prio4_pause"));
  // GSTATS: as many values as names.
  ethtool_stats s{};
  s.cmd = ETHTOOL_GSTATS;
  Bytes in(sizeof s);
  std::memcpy(in.data(), &s, sizeof s);
  auto [err, out] = ethtool("lan2", ETHTOOL_GSTATS, in);
  ASSERT_EQ(err, 0);
  const auto header = as<ethtool_stats>(out);
  EXPECT_EQ(header.n_stats, after.size());
  EXPECT_EQ(out.size(), sizeof s + header.n_stats * sizeof(uint64_t));
}

TEST_F(SimServer, InvalidEtsIsRefusedInTheStatusByteAndChangesNothing) {
  auto c = rtnl(4242);
  const auto before = as<ieee_ets>(ieee_get(*c, "lan3").ieee[DCB_ATTR_IEEE_ETS]);
  ieee_ets bad = before;
  for (auto& tsa : bad.tc_tsa) tsa = IEEE_8021QAZ_TSA_ETS;
  const uint8_t bw[8] = {50, 40, 0, 0, 0, 0, 0, 0};  // sums to 90
  std::memcpy(bad.tc_tx_bw, bw, sizeof bw);
  EXPECT_EQ(ieee_set(*c, "lan3", DCB_ATTR_IEEE_ETS, &bad, sizeof bad),
            static_cast<uint8_t>(-EINVAL));
  const auto after = as<ieee_ets>(ieee_get(*c, "lan3").ieee[DCB_ATTR_IEEE_ETS]);
  EXPECT_EQ(std::memcmp(after.tc_tx_bw, before.tc_tx_bw, sizeof before.tc_tx_bw), 0);
  EXPECT_EQ(std::memcmp(after.tc_tsa, before.tc_tsa, sizeof before.tc_tsa), 0);
}

TEST_F(SimServer, SdcbxHostIsTakenAndLldManagedRefused) {
  auto c = rtnl(4242);
  auto sdcbx = [&](uint8_t mode) {
    auto msgs = request(*c, dcb_request(RTM_SETDCB, DCB_CMD_SDCBX, "lan2", 3,
                                        [&](Msg& m) { m.attr(DCB_ATTR_DCBX, &mode, 1); }));
    EXPECT_EQ(msgs.size(), 1u);
    auto top = attrs(msgs.at(0).payload, NLMSG_ALIGN(sizeof(dcbmsg)));
    EXPECT_EQ(top[DCB_ATTR_DCBX].size(), 1u);
    return top[DCB_ATTR_DCBX].at(0);
  };
  EXPECT_EQ(sdcbx(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE), 0);
  EXPECT_NE(sdcbx(DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE), 0);
  auto msgs = request(*c, dcb_request(RTM_GETDCB, DCB_CMD_GDCBX, "lan2", 4));
  ASSERT_EQ(msgs.size(), 1u);
  auto top = attrs(msgs[0].payload, NLMSG_ALIGN(sizeof(dcbmsg)));
  ASSERT_EQ(top[DCB_ATTR_DCBX].size(), 1u);
  EXPECT_TRUE(top[DCB_ATTR_DCBX][0] & DCB_CAP_DCBX_HOST);
}

// dcbnl_getcap asks mlx5e_dcbnl_getcap for each capability: no GSP, the DCBX bits those of
// getdcbx with CEE and IEEE added (en_dcbnl.c).
TEST_F(SimServer, GcapAnswersAsMlx5eDcbnlGetcap) {
  auto c = rtnl(4242);
  auto msgs = request(*c, dcb_request(RTM_GETDCB, DCB_CMD_GCAP, "lan2", 5, [&](Msg& m) {
    const size_t nest = m.attr(DCB_ATTR_CAP, nullptr, 0);
    m.attr(DCB_CAP_ATTR_ALL, nullptr, 0);
    m.end_nest(nest);
  }));
  ASSERT_EQ(msgs.size(), 1u);
  auto top = attrs(msgs[0].payload, NLMSG_ALIGN(sizeof(dcbmsg)));
  auto caps = attrs(top[DCB_ATTR_CAP], 0);
  const auto cap = [&](uint16_t id) { return caps[id].empty() ? -1 : int{caps[id][0]}; };
  EXPECT_EQ(cap(DCB_CAP_ATTR_PG), 1);
  EXPECT_EQ(cap(DCB_CAP_ATTR_PFC), 1);
  EXPECT_EQ(cap(DCB_CAP_ATTR_UP2TC), 0);
  EXPECT_EQ(cap(DCB_CAP_ATTR_PG_TCS), 1 << 7);
  EXPECT_EQ(cap(DCB_CAP_ATTR_PFC_TCS), 1 << 7);
  EXPECT_EQ(cap(DCB_CAP_ATTR_GSP), 0);
  EXPECT_EQ(cap(DCB_CAP_ATTR_BCN), 0);
  auto dcbx = request(*c, dcb_request(RTM_GETDCB, DCB_CMD_GDCBX, "lan2", 6));
  ASSERT_EQ(dcbx.size(), 1u);
  const uint8_t mode = attrs(dcbx[0].payload, NLMSG_ALIGN(sizeof(dcbmsg)))[DCB_ATTR_DCBX].at(0);
  EXPECT_EQ(cap(DCB_CAP_ATTR_DCBX), mode | DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE);
}

TEST_F(SimServer, DcbNotificationReachesOnlyClientsInRtnlgrpDcb) {
  auto joined = rtnl(101);
  joined->ctl(ROCE_SIM_CTL_ADD_MEMBERSHIP, RTNLGRP_DCB);
  auto other = rtnl(102);
  other->ctl(ROCE_SIM_CTL_ADD_MEMBERSHIP, RTNLGRP_LINK);
  auto setter = rtnl(4242);
  dcb_app app{IEEE_8021QAZ_APP_SEL_DSCP, 3, 26};
  auto msgs = request(*setter, dcb_request(RTM_SETDCB, DCB_CMD_IEEE_SET, "lan5", 9, [&](Msg& m) {
    const size_t ieee = m.attr(DCB_ATTR_IEEE, nullptr, 0);
    const size_t table = m.attr(DCB_ATTR_IEEE_APP_TABLE, nullptr, 0);
    m.attr(DCB_ATTR_IEEE_APP, &app, sizeof app);
    m.end_nest(table);
    m.end_nest(ieee);
  }));
  ASSERT_EQ(msgs.size(), 1u);

  auto note = joined->recv();
  ASSERT_TRUE(note.has_value());
  auto notes = split(*note);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].header.nlmsg_type, RTM_SETDCB);
  EXPECT_EQ(notes[0].header.nlmsg_pid, 0u);
  EXPECT_EQ(as<dcbmsg>(notes[0].payload).cmd, DCB_CMD_IEEE_SET);
  auto top = attrs(notes[0].payload, NLMSG_ALIGN(sizeof(dcbmsg)));
  EXPECT_EQ(as_string(top[DCB_ATTR_IFNAME]), "lan5");
  auto ieee = attrs(top[DCB_ATTR_IEEE], 0);
  auto apps = attr_list(ieee[DCB_ATTR_IEEE_APP_TABLE]);
  ASSERT_EQ(apps.size(), 1u);
  EXPECT_EQ(as<dcb_app>(apps[0].second).protocol, 26);

  // The server handles requests in order: had `other` been sent the notification, it would be
  // queued before the reply to this request.
  Msg m(RTM_GETLINK, NLM_F_REQUEST, 33);
  ifinfomsg ifi{};
  m.raw(&ifi, sizeof ifi);
  m.str(IFLA_IFNAME, "lan5");
  auto first = request(*other, m.done());
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].header.nlmsg_type, RTM_NEWLINK);
  EXPECT_EQ(first[0].header.nlmsg_seq, 33u);
}

// Bookworm's 6.1 has no such attribute: dcbnl_ieee_set passes over it and answers 0.
TEST_F(SimServer, AnAppTrustTableIsIgnoredBy61) {
  auto c = rtnl(4242);
  EXPECT_EQ(set_app_trust(*c, "lan2"), 0);
}

// Trixie's 6.12 refuses it for a driver without dcbnl_setapptrust, whatever it holds.
class SimServerOn612 : public SimServer {
 protected:
  std::vector<std::string> extra_run_args() override {
    return {"--node", std::string(ROCE_SIM_SOURCE_DIR) + "/sim/nodes/dual-port-debian-6.12.yaml"};
  }
};

TEST_F(SimServerOn612, AnAppTrustTableIsRefusedBeforeItIsRead) {
  auto c = rtnl(4242);
  EXPECT_EQ(set_app_trust(*c, "ens1f0np0"), static_cast<uint8_t>(-EOPNOTSUPP));
}

TEST_F(SimServer, EthtoolTunableAndErrors) {
  auto tunable = [&](uint32_t cmd, uint16_t value) {
    ethtool_tunable t{};
    t.cmd = cmd;
    t.id = ETHTOOL_PFC_PREVENTION_TOUT;
    t.type_id = ETHTOOL_TUNABLE_U16;
    t.len = 2;
    Bytes in(sizeof t + 2);
    std::memcpy(in.data(), &t, sizeof t);
    std::memcpy(in.data() + sizeof t, &value, 2);
    return ethtool("lan2", cmd, in);
  };
  EXPECT_EQ(tunable(ETHTOOL_STUNABLE, 500).first, 0);
  auto [err, out] = tunable(ETHTOOL_GTUNABLE, 0);
  ASSERT_EQ(err, 0);
  ASSERT_EQ(out.size(), sizeof(ethtool_tunable) + 2);
  uint16_t ms = 0;
  std::memcpy(&ms, out.data() + sizeof(ethtool_tunable), 2);
  EXPECT_EQ(ms, 500);
  EXPECT_EQ(tunable(ETHTOOL_STUNABLE, 50).first, -EINVAL);  // mlx5: 80..8000, 0 or 0xffff
  EXPECT_EQ(tunable(ETHTOOL_STUNABLE, 9000).first, -EINVAL);

  ethtool_drvinfo drv{};
  drv.cmd = ETHTOOL_GDRVINFO;
  Bytes in(sizeof drv);
  std::memcpy(in.data(), &drv, sizeof drv);
  auto info = ethtool("lan3", ETHTOOL_GDRVINFO, in);
  ASSERT_EQ(info.first, 0);
  drv = as<ethtool_drvinfo>(info.second);
  EXPECT_STREQ(drv.driver, "mlx5_core");
  EXPECT_STREQ(drv.bus_info, "0000:3d:00.0");
  EXPECT_EQ(ethtool("lan9", ETHTOOL_GDRVINFO, in).first, -ENODEV);
  EXPECT_EQ(ethtool("lan3", 0x7777, {}).first, -EOPNOTSUPP);
}

TEST_F(SimServer, FileTreeHasNetdevRdmaAndGidFiles) {
  const fs::path net = node() / "sys/class/net/lan2";
  EXPECT_EQ(read_file(net / "mtu"), "1500\n");
  EXPECT_EQ(read_file(net / "type"), "1\n");
  EXPECT_EQ(fs::read_symlink(net / "device"), "../../../bus/pci/devices/0000:17:00.0");
  EXPECT_EQ(fs::canonical(net / "device" / "driver").filename(), "mlx5_core");
  EXPECT_TRUE(fs::is_directory(net / "device" / "infiniband" / "mlx5_0"));
  const fs::path port = node() / "sys/class/infiniband/mlx5_0/ports/1";
  EXPECT_EQ(read_file(port / "state"), "4: ACTIVE\n");
  EXPECT_EQ(read_file(port / "link_layer"), "Ethernet\n");
  EXPECT_EQ(read_file(port / "gids/3"), "0000:0000:0000:0000:0000:ffff:c0a8:020a\n");
  EXPECT_EQ(read_file(port / "gid_attrs/types/3"), "RoCE v2\n");
  EXPECT_EQ(read_file(port / "gid_attrs/ndevs/3"), "lan2\n");
  EXPECT_EQ(read_file(port / "gids/200"), "0000:0000:0000:0000:0000:0000:0000:0000\n");
  EXPECT_FALSE(fs::exists(port / "gid_attrs/types/200"));
  EXPECT_EQ(read_file(port / "counters/port_xmit_data"), "0\n");  // no traffic scenario
  EXPECT_EQ(read_file(port / "counters/symbol_error"), "0\n");
  EXPECT_TRUE(fs::exists(node() / "debug/mlx5/0000:17:00.0/cc_params/rp_time_reset"));
}

TEST_F(SimServer, RdmaCmConfigfsWritesAreAppliedOrReverted) {
  const fs::path group = node() / "config/rdma_cm/mlx5_1";
  ASSERT_TRUE(fs::create_directory(group));
  const fs::path mode = group / "ports/1/default_roce_mode";
  ASSERT_TRUE(eventually([&] { return fs::exists(mode) && !read_file(mode).empty(); })) << log();
  auto write = [](const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::trunc);
    out << text;
  };
  // The server rewrites an applied value with the kernel's spelling (trailing newline).
  write(mode, "IB/RoCE v1");
  EXPECT_TRUE(eventually([&] { return read_file(mode) == "IB/RoCE v1\n"; })) << read_file(mode);
  write(mode, "RoCE v2");
  EXPECT_TRUE(eventually([&] { return read_file(mode) == "RoCE v2\n"; })) << read_file(mode);
  write(mode, "bogus");
  EXPECT_TRUE(eventually([&] { return read_file(mode) == "RoCE v2\n"; })) << read_file(mode);
  // A debugfs knob: applied, and a value wider than its 6-bit field keeps the low bits (cong.c
  // stores it with MLX5_SET); one that is no number at all is reverted.
  const fs::path dscp = node() / "debug/mlx5/0000:17:00.0/cc_params/np_cnp_dscp";
  write(dscp, "46");  // applied: rewritten as "46\n"
  EXPECT_TRUE(eventually([&] { return read_file(dscp) == "46\n"; })) << read_file(dscp);
  write(dscp, "99\n");
  EXPECT_TRUE(eventually([&] { return read_file(dscp) == "35\n"; })) << read_file(dscp);
  write(dscp, "lots\n");
  EXPECT_TRUE(eventually([&] { return read_file(dscp) == "35\n"; })) << read_file(dscp);
}

TEST_F(SimServer, SigtermRemovesSocketsAndPidfile) {
  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid_, &status, 0), pid_);
  pid_ = -1;
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_FALSE(fs::exists(node() / ROCE_SIM_PIDFILE));
  EXPECT_FALSE(fs::exists(node() / ROCE_SIM_CLOCKFILE));
  EXPECT_FALSE(fs::exists(node() / ROCE_SIM_RTNL_SOCKET));
  EXPECT_FALSE(fs::exists(node() / ROCE_SIM_ETHTOOL_SOCKET));
}

// `run --help` is answered (usage, exit 0); a mistake is a usage error (exit 2), starting nothing.
TEST_F(SimServer, RunHelpIsAnsweredAndAMistakeIsAUsageError) {
  const auto exit_of = [&](std::vector<std::string> args, const fs::path& log) {
    const pid_t pid = spawn(std::move(args), log);
    int status = 0;
    EXPECT_EQ(::waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(exit_of({"run", "--help"}, dir_ / "help.log"), 0);
  EXPECT_NE(read_file(dir_ / "help.log").find("usage: roce-sim run"), std::string::npos);
  EXPECT_EQ(exit_of({"inject", "-h"}, dir_ / "h.log"), 0);
  EXPECT_EQ(exit_of({"run", "--dri", "x"}, dir_ / "bad.log"), 2);
  EXPECT_NE(read_file(dir_ / "bad.log").find("roce-sim: unknown option '--dri'"),
            std::string::npos);
}

TEST_F(SimServer, BadNodeFileExitsOneWithFileLineColumn) {
  const fs::path bad = dir_ / "bad.yaml";
  std::ofstream(bad)
      << "nics:\n  - pci: 0000:17:00.0\n    ports:\n      - netdev: lan2\n        speed: fast\n";
  const pid_t pid =
      spawn({"run", "--node", bad.string(), "--dir", (dir_ / "other").string()}, dir_ / "bad.log");
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string output = read_file(dir_ / "bad.log");
  EXPECT_TRUE(std::regex_search(output, std::regex(R"(bad\.yaml:[0-9]+:[0-9]+: )"))) << output;
  EXPECT_FALSE(fs::exists(dir_ / "other" / ROCE_SIM_PIDFILE));
}

TEST_F(SimServer, ScenarioLogIsPrintedAndDurationEndsTheRun) {
  const fs::path scenario = fs::path(ROCE_SIM_SOURCE_DIR) / "sim/scenarios/reload.yaml";
  ASSERT_TRUE(fs::exists(scenario));
  const pid_t pid = spawn({"run", "--scenario", scenario.string(), "--speed", "200", "--duration",
                           "1000", "--dir", (dir_ / "scenario").string()},
                          dir_ / "scenario.log");
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);  // ends when the scenario does (--duration given)
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const std::string output = read_file(dir_ / "scenario.log");
  EXPECT_NE(output.find("t=10.000s lan3:"), std::string::npos) << output;
  EXPECT_NE(output.find("scenario finished"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(dir_ / "scenario" / ROCE_SIM_PIDFILE));
}

TEST_F(SimServer, ExecRunsTheCommandWithTheShimAndDir) {
  const pid_t pid =
      spawn({"exec", node().string(), "--", "sh", "-c", "echo \"$ROCE_SIM_DIR|$LD_PRELOAD\""},
            dir_ / "exec.log");
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string output = read_file(dir_ / "exec.log");
  EXPECT_EQ(output.rfind(node().string() + "|", 0), 0u) << output;
  EXPECT_NE(output.find("libroce_sim_shim.so"), std::string::npos) << output;
}

// ---- the write counter (DIR/roce-sim.writes) and `netlink_errors` with `op:`

// Client requests made through the test's raw sockets and files.
class SimServerWrites : public SimServer {
 protected:
  std::string writes() const { return read_file(node() / "roce-sim.writes"); }

  static int set_mtu(const Conn& c, const std::string& name, uint32_t mtu) {
    Msg m(RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, 21);
    ifinfomsg ifi{};
    m.raw(&ifi, sizeof ifi);
    m.str(IFLA_IFNAME, name);
    m.attr(IFLA_MTU, &mtu, sizeof mtu);
    auto msgs = request(c, m.done());
    EXPECT_EQ(msgs.size(), 1u);
    return msgs.empty() ? -9999 : error_of(msgs.at(0));
  }
  int set_stall_prevention(const std::string& ifname, uint16_t value) {
    ethtool_tunable t{};
    t.cmd = ETHTOOL_STUNABLE;
    t.id = ETHTOOL_PFC_PREVENTION_TOUT;
    t.type_id = ETHTOOL_TUNABLE_U16;
    t.len = 2;
    Bytes in(sizeof t + 2);
    std::memcpy(in.data(), &t, sizeof t);
    std::memcpy(in.data() + sizeof t, &value, 2);
    return ethtool(ifname, ETHTOOL_STUNABLE, in).first;
  }
  static void write(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::trunc);
    out << text;
  }
  static ieee_ets default_ets() {
    ieee_ets ets{};
    for (int tc = 0; tc < 8; ++tc) {
      ets.prio_tc[tc] = static_cast<uint8_t>(tc);
      ets.tc_tsa[tc] = IEEE_8021QAZ_TSA_ETS;
    }
    const uint8_t bw[8] = {10, 10, 10, 50, 10, 5, 0, 5};
    std::memcpy(ets.tc_tx_bw, bw, sizeof bw);
    ets.tc_tsa[6] = IEEE_8021QAZ_TSA_STRICT;
    return ets;
  }
};

TEST_F(SimServerWrites, CounterStartsAtZeroForEveryPortAndIgnoresReads) {
  EXPECT_EQ(writes(), "total 0\nlan2 0\nlan3 0\nlan4 0\nlan5 0\n");
  auto c = rtnl(4242);
  ieee_get(*c, "lan2");
  stat_names("lan3");
  read_file(node() / "debug/mlx5/0000:17:00.0/cc_params/np_cnp_dscp");
  // Let the server refresh its files a few times (10 Hz): its own writes are not counted.
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  ieee_get(*c, "lan2");
  EXPECT_EQ(writes(), "total 0\nlan2 0\nlan3 0\nlan4 0\nlan5 0\n");
}

TEST_F(SimServerWrites, CounterCountsEverySetRequestChangedOrNotFailedOrNot) {
  auto c = rtnl(4242);
  ieee_pfc pfc{};
  pfc.pfc_en = 1 << 3;
  EXPECT_EQ(ieee_set(*c, "lan2", DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc), 0);
  EXPECT_EQ(ieee_set(*c, "lan2", DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc), 0);  // no change: counts
  ieee_ets bad = default_ets();
  bad.tc_tx_bw[0] = 90;  // sums to 180: refused, still a write
  EXPECT_EQ(ieee_set(*c, "lan3", DCB_ATTR_IEEE_ETS, &bad, sizeof bad),
            static_cast<uint8_t>(-EINVAL));
  EXPECT_EQ(set_mtu(*c, "lan4", 9000), 0);
  EXPECT_EQ(set_stall_prevention("lan5", 0xffff), 0);
  EXPECT_EQ(set_stall_prevention("lan5", 50), -EINVAL);
  EXPECT_EQ(writes(), "total 6\nlan2 2\nlan3 1\nlan4 1\nlan5 2\n");

  // configfs mkdir, then the same value written twice; a debugfs knob, refused (out of range).
  const fs::path group = node() / "config/rdma_cm/mlx5_0";
  ASSERT_TRUE(fs::create_directory(group));
  const fs::path tos = group / "ports/1/default_roce_tos";
  ASSERT_TRUE(eventually([&] { return fs::exists(tos) && !read_file(tos).empty(); })) << log();
  write(tos, "106\n");
  // inotify merges identical events still queued: without a request between them, two writes
  // to one file could count once (docs/sim-formats.md).
  ieee_get(*c, "lan2");
  write(tos, "106\n");
  write(node() / "debug/mlx5/0000:3d:00.0/cc_params/np_cnp_dscp", "99\n");
  // A netlink request is answered after the file writes made before it: a barrier.
  ieee_get(*c, "lan2");
  EXPECT_EQ(writes(), "total 10\nlan2 5\nlan3 2\nlan4 1\nlan5 2\n");
  EXPECT_TRUE(eventually([&] { return read_file(tos) == "106\n"; })) << read_file(tos);

  // Reads and the server's own refreshes (the reverted knob, counters) change nothing.
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  ieee_get(*c, "lan3");
  EXPECT_EQ(writes(), "total 10\nlan2 5\nlan3 2\nlan4 1\nlan5 2\n");
}

TEST_F(SimServerWrites, RequestsNamingNoPortCountInTheTotalOnly) {
  auto c = rtnl(4242);
  EXPECT_EQ(set_mtu(*c, "lan9", 9000), -ENODEV);
  EXPECT_EQ(set_stall_prevention("lan9", 100), -ENODEV);
  EXPECT_EQ(writes(), "total 2\nlan2 0\nlan3 0\nlan4 0\nlan5 0\n");
}

// A scenario that fails chosen operations and has a foreign tool change things.
class SimServerErrorFilter : public SimServerWrites {
 protected:
  std::vector<std::string> extra_run_args() override {
    const fs::path scenario = dir_ / "errors.yaml";
    std::ofstream(scenario)
        << "name: errors\n"
           "events:\n"
           "  - {at: 0s, kind: netlink_errors, port: lan2, errno: EIO, op: mtu}\n"
           "  - {at: 0s, kind: netlink_errors, port: lan3, errno: EBUSY, op: stall_prevention,"
           " count: 2}\n"
           "  - {at: 0s, kind: netlink_errors, port: lan4, errno: EAGAIN, op: pfc}\n"
           "  - {at: 0s, kind: netlink_errors, port: lan5, errno: EPERM, op: link}\n"
           "  - {at: 0s, kind: foreign_tool, port: lan5, set: {pfc: [3], mtu: 4200}}\n"
           "  - {at: 0s, kind: netlink_errors, port: lan5, errno: EIO, op: dcbx}\n"
           "duration: 1h\n";
    return {"--scenario", scenario.string()};
  }
  void SetUp() override {
    SimServerWrites::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(eventually([&] {
      return log().find("lan5: the next 1 dcbx set") != std::string::npos;
    })) << log();
  }
};

TEST_F(SimServerErrorFilter, OnlyTheNamedOperationFailsAndCountIsKept) {
  auto c = rtnl(4242);
  ieee_pfc pfc{};
  pfc.pfc_en = 1 << 3;
  ieee_ets ets = default_ets();
  // lan2, op mtu: the DCB writes before the MTU succeed, the first MTU set fails, the next works.
  EXPECT_EQ(ieee_set(*c, "lan2", DCB_ATTR_IEEE_ETS, &ets, sizeof ets), 0);
  EXPECT_EQ(ieee_set(*c, "lan2", DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc), 0);
  EXPECT_EQ(set_mtu(*c, "lan2", 9000), -EIO);
  EXPECT_EQ(set_mtu(*c, "lan2", 9000), 0);
  EXPECT_TRUE(eventually([&] { return read_file(node() / "sys/class/net/lan2/mtu") == "9000\n"; }));

  // lan3, op stall_prevention with count 2: the ethtool tunable set fails twice, DCB is untouched.
  EXPECT_EQ(ieee_set(*c, "lan3", DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc), 0);
  EXPECT_EQ(set_mtu(*c, "lan3", 9000), 0);
  EXPECT_EQ(set_stall_prevention("lan3", 0xffff), -EBUSY);
  EXPECT_EQ(set_stall_prevention("lan3", 0xffff), -EBUSY);
  EXPECT_EQ(set_stall_prevention("lan3", 0xffff), 0);

  // lan4, op pfc: one message with ETS and PFC applies ETS, then fails at PFC (dcbnl_ieee_set).
  auto msgs = request(*c, dcb_request(RTM_SETDCB, DCB_CMD_IEEE_SET, "lan4", 9, [&](Msg& m) {
    const size_t nest = m.attr(DCB_ATTR_IEEE, nullptr, 0);
    m.attr(DCB_ATTR_IEEE_ETS, &ets, sizeof ets);
    m.attr(DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc);
    m.end_nest(nest);
  }));
  ASSERT_EQ(msgs.size(), 1u);
  auto top = attrs(msgs[0].payload, NLMSG_ALIGN(sizeof(dcbmsg)));
  ASSERT_EQ(top[DCB_ATTR_IEEE].size(), 1u);
  EXPECT_EQ(top[DCB_ATTR_IEEE][0], static_cast<uint8_t>(-EAGAIN));
  const auto lan4 = ieee_get(*c, "lan4");
  EXPECT_EQ(as<ieee_ets>(lan4.ieee.at(DCB_ATTR_IEEE_ETS)).tc_tx_bw[3], 50);
  EXPECT_EQ(as<ieee_pfc>(lan4.ieee.at(DCB_ATTR_IEEE_PFC)).pfc_en, 0);
  EXPECT_EQ(ieee_set(*c, "lan4", DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc), 0);

  // lan5, op link matches an MTU set; op dcbx fails SDCBX (status 1) and nothing else.
  EXPECT_EQ(ieee_set(*c, "lan5", DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc), 0);
  EXPECT_EQ(set_mtu(*c, "lan5", 9000), -EPERM);
  EXPECT_EQ(set_mtu(*c, "lan5", 9000), 0);
  const uint8_t host = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
  auto sdcbx = [&] {
    auto replies = request(*c, dcb_request(RTM_SETDCB, DCB_CMD_SDCBX, "lan5", 3,
                                           [&](Msg& m) { m.attr(DCB_ATTR_DCBX, &host, 1); }));
    EXPECT_EQ(replies.size(), 1u);
    auto reply = attrs(replies.at(0).payload, NLMSG_ALIGN(sizeof(dcbmsg)));
    return reply[DCB_ATTR_DCBX].empty() ? -1 : reply[DCB_ATTR_DCBX][0];
  };
  EXPECT_EQ(sdcbx(), 1);
  EXPECT_EQ(sdcbx(), 0);

  // Every client request above counted; the foreign tool's changes on lan5 did not.
  EXPECT_EQ(writes(), "total 16\nlan2 4\nlan3 5\nlan4 2\nlan5 5\n");
}

TEST_F(SimServerWrites, UnknownNetlinkErrorsOpIsAFileLineColumnError) {
  const fs::path bad = dir_ / "bad-op.yaml";
  std::ofstream(bad) << "name: bad\nevents:\n"
                        "  - {at: 1s, kind: netlink_errors, port: lan2, errno: EIO, op: mtuu}\n";
  const pid_t pid = spawn({"run", "--scenario", bad.string(), "--dir", (dir_ / "other").string()},
                          dir_ / "bad.log");
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string output = read_file(dir_ / "bad.log");
  EXPECT_TRUE(std::regex_search(output, std::regex(R"(bad-op\.yaml:3:[0-9]+: events\[0\]\.op: )")))
      << output;
  EXPECT_NE(output.find("did you mean 'mtu'"), std::string::npos) << output;
}

// ---- counters at the moment of a read, the clock file, storms that ignore remediation,
// counters_start. Timing checks use causal bounds: the server answered a request somewhere between
// the client's send and its receive, so a slow machine widens the window but never breaks it.

// One GSTATS read of a port, and when it was made.
struct TimedStats {
  std::map<std::string, uint64_t> values;
  std::vector<std::string> names;
  Clock::time_point sent, received;
  uint64_t at(const std::string& name) const {
    const auto it = values.find(name);
    EXPECT_NE(it, values.end()) << name << " is not listed";
    return it == values.end() ? 0 : it->second;
  }
};

int64_t us_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::microseconds>(to - from).count();
}

class SimServerTimed : public SimServerWrites {
  // These tests time counters right after enabling PFC: the carrier loss that follows the
  // toggle is the model's tests' subject (PortPfc), not theirs.
  bool instant_links() const override { return true; }

 protected:
  // The string set first (it is stable here), then GSTATS alone between the timestamps.
  TimedStats timed_stats(const std::string& ifname) {
    TimedStats out;
    out.names = stat_names(ifname);
    ethtool_stats s{};
    s.cmd = ETHTOOL_GSTATS;
    Bytes in(sizeof s);
    std::memcpy(in.data(), &s, sizeof s);
    out.sent = Clock::now();
    auto [err, reply] = ethtool(ifname, ETHTOOL_GSTATS, in);
    out.received = Clock::now();
    EXPECT_EQ(err, 0);
    if (reply.size() < sizeof s) return out;
    const auto header = as<ethtool_stats>(reply);
    EXPECT_EQ(header.n_stats, out.names.size());
    for (size_t i = 0; i < header.n_stats && i < out.names.size(); ++i) {
      uint64_t value = 0;
      std::memcpy(&value, reply.data() + sizeof s + i * sizeof value, sizeof value);
      out.values[out.names[i]] = value;
    }
    return out;
  }

  // DIR/roce-sim.clock: CLOCK_MONOTONIC at simulated time 0, and the speed.
  struct SimClock {
    int64_t epoch_ns = 0;
    double speed = 0;
    // Simulated microseconds at a steady_clock (CLOCK_MONOTONIC) instant.
    double sim_us(Clock::time_point t) const {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch());
      return static_cast<double>(ns.count() - epoch_ns) * speed / 1000;
    }
    Clock::time_point real_time(std::chrono::microseconds sim) const {
      return Clock::time_point(std::chrono::nanoseconds(
          epoch_ns + static_cast<int64_t>(static_cast<double>(sim.count()) * 1000 / speed)));
    }
  };
  SimClock sim_clock() const {
    const std::string text = read_file(node() / ROCE_SIM_CLOCKFILE);
    std::smatch match;
    SimClock clock;
    EXPECT_TRUE(std::regex_match(text, match,
                                 std::regex("epoch_monotonic_ns ([0-9]+)\nspeed ([0-9.e+-]+)\n")))
        << text;
    if (match.size() != 3) return clock;
    clock.epoch_ns = std::stoll(match[1].str());
    clock.speed = std::stod(match[2].str());
    return clock;
  }
  void sleep_until_sim(std::chrono::microseconds sim) const {
    std::this_thread::sleep_until(sim_clock().real_time(sim));
  }

  int set_pfc(const Conn& c, const std::string& ifname, uint8_t mask) {
    ieee_pfc pfc{};
    pfc.pfc_en = mask;
    return ieee_set(c, ifname, DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc);
  }
};

// Storms on priority 3 of every port, PFC on 3 everywhere: lan2 rx and lan4 tx ignore
// remediation, lan3 rx and lan5 tx are ordinary.
class SimServerStorms : public SimServerTimed {
 protected:
  std::vector<std::string> extra_run_args() override {
    const fs::path scenario = dir_ / "storms.yaml";
    std::ofstream out(scenario);
    out << "name: storms\n"
           "traffic:\n"
           "  - {port: lan2, priority: 3, direction: tx, rate: 100G}\n"
           "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
           "  - {port: lan4, priority: 3, direction: rx, rate: 100G}\n"
           "  - {port: lan5, priority: 3, direction: rx, rate: 100G}\n"
           "events:\n";
    for (const char* port : {"lan2", "lan3", "lan4", "lan5"})
      out << "  - {at: 0s, kind: foreign_tool, port: " << port << ", set: {pfc: [3]}}\n";
    out << "  - {at: 0s, kind: pfc_storm, port: lan2, priority: 3, direction: rx, duration: 1h,"
           " ignores_remediation: true}\n"
           "  - {at: 0s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 1h}\n"
           "  - {at: 0s, kind: pfc_storm, port: lan4, priority: 3, direction: tx, duration: 1h,"
           " ignores_remediation: true}\n"
           "  - {at: 0s, kind: pfc_storm, port: lan5, priority: 3, direction: tx, duration: 1h}\n"
           "duration: 1h\n";
    return {"--scenario", scenario.string()};
  }
};

TEST_F(SimServerStorms, GstatsCountersAreCurrentAtTheReadEvenWithinATick) {
  // The server ticks every 10 ms; reads closer together than that must still see the time pass.
  for (const int gap_us : {1000, 3000, 7000, 3000, 15000}) {
    SCOPED_TRACE("gap " + std::to_string(gap_us) + " us");
    const TimedStats a = timed_stats("lan3");
    std::this_thread::sleep_for(std::chrono::microseconds(gap_us));
    const TimedStats b = timed_stats("lan3");
    const auto grown =
        static_cast<int64_t>(b.at("rx_prio3_pause_duration") - a.at("rx_prio3_pause_duration"));
    // +-2 us: microsecond rounding of the clock and of the pause duration.
    EXPECT_GE(grown, us_between(a.received, b.sent) - 2);
    EXPECT_LE(grown, us_between(a.sent, b.received) + 2);
    EXPECT_EQ(b.at("tx_prio3_packets"), 0u);
  }
}

TEST_F(SimServerStorms, RxStormIgnoringRemediationOutlastsPfcOffAnOrdinaryOneDoesNot) {
  auto c = rtnl(4242);
  ASSERT_EQ(set_pfc(*c, "lan2", 0), 0);  // the watchdog's remediation
  ASSERT_EQ(set_pfc(*c, "lan3", 0), 0);
  const TimedStats a2 = timed_stats("lan2"), a3 = timed_stats("lan3");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const TimedStats b2 = timed_stats("lan2"), b3 = timed_stats("lan3");

  // lan2: the NIC still honours the pauses; only the MAC's count shows them.
  EXPECT_FALSE(contains(b2.names, "rx_prio3_pause_duration"));
  EXPECT_FALSE(contains(b2.names, "rx_prio3_pause"));
  EXPECT_EQ(a2.at("tx_prio3_packets"), 0u);
  EXPECT_EQ(b2.at("tx_prio3_packets"), 0u);
  EXPECT_EQ(b2.at("tx_packets_phy"), 0u);
  const int64_t frame_ns = 41942;  // one pause frame per refresh interval at 400G
  const auto frames = static_cast<int64_t>(b2.at("rx_pause_ctrl_phy") - a2.at("rx_pause_ctrl_phy"));
  EXPECT_GE(frames, us_between(a2.received, b2.sent) * 1000 / frame_ns - 2);
  EXPECT_LE(frames, us_between(a2.sent, b2.received) * 1000 / frame_ns + 2);

  // lan3: PFC off and the NIC ignores the frames: full rate, 12500 bytes per microsecond.
  const auto sent = static_cast<int64_t>(b3.at("tx_prio3_bytes") - a3.at("tx_prio3_bytes"));
  EXPECT_GE(sent, (us_between(a3.received, b3.sent) - 2) * 12500);
  EXPECT_LE(sent, (us_between(a3.sent, b3.received) + 2) * 12500);
  EXPECT_GT(b3.at("rx_pause_ctrl_phy"), a3.at("rx_pause_ctrl_phy"));
}

TEST_F(SimServerStorms, TxStormIgnoringRemediationOutlastsTightenedStallPrevention) {
  // Both storms have paused longer than the 100 ms of `auto` when it is set.
  sleep_until_sim(std::chrono::milliseconds(150));
  EXPECT_EQ(set_stall_prevention("lan4", 0xffff), 0);
  EXPECT_EQ(set_stall_prevention("lan5", 0xffff), 0);
  const TimedStats a4 = timed_stats("lan4"), a5 = timed_stats("lan5");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const TimedStats b4 = timed_stats("lan4"), b5 = timed_stats("lan5");

  // lan4: still pausing the switch for the whole interval, and the firmware says nothing.
  const auto paused =
      static_cast<int64_t>(b4.at("tx_prio3_pause_duration") - a4.at("tx_prio3_pause_duration"));
  EXPECT_GE(paused, us_between(a4.received, b4.sent) - 2);
  EXPECT_LE(paused, us_between(a4.sent, b4.received) + 2);
  EXPECT_EQ(b4.at("tx_pause_storm_warning_events"), 0u);
  EXPECT_EQ(b4.at("tx_pause_storm_error_events"), 0u);
  EXPECT_EQ(b4.at("rx_prio3_packets"), 0u);

  // lan5: stall prevention fired at once; arrivals are counted and dropped.
  EXPECT_EQ(a5.at("tx_prio3_pause_duration"), b5.at("tx_prio3_pause_duration"));
  EXPECT_EQ(b5.at("tx_pause_storm_error_events"), 1u);
  EXPECT_GT(b5.at("rx_prio3_packets"), a5.at("rx_prio3_packets"));
  EXPECT_EQ(b5.at("rx_prio3_discards"), b5.at("rx_prio3_packets"));

  // PFC off on lan4 too: the pausing goes on (tx_pause_ctrl_phy), unlisted per priority.
  auto c = rtnl(4242);
  ASSERT_EQ(set_pfc(*c, "lan4", 0), 0);
  const TimedStats c4 = timed_stats("lan4");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const TimedStats d4 = timed_stats("lan4");
  EXPECT_FALSE(contains(d4.names, "tx_prio3_pause_duration"));
  EXPECT_GT(d4.at("tx_pause_ctrl_phy"), c4.at("tx_pause_ctrl_phy"));
  EXPECT_EQ(d4.at("rx_prio3_packets"), 0u);
}

// --speed 2 overrides the scenario's clock; a storm from t=300ms on lan2.
class SimServerClock : public SimServerTimed {
 protected:
  void SetUp() override {
    before_start_ = Clock::now();
    SimServerTimed::SetUp();
  }
  std::vector<std::string> extra_run_args() override {
    const fs::path scenario = dir_ / "clock.yaml";
    std::ofstream(scenario)
        << "name: clock\n"
           "clock: {speed: 5}\n"
           "events:\n"
           "  - {at: 0s, kind: foreign_tool, port: lan2, set: {pfc: [3]}}\n"
           "  - {at: 300ms, kind: pfc_storm, port: lan2, priority: 3, direction: rx,"
           " duration: 1h}\n"
           "duration: 1h\n";
    return {"--scenario", scenario.string(), "--speed", "2"};
  }
  Clock::time_point before_start_;
};

TEST_F(SimServerClock, ClockFileConvertsScenarioTimesToClockMonotonic) {
  const std::string text = read_file(node() / ROCE_SIM_CLOCKFILE);
  EXPECT_TRUE(std::regex_match(text, std::regex("epoch_monotonic_ns [0-9]+\nspeed 2\n"))) << text;
  const SimClock clock = sim_clock();
  EXPECT_EQ(clock.speed, 2.0);
  // The epoch was taken by the server after the test started it and before it became ready.
  const auto ns = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  EXPECT_GT(clock.epoch_ns, ns(before_start_));
  EXPECT_LT(clock.epoch_ns, ns(Clock::now()));

  // Every request advances the simulation: thousands of small steps must not drift from
  // (now - epoch) x speed (rounding each step would lose about a microsecond per step).
  ethtool_value link{};
  link.cmd = ETHTOOL_GLINK;
  Bytes in(sizeof link);
  std::memcpy(in.data(), &link, sizeof link);
  for (int request = 0; request < 2000; ++request)
    ASSERT_EQ(ethtool("lan3", ETHTOOL_GLINK, in).first, 0);

  // The storm began at epoch + 300ms / 2: its pause duration is the simulated time since.
  sleep_until_sim(std::chrono::milliseconds(340));
  for (int read = 0; read < 3; ++read) {
    const TimedStats now = timed_stats("lan2");
    const auto paused = static_cast<double>(now.at("rx_prio3_pause_duration"));
    EXPECT_GE(paused, clock.sim_us(now.sent) - 300'000 - 3);
    EXPECT_LE(paused, clock.sim_us(now.received) - 300'000 + 3);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// lan2 starts its ethtool counters at 2^64 - 1, and its driver reloads from 200 to 300 ms.
class SimServerCountersStart : public SimServerTimed {
 protected:
  std::vector<std::string> extra_run_args() override {
    const fs::path node_file = dir_ / "node.yaml";
    std::ofstream(node_file) << "nics:\n"
                                "  - pci: 0000:17:00.0\n"
                                "    ports: [{netdev: lan2, rdma_device: mlx5_0,"
                                " counters_start: 18446744073709551615}]\n"
                                "  - pci: 0000:3d:00.0\n"
                                "    ports: [{netdev: lan3, rdma_device: mlx5_1}]\n";
    const fs::path scenario = dir_ / "reload.yaml";
    std::ofstream(scenario) << "name: reload\n"
                               "traffic:\n"
                               "  - {port: lan2, priority: 3, direction: tx, rate: 1G}\n"
                               "  - {port: lan3, priority: 3, direction: tx, rate: 1G}\n"
                               "events:\n"
                               "  - {at: 200ms, kind: driver_reload, port: lan2, down_for: 100ms}\n"
                               "duration: 1h\n";
    return {"--node", node_file.string(), "--scenario", scenario.string()};
  }
};

TEST_F(SimServerCountersStart, EthtoolCountersStartThereWrapAndRestartAfterAReload) {
  constexpr uint64_t kStart = 18'446'744'073'709'551'615u;
  sleep_until_sim(std::chrono::milliseconds(350));
  const SimClock clock = sim_clock();
  const TimedStats lan2 = timed_stats("lan2");
  const TimedStats lan3 = timed_stats("lan3");
  EXPECT_EQ(lan2.at("tx_tso_packets"), kStart);  // zero in the model
  EXPECT_EQ(lan2.at("rx_prio3_bytes"), kStart);
  EXPECT_EQ(lan3.at("tx_tso_packets"), 0u);
  // 1G = 125 bytes per microsecond; lan2 counts from the rebind at 300 ms, past 2^64 at once.
  const uint64_t lan2_bytes = lan2.at("tx_prio3_bytes") + 1;  // mod 2^64
  EXPECT_LT(lan2.at("tx_prio3_bytes"), kStart);
  EXPECT_GE(static_cast<double>(lan2_bytes), (clock.sim_us(lan2.sent) - 300'000) * 125 - 500);
  EXPECT_LE(static_cast<double>(lan2_bytes), (clock.sim_us(lan2.received) - 300'000) * 125 + 500);
  const auto lan3_bytes = static_cast<double>(lan3.at("tx_prio3_bytes"));
  EXPECT_GE(lan3_bytes, clock.sim_us(lan3.sent) * 125 - 500);
  EXPECT_LE(lan3_bytes, clock.sim_us(lan3.received) * 125 + 500);
  // Not the IB counters: port_xmit_data is the model's bytes / 4.
  const std::string xmit =
      read_file(node() / "sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data");
  ASSERT_FALSE(xmit.empty());
  EXPECT_LT(std::stoull(xmit), 1'000'000'000'000u);
}

// ---- `roce-sim inject`: documents played into the running node, their times counted from the
// moment the server takes them. That moment lies after the CLI started and before it exited, so
// the bounds below hold on a slow machine too.

class SimServerInject : public SimServerTimed {
 protected:
  struct Cli {
    int status = -1;  // exit code, -1 if it did not exit normally
    std::string output;
    Clock::time_point started, ended;
  };
  // `roce-sim inject DIR FILE` with the document written to dir_/name, or with FILE "-" and the
  // document on stdin when name is "-".
  Cli inject(const std::string& name, const std::string& document, fs::path node_dir = {}) {
    if (node_dir.empty()) node_dir = node();
    const std::string tag = "inject-" + std::to_string(++runs_);
    const fs::path file = dir_ / (name == "-" ? tag + ".stdin" : name);
    std::ofstream(file) << document;
    Cli cli;
    cli.started = Clock::now();
    const pid_t pid = spawn({"inject", node_dir.string(), name == "-" ? "-" : file.string()},
                            dir_ / (tag + ".log"), name == "-" ? file : fs::path());
    EXPECT_GT(pid, 0);
    int status = 0;
    EXPECT_EQ(::waitpid(pid, &status, 0), pid);
    cli.ended = Clock::now();
    if (WIFEXITED(status)) cli.status = WEXITSTATUS(status);
    cli.output = read_file(dir_ / (tag + ".log"));
    return cli;
  }
  // Requests and results are gone once every CLI has its answer.
  bool inject_dir_is_empty() const { return fs::is_empty(node() / ROCE_SIM_INJECT_DIR); }
  static std::string storm(const std::string& port, const std::string& at,
                           const std::string& duration) {
    return "  - {at: " + at + ", kind: pfc_storm, port: " + port +
           ", priority: 3, direction: rx, duration: " + duration + "}\n";
  }
  int runs_ = 0;
};

TEST_F(SimServerInject, RxStormPausesFromTheInjectionOnInANodeStartedWithoutAScenario) {
  auto c = rtnl(4242);
  ASSERT_EQ(set_pfc(*c, "lan3", 1 << 3), 0);
  EXPECT_EQ(timed_stats("lan3").at("rx_prio3_pause_duration"), 0u);
  const Cli cli = inject("storm.yaml", "events:\n" + storm("lan3", "0s", "1h"));
  ASSERT_EQ(cli.status, 0) << cli.output << log();
  EXPECT_EQ(cli.output, "");
  EXPECT_TRUE(inject_dir_is_empty());
  const SimClock clock = sim_clock();
  for (int read = 0; read < 3; ++read) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const TimedStats now = timed_stats("lan3");
    // The storm paused the port for 100 % of the time since the injection (+-3 us of rounding).
    const auto paused = static_cast<double>(now.at("rx_prio3_pause_duration"));
    EXPECT_GE(paused, clock.sim_us(now.sent) - clock.sim_us(cli.ended) - 3);
    EXPECT_LE(paused, clock.sim_us(now.received) - clock.sim_us(cli.started) + 3);
    EXPECT_GE(paused, 100'000 * (read + 1) - 3);
  }
  const std::string output = log();
  EXPECT_TRUE(std::regex_search(
      output, std::regex("t=[0-9.]+s injected " + (dir_ / "storm.yaml").string() +
                         ": 1 event, 0 flows\nt=[0-9.]+s lan3: PFC storm \\(rx\\) on priority 3 "
                         "begins for 3600s\n")))
      << output;
}

TEST_F(SimServerInject, TwoInjectionsInARowBothPlayEachFromItsOwnArrival) {
  auto c = rtnl(4242);
  ASSERT_EQ(set_pfc(*c, "lan2", 1 << 3), 0);
  ASSERT_EQ(set_pfc(*c, "lan3", 1 << 3), 0);
  const Cli first = inject("first.yaml", "name: first\nevents:\n" + storm("lan3", "0s", "1h"));
  ASSERT_EQ(first.status, 0) << first.output << log();
  // The second from stdin, 300 ms after its own arrival, for 200 ms; late enough that 300 ms
  // from the node's start would be over already.
  sleep_until_sim(std::chrono::milliseconds(600));
  const Cli second = inject("-", "events:\n" + storm("lan2", "300ms", "200ms"));
  ASSERT_EQ(second.status, 0) << second.output << log();
  const SimClock clock = sim_clock();
  // What the storm has paused by `at`, had the server taken the request at `taken`.
  const auto paused_by = [&](Clock::time_point at, Clock::time_point taken) {
    return std::clamp(clock.sim_us(at) - clock.sim_us(taken) - 300'000, 0.0, 200'000.0);
  };
  const TimedStats early = timed_stats("lan2");
  const auto early_paused = static_cast<double>(early.at("rx_prio3_pause_duration"));
  EXPECT_GE(early_paused, paused_by(early.sent, second.ended) - 3);
  EXPECT_LE(early_paused, paused_by(early.received, second.started) + 3);
  std::this_thread::sleep_until(second.ended + std::chrono::milliseconds(600));
  const TimedStats lan2 = timed_stats("lan2"), lan3 = timed_stats("lan3");
  EXPECT_EQ(lan2.at("rx_prio3_pause_duration"), 200'000u);  // over, exactly as long as it said
  const auto paused = static_cast<double>(lan3.at("rx_prio3_pause_duration"));
  EXPECT_GE(paused, clock.sim_us(lan3.sent) - clock.sim_us(first.ended) - 3);
  EXPECT_LE(paused, clock.sim_us(lan3.received) - clock.sim_us(first.started) + 3);
  const std::string output = log();
  EXPECT_NE(output.find("(first): 1 event, 0 flows"), std::string::npos) << output;
  EXPECT_NE(output.find("injected <stdin>: 1 event, 0 flows"), std::string::npos) << output;
  EXPECT_NE(output.find("lan2: PFC storm (rx) on priority 3 ends"), std::string::npos) << output;
  EXPECT_TRUE(inject_dir_is_empty());
}

TEST_F(SimServerInject, BadDocumentsAreRefusedWithFileLineAndColumn) {
  const Cli port = inject("bad-port.yaml", "name: bad\nevents:\n" + storm("lan9", "0s", "1s"));
  EXPECT_EQ(port.status, 1);
  EXPECT_EQ(port.output, (dir_ / "bad-port.yaml").string() +
                             ":3:37: events[0].port: no port 'lan9' in this node (it has lan2, "
                             "lan3, lan4, lan5)\n");
  const Cli yaml = inject("-", "events: [\n");
  EXPECT_EQ(yaml.status, 1);
  EXPECT_TRUE(std::regex_match(yaml.output, std::regex("<stdin>:2:[0-9]+: .+\n"))) << yaml.output;
  const Cli key = inject("-", "events:\n  - {at: 0s, kind: link_flap, port: lan2, down: 1s}\n");
  EXPECT_EQ(key.status, 1);
  EXPECT_EQ(key.output.rfind("<stdin>:2:", 0), 0u) << key.output;
  EXPECT_NE(key.output.find("events[0].down: unknown key"), std::string::npos) << key.output;
  // Nothing of them was played; the node still takes a good one.
  EXPECT_EQ(log().find("injected"), std::string::npos) << log();
  EXPECT_EQ(inject("-", "events:\n" + storm("lan2", "0s", "1s")).status, 0) << log();
  EXPECT_TRUE(inject_dir_is_empty());
}

TEST_F(SimServerInject, WithoutARunningNodeItSaysSo) {
  const Cli nowhere = inject("-", "events: []\n", dir_ / "nowhere");
  EXPECT_EQ(nowhere.status, 1);
  EXPECT_EQ(nowhere.output,
            "roce-sim: no running node in " + (dir_ / "nowhere").string() + " (no roce-sim.pid)\n");
  // A pid file left by a server that died.
  const pid_t gone = spawn({"--help"}, dir_ / "help.log");
  ASSERT_GT(gone, 0);
  ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
  fs::create_directories(dir_ / "stale");
  std::ofstream(dir_ / "stale" / ROCE_SIM_PIDFILE) << gone << "\n";
  const Cli stale = inject("-", "events: []\n", dir_ / "stale");
  EXPECT_EQ(stale.status, 1);
  EXPECT_EQ(stale.output, "roce-sim: no running node in " + (dir_ / "stale").string() +
                              " (roce-sim.pid names pid " + std::to_string(gone) +
                              ", which is not running)\n");
  // The server stopped: its pid file went with it.
  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  ASSERT_EQ(::waitpid(pid_, nullptr, 0), pid_);
  pid_ = -1;
  const Cli stopped = inject("-", "events: []\n");
  EXPECT_EQ(stopped.status, 1);
  EXPECT_NE(stopped.output.find("no running node in"), std::string::npos) << stopped.output;
}

TEST_F(SimServerInject, ANodeThatDoesNotAnswerTimesOutAndTheRequestIsWithdrawn) {
  // A live process that is no roce-sim: this test.
  const fs::path fake = dir_ / "fake";
  fs::create_directories(fake / ROCE_SIM_INJECT_DIR);
  std::ofstream(fake / ROCE_SIM_PIDFILE) << ::getpid() << "\n";
  const Cli cli = inject("-", "events: []\n", fake);
  EXPECT_EQ(cli.status, 1);
  EXPECT_EQ(cli.output, "roce-sim: the node in " + fake.string() +
                            " did not answer within 5 s (the request is withdrawn)\n");
  EXPECT_GE(cli.ended - cli.started, std::chrono::seconds(5));
  EXPECT_TRUE(fs::is_empty(fake / ROCE_SIM_INJECT_DIR));
}

// A node started with a scenario: 300G from lan2 on priority 3, and the injected flows beside it.
class SimServerInjectScenario : public SimServerInject {
 protected:
  std::vector<std::string> extra_run_args() override {
    const fs::path scenario = dir_ / "flows.yaml";
    std::ofstream(scenario) << "name: flows\n"
                               "traffic:\n"
                               "  - {port: lan2, priority: 3, direction: tx, rate: 300G}\n"
                               "duration: 1h\n";
    return {"--scenario", scenario.string()};
  }
};

TEST_F(SimServerInjectScenario, InjectedFlowsFlowFromTheInjectionWithinThePortsSpeed) {
  const Cli over = inject("over.yaml",
                          "traffic:\n"
                          "  - {port: lan2, priority: 4, direction: tx, rate: 200G}\n");
  EXPECT_EQ(over.status, 1);
  EXPECT_EQ(over.output, (dir_ / "over.yaml").string() +
                             ":2:12: traffic[0].port: flows on lan2 tx add up to 500G, more than "
                             "the port's 400G (300G of it already running)\n");
  const Cli flow = inject("flow.yaml",
                          "traffic:\n"
                          "  - {port: lan2, priority: 4, direction: tx, rate: 1G}\n");
  ASSERT_EQ(flow.status, 0) << flow.output << log();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const SimClock clock = sim_clock();
  const TimedStats lan2 = timed_stats("lan2");
  // 1G: 125 bytes per microsecond since the injection (whole packets: up to one 4096 short).
  const auto bytes = static_cast<double>(lan2.at("tx_prio4_bytes"));
  EXPECT_GE(bytes, (clock.sim_us(lan2.sent) - clock.sim_us(flow.ended)) * 125 - 4096 - 500);
  EXPECT_LE(bytes, (clock.sim_us(lan2.received) - clock.sim_us(flow.started)) * 125 + 500);
  EXPECT_GT(lan2.at("tx_prio3_bytes"), lan2.at("tx_prio4_bytes"));  // the scenario's flow goes on
}

// hold_reply: the held request is carried out at once, its reply comes `duration` later while
// other clients are answered, and DIR/roce-sim.held names it meanwhile. The hold is long (10 s)
// because the file exists only while it lasts and a busy machine may be slow to look.
TEST_F(SimServerInject, AHeldReplyComesLateWhileOtherClientsAreServed) {
  const Cli armed = inject(
      "hold.yaml", "events: [{at: 0s, kind: hold_reply, port: lan3, op: mtu, duration: 10s}]\n");
  ASSERT_EQ(armed.status, 0) << armed.output << log();
  auto held_conn = rtnl(4243);
  auto other = rtnl(4244);
  int held_result = 1;
  Clock::time_point answered;
  const auto sent = Clock::now();
  std::thread caller([&] {
    held_result = set_mtu(*held_conn, "lan3", 9000);
    answered = Clock::now();
  });
  ASSERT_TRUE(eventually([&] { return fs::exists(node() / "roce-sim.held"); })) << log();
  EXPECT_EQ(read_file(node() / "roce-sim.held"), "lan3 mtu\n");
  EXPECT_EQ(read_file(node() / "sys/class/net/lan3/mtu"), "9000\n") << "carried out at once";
  EXPECT_EQ(set_mtu(*other, "lan2", 9000), 0) << "another client is answered meanwhile";
  caller.join();
  EXPECT_EQ(held_result, 0);
  EXPECT_GE(answered - sent, std::chrono::seconds(10));
  EXPECT_FALSE(fs::exists(node() / "roce-sim.held"));
  EXPECT_EQ(set_mtu(*held_conn, "lan3", 4200), 0) << "held once, then served as before";
}

// vanish_on_write and unreadable_file through the server: ENODEV and the port's tree gone; a file
// kept at mode 0000 across the 10 Hz rewrites, its mode back once a second injection ends it.
TEST_F(SimServerInject, AVanishingPortAndAnUnreadableFile) {
  // The file stays unreadable until the test ends it, so however slowly the checks below run they
  // never outlive the fault.
  const Cli armed =
      inject("faults.yaml",
             "events:\n"
             "  - {at: 0s, kind: vanish_on_write, port: lan4, op: mtu, down_for: 500ms}\n"
             "  - {at: 0s, kind: unreadable_file, port: lan2, duration: 1h,\n"
             "     file: sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent}\n");
  ASSERT_EQ(armed.status, 0) << armed.output << log();
  const fs::path counter = node() / "sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent";
  ASSERT_TRUE(eventually(
      [&] { return (fs::status(counter).permissions() & fs::perms::all) == fs::perms::none; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(250));  // refreshes of its port, if on time
  EXPECT_EQ(fs::status(counter).permissions() & fs::perms::all, fs::perms::none);
  const std::string ifindex_before = read_file(node() / "sys/class/net/lan4/ifindex");
  auto c = rtnl(4245);
  EXPECT_EQ(set_mtu(*c, "lan4", 9000), -ENODEV);
  // Back after down_for, re-probed: a new ifindex and the firmware's MTU. The server rewrites
  // the port's files one by one (ifindex first), so wait for the MTU's too.
  EXPECT_TRUE(eventually([&] {
    const std::string now = read_file(node() / "sys/class/net/lan4/ifindex");
    return !now.empty() && now != ifindex_before &&
           !read_file(node() / "sys/class/net/lan4/mtu").empty();
  })) << log();
  EXPECT_EQ(read_file(node() / "sys/class/net/lan4/mtu"), "1500\n") << "firmware defaults";
  EXPECT_EQ(fs::status(counter).permissions() & fs::perms::all, fs::perms::none) << "still held";
  // A second unreadable_file of the same file, over in a moment, ends the first.
  const Cli ended =
      inject("readable.yaml",
             "events:\n"
             "  - {at: 0s, kind: unreadable_file, port: lan2, duration: 1ms,\n"
             "     file: sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent}\n");
  ASSERT_EQ(ended.status, 0) << ended.output << log();
  EXPECT_TRUE(eventually([&] {
    return (fs::status(counter).permissions() & fs::perms::owner_read) != fs::perms::none;
  }));
  EXPECT_NE(log().find("lan4: vanished at a mtu set"), std::string::npos) << log();
}

}  // namespace
