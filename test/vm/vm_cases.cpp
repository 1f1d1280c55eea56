// SPDX-License-Identifier: Apache-2.0
// The cases run inside the VM (test/vm/init.sh set up the stack first): Debian's kernel, rdma_rxe
// on veth0 (rxe0), whose peer veth1 sits in the namespace "peer". Every value roced reports is
// checked against what the kernel says through another door: sysfs read here, libibverbs,
// iproute2's `rdma`, `ip` and `dcb`. The tests run in file order and build on each other
// (rocectl first, then the daemon), as one boot serves them all.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "run_command.hpp"
#include "vm_support.hpp"

namespace {

using nlohmann::json;
using roced::test::CommandResult;
using roced::test::run_command;
using namespace roced::vm;

const std::string kRxe = "/sys/class/infiniband/rxe0/ports/1";
const std::string kRdmaCm = "/sys/kernel/config/rdma_cm/rxe0/ports/1";
const std::string kMetricsUrl = "http://127.0.0.1:9879/metrics";
constexpr int kDaemonMtu = 4200;

std::string scrape() { return scrape_url(kMetricsUrl); }

std::optional<double> scraped(const std::string& name,
                              const std::map<std::string, std::string>& labels) {
  return metric(scrape(), name, labels);
}

// "0000:0000:0000:0000:0000:ffff:0a00:0001" for 10.0.0.1: how sysfs prints an IPv4-mapped GID.
std::string mapped_gid_text(const std::string& ipv4) {
  in_addr addr{};
  inet_pton(AF_INET, ipv4.c_str(), &addr);
  const auto* b = reinterpret_cast<const unsigned char*>(&addr);
  char text[64];
  std::snprintf(text, sizeof(text), "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", b[0], b[1],
                b[2], b[3]);
  return text;
}

// The index of the RoCE v2 GID `gid` in rxe0's sysfs table, read here (not by roced's reader).
std::optional<int> sysfs_gid_index(const std::string& gid) {
  for (int index = 0; index < 32; ++index) {
    const std::string path = kRxe + "/gids/" + std::to_string(index);
    if (read_text(path) == gid &&
        read_text(kRxe + "/gid_attrs/types/" + std::to_string(index)) == "RoCE v2") {
      return index;
    }
  }
  return std::nullopt;
}

// The same through libibverbs: ibv_query_gid_table, matched by GID, type and netdev ifindex.
std::optional<int> verbs_gid_index(const std::string& ipv4, const std::string& netdev) {
  int count = 0;
  std::unique_ptr<ibv_device*, void (*)(ibv_device**)> list(ibv_get_device_list(&count),
                                                            &ibv_free_device_list);
  if (!list) return std::nullopt;
  for (int i = 0; i < count; ++i) {
    if (std::string(ibv_get_device_name(list.get()[i])) != "rxe0") continue;
    std::unique_ptr<ibv_context, int (*)(ibv_context*)> context(ibv_open_device(list.get()[i]),
                                                                &ibv_close_device);
    if (!context) return std::nullopt;
    std::vector<ibv_gid_entry> entries(64);
    const ssize_t filled = ibv_query_gid_table(context.get(), entries.data(), entries.size(), 0);
    in_addr addr{};
    inet_pton(AF_INET, ipv4.c_str(), &addr);
    unsigned char want[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    std::memcpy(want + 12, &addr, 4);
    for (ssize_t e = 0; e < filled; ++e) {
      const auto& entry = entries[static_cast<size_t>(e)];
      if (entry.port_num == 1 && entry.gid_type == IBV_GID_TYPE_ROCE_V2 &&
          std::memcmp(entry.gid.raw, want, sizeof(want)) == 0 &&
          entry.ndev_ifindex == if_nametoindex(netdev.c_str())) {
        return static_cast<int>(entry.gid_index);
      }
    }
  }
  return std::nullopt;
}

// ---- rocectl, one-shot ----

TEST(Rxe, DiscoveryFindsTheRxeDeviceAndItsNetdev) {
  // The kernel's view through RDMA netlink: rxe0 port 1 on veth0.
  const auto links = json::parse(run_command({"/usr/bin/rdma", "-j", "link", "show"}).out);
  std::map<std::string, std::string> kernel;  // RDMA device -> netdev
  for (const auto& link : links) kernel[link.value("ifname", "")] = link.value("netdev", "");
  ASSERT_EQ(kernel["rxe0"], "veth0") << links.dump();

  const auto config = config_file("discover.yaml", "ports: {drivers: [rxe], netdevs: [\"*\"]}\n");
  int code = -1;
  const json plan = run_json({"rocectl", "plan", "--json", "--config", config}, &code);
  // veth1 lives in another namespace and has no rxe device: veth0 is the one rxe port here.
  ASSERT_EQ(plan["ports"].size(), 1u) << plan.dump(2);
  EXPECT_EQ(plan["ports"][0]["netdev"], "veth0");
  EXPECT_EQ(plan["ports"][0]["rdma_device"], "rxe0");

  const json status = run_json({"rocectl", "status", "--json", "--port", "veth0"});
  const json* port = port_entry(status, "veth0");
  ASSERT_NE(port, nullptr) << status.dump(2);
  EXPECT_EQ((*port)["rdma_device"], "rxe0");
  EXPECT_EQ((*port)["rdma_port"], 1);
  EXPECT_EQ((*port)["rdma_driver"], "rxe");
  EXPECT_EQ((*port)["observed"]["mlx5"], false);
}

TEST(Rxe, GidIndexAgreesWithSysfsAndVerbs) {
  const auto in_sysfs = sysfs_gid_index(mapped_gid_text("10.0.0.1"));
  const auto in_verbs = verbs_gid_index("10.0.0.1", "veth0");
  ASSERT_TRUE(in_sysfs.has_value());
  ASSERT_TRUE(in_verbs.has_value());
  const auto config = config_file("gid.yaml", "ports: {drivers: [rxe], netdevs: [\"*\"]}\n");
  const json plan = run_json({"rocectl", "plan", "--json", "--config", config});
  const json* port = port_entry(plan, "veth0");
  ASSERT_NE(port, nullptr) << plan.dump(2);
  // Index 0 is the default GID (fe80:: from the MAC); the IPv4 address took the next slot.
  EXPECT_EQ(*in_sysfs, 1);
  EXPECT_EQ(*in_verbs, *in_sysfs);
  EXPECT_EQ((*port)["roce_v2_gid_index"], *in_sysfs) << port->dump(2);
}

const char* kApplyConfig = R"(ports: {drivers: [rxe], netdevs: [veth0]}
profile:
  mtu: 9000
  roce: {rdma_cm_mode: v2, tos: 106}
)";

TEST(Rxe, RocectlApplySetsRdmaCmAndASecondApplyChangesNothing) {
  // Before: rdma_cm's defaults as the kernel starts them (the configfs group appears on mkdir).
  const bool had_group = ::access(kRdmaCm.c_str(), F_OK) == 0;
  if (had_group) {
    ASSERT_NE(read_text(kRdmaCm + "/default_roce_tos"), "106");
  }
  ASSERT_NE(link_mtu("veth0"), 9000);
  const auto config = config_file("apply.yaml", kApplyConfig);

  int code = -1;
  const json first = run_json({"rocectl", "apply", "--json", "--config", config}, &code);
  EXPECT_EQ(code, 0) << first.dump(2);
  const json* port = port_entry(first, "veth0");
  ASSERT_NE(port, nullptr) << first.dump(2);
  EXPECT_EQ((*port)["outcome"], "applied") << port->dump(2);
  const auto changed = settings_of((*port)["changes"]);
  EXPECT_TRUE(changed.count("mtu")) << port->dump(2);
  EXPECT_TRUE(changed.count("roce.tos")) << port->dump(2);
  for (const auto& step : (*port)["changes"]) EXPECT_TRUE(step["ok"].get<bool>()) << step.dump();

  // Read back by the kernel's own interfaces.
  EXPECT_EQ(read_text(kRdmaCm + "/default_roce_tos"), "106");
  EXPECT_EQ(read_text(kRdmaCm + "/default_roce_mode"), "RoCE v2");
  EXPECT_EQ(link_mtu("veth0"), 9000);

  const json second = run_json({"rocectl", "apply", "--json", "--config", config}, &code);
  EXPECT_EQ(code, 0) << second.dump(2);
  const json* again = port_entry(second, "veth0");
  ASSERT_NE(again, nullptr) << second.dump(2);
  EXPECT_EQ((*again)["changed"], false) << again->dump(2);
  EXPECT_TRUE((*again)["changes"].empty()) << again->dump(2);
  EXPECT_EQ(second["changed"], false);
}

TEST(Rxe, DcbIsReportedUnsupportedOnTheVethWhileTheRestIsConfigured) {
  // The kernel: veth implements no dcbnl ops.
  const auto dcb = run_command({"/usr/bin/dcb", "pfc", "show", "dev", "veth0"});
  EXPECT_NE(dcb.exit_code, 0);
  EXPECT_NE(dcb.err.find("Operation not supported"), std::string::npos) << dcb.err;

  const auto config = config_file("apply.yaml", kApplyConfig);
  int code = -1;
  const json plan = run_json({"rocectl", "plan", "--json", "--config", config}, &code);
  EXPECT_EQ(code, 0) << plan.dump(2);  // nothing pending: unsupported is no failure
  const json* port = port_entry(plan, "veth0");
  ASSERT_NE(port, nullptr) << plan.dump(2);
  EXPECT_EQ((*port)["in_sync"], true) << port->dump(2);
  EXPECT_TRUE((*port)["error"].is_null()) << port->dump(2);
  std::map<std::string, std::string> reasons;
  for (const auto& u : (*port)["unsupported"]) reasons[u["setting"]] = u["reason"];
  for (const char* setting :
       {"dcbx", "trust", "dscp_map", "ets", "pfc.priorities", "pfc.cable_length"}) {
    ASSERT_TRUE(reasons.count(setting))
        << setting << " not reported unsupported: " << port->dump(2);
    EXPECT_NE(reasons[setting].find("EOPNOTSUPP"), std::string::npos)
        << setting << ": " << reasons[setting];
  }
  // mlx5-only settings with no kernel answer to quote: unsupported all the same.
  for (const char* setting : {"stall_prevention", "ecn.cnp_dscp", "ecn.cnp_priority"}) {
    EXPECT_TRUE(reasons.count(setting))
        << setting << " not reported unsupported: " << port->dump(2);
  }
  // What a veth and rxe can take is managed, not unsupported.
  for (const char* setting : {"mtu", "roce.rdma_cm_mode", "roce.tos"}) {
    EXPECT_FALSE(reasons.count(setting)) << setting << ": " << reasons[setting];
  }
}

// ---- the daemon ----

// rocectl qualify on soft-RoCE: what rxe can answer (GIDs, rdma_cm, hw_counters, statistics)
// passes; the veth is not mlx5, and the DCB and mlx5 counter checks say so instead of guessing.
TEST(Rxe, QualifyAnswersWhatRxeCanAndNamesWhatIsNotMlx5) {
  int code = -1;
  const json report =
      run_json({"rocectl", "qualify", "--json", "--out", "/tmp", "--port", "veth0"}, &code);
  EXPECT_EQ(code, 3) << report.dump(2);
  ASSERT_EQ(report["ports"].size(), 1u) << report.dump(2);
  std::map<std::string, std::string> verdicts;
  for (const auto& check : report["ports"][0]["checks"]) {
    verdicts[check["id"].get<std::string>()] = check["verdict"].get<std::string>();
  }
  EXPECT_EQ(verdicts["driver_is_mlx5"], "differs");
  EXPECT_EQ(verdicts["gid_table"], "pass");
  EXPECT_EQ(verdicts["rdma_cm_defaults"], "pass");
  EXPECT_EQ(verdicts["statistics_consistent"], "pass");
  EXPECT_EQ(verdicts["pfc_capability"], "cannot_tell");
  for (const auto& [id, verdict] : verdicts) {
    if (id != "driver_is_mlx5" && id != "sampled_counters_present") {
      EXPECT_NE(verdict, "differs") << id;
    }
  }
  EXPECT_EQ(report["ports"][0]["rdma_device"], "rxe0");
}

class RxeDaemon : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto config = config_file("daemon.yaml", R"(ports: {drivers: [rxe], netdevs: [veth0]}
daemon:
  drift_check_interval: 1h  # so any re-check in these cases comes from a netlink event
profile:
  mtu: 4200
  roce: {rdma_cm_mode: v2, tos: 106, gid_family: ipv4, gid_index: 1}
)");
    daemon_ = start_roced(config, "/tmp/roced.log", "127.0.0.1:9879");
  }
  static void TearDownTestSuite() { stop_roced(daemon_, "/tmp/roced.log"); }
  static std::string log() { return read_text("/tmp/roced.log"); }
  static pid_t daemon_;
};
pid_t RxeDaemon::daemon_ = -1;

const std::map<std::string, std::string> kVeth0 = {{"netdev", "veth0"}};

TEST_F(RxeDaemon, AppliesTheMtuToTheVethAndKeepsItInSync) {
  ASSERT_TRUE(eventually([] {
    return scraped("roce_config_port_state", {{"netdev", "veth0"}, {"state", "in-sync"}}) == 1.0;
  })) << scrape()
      << log();
  EXPECT_EQ(link_mtu("veth0"), kDaemonMtu);
  EXPECT_EQ(scraped("roce_link_mtu_bytes", kVeth0), kDaemonMtu);
  EXPECT_EQ(scraped("roce_config_in_sync", {{"netdev", "veth0"}, {"setting", "mtu"}}), 1.0);
  EXPECT_EQ(scraped("roce_config_in_sync", {{"netdev", "veth0"}, {"setting", "roce.tos"}}), 1.0);
  // DCB is not a setting of this port: no in-sync series claims it.
  EXPECT_EQ(scraped("roce_config_in_sync", {{"netdev", "veth0"}, {"setting", "pfc.priorities"}}),
            std::nullopt);
  EXPECT_EQ(read_text(kRdmaCm + "/default_roce_tos"), "106");
}

TEST_F(RxeDaemon, RechecksThePortAfterTheLinkGoesDownAndUp) {
  const auto checked = [] {
    return scraped("roce_config_last_check_timestamp_seconds", kVeth0).value_or(0);
  };
  const double before = checked();
  ASSERT_GT(before, 0) << scrape();
  ASSERT_EQ(run_command({kIp, "link", "set", "veth0", "down"}).exit_code, 0);
  EXPECT_TRUE(eventually([] { return scraped("roce_link_up", kVeth0) == 0.0; })) << scrape();
  // Another tool changes the MTU while the link is down; the link comes back.
  ASSERT_EQ(run_command({kIp, "link", "set", "veth0", "mtu", "1500"}).exit_code, 0);
  const double up_at = wall_now();
  ASSERT_EQ(run_command({kIp, "link", "set", "veth0", "up"}).exit_code, 0);
  // The drift check runs hourly: only the link events can have made roced look again.
  EXPECT_TRUE(eventually([&] { return checked() >= up_at && link_mtu("veth0") == kDaemonMtu; }))
      << "last check " << checked() << ", up at " << up_at << ", MTU " << link_mtu("veth0") << "\n"
      << log();
  EXPECT_TRUE(eventually([] { return scraped("roce_link_up", kVeth0) == 1.0; })) << scrape();
  EXPECT_GE(scraped("roce_config_corrections_total", {{"netdev", "veth0"}, {"setting", "mtu"}})
                .value_or(0),
            1.0)
      << scrape();
}

TEST_F(RxeDaemon, AnIpv6AddressThatMovesTheGidIndexIsReported) {
  ASSERT_EQ(scraped("roce_rocev2_gid_index", {{"netdev", "veth0"}, {"family", "ipv4"}}), 1.0)
      << scrape();
  ASSERT_EQ(scraped("roce_rocev2_gid_index_expected", {{"netdev", "veth0"}, {"family", "ipv4"}}),
            1.0);
  // The IPv4 address goes (a DHCP renewal), an IPv6 address arrives and takes its free slot, the
  // IPv4 address comes back after it.
  ASSERT_EQ(run_command({kIp, "addr", "del", "10.0.0.1/24", "dev", "veth0"}).exit_code, 0);
  ASSERT_EQ(
      run_command({kIp, "-6", "addr", "add", "fd00::1/64", "dev", "veth0", "nodad"}).exit_code, 0);
  ASSERT_EQ(run_command({kIp, "addr", "add", "10.0.0.1/24", "dev", "veth0"}).exit_code, 0);
  std::optional<int> moved;
  ASSERT_TRUE(eventually([&] {
    moved = sysfs_gid_index(mapped_gid_text("10.0.0.1"));
    return moved.has_value();
  }));
  ASSERT_NE(*moved, 1) << "the kernel kept the index; nothing moved";
  EXPECT_EQ(verbs_gid_index("10.0.0.1", "veth0"), moved);
  EXPECT_TRUE(eventually([&] {
    return scraped("roce_rocev2_gid_index", {{"netdev", "veth0"}, {"family", "ipv4"}}) == *moved;
  })) << scrape();
  EXPECT_EQ(scraped("roce_rocev2_gid_index_expected", {{"netdev", "veth0"}, {"family", "ipv4"}}),
            1.0);
  const std::string warning =
      "RoCE v2 GID index is " + std::to_string(*moved) + ", the config says jobs use 1";
  EXPECT_TRUE(eventually([&] { return log().find(warning) != std::string::npos; }))
      << "no \"" << warning << "\" in the log:\n"
      << log();
}

TEST_F(RxeDaemon, RdmaTrafficMovesTheExportedHwCounters) {
  const auto sysfs_counter = [](const std::string& name) {
    return std::stod(read_text(kRxe + "/hw_counters/" + name));
  };
  const auto exported = [](const std::string& family) {
    return scraped(family, kVeth0).value_or(-1);
  };
  const double sent_before = exported("roce_rdma_sent_packets_total");
  const double received_before = exported("roce_rdma_received_packets_total");
  ASSERT_GE(sent_before, 0) << scrape();
  ASSERT_GE(received_before, 0) << scrape();

  const auto local_gid = sysfs_gid_index(mapped_gid_text("10.0.0.1"));
  ASSERT_TRUE(local_gid.has_value());
  constexpr int kIterations = 200;
  // Both ends on rxe0, which rxe carries through its loopback path: in 6.1 rxe's UDP socket lives
  // in the initial namespace only (a peer namespace never receives), and a second local address
  // would be routed through lo, which no rxe device owns. Each end is bounded by `timeout`.
  const std::string gid = std::to_string(*local_gid);
  const std::string iterations = std::to_string(kIterations);
  const pid_t server = ::fork();
  if (server == 0) {
    ::execl("/bin/busybox", "timeout", "120", "/usr/bin/ibv_rc_pingpong", "-d", "rxe0", "-g",
            gid.c_str(), "-n", iterations.c_str(), nullptr);
    ::_exit(127);
  }
  CommandResult client;
  // Until the server listens; the minute only stops a hang (a busy VM starts it slowly).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    client = run_command({"/bin/busybox", "timeout", "120", "/usr/bin/ibv_rc_pingpong", "-d",
                          "rxe0", "-g", gid, "-n", iterations, "127.0.0.1"});
    if (client.exit_code == 0 || client.out.find("remote address") != std::string::npos) break;
  } while (std::chrono::steady_clock::now() < give_up);
  int server_status = 0;
  ::waitpid(server, &server_status, 0);
  ASSERT_EQ(client.exit_code, 0) << client.out << client.err;
  EXPECT_TRUE(WIFEXITED(server_status) && WEXITSTATUS(server_status) == 0);
  std::printf("ibv_rc_pingpong: %s", client.out.c_str());

  // Traffic over: the counters hold still, and roced exports exactly what sysfs shows.
  const double sent = sysfs_counter("sent_pkts");
  const double received = sysfs_counter("rcvd_pkts");
  EXPECT_GE(sent - sent_before, kIterations);
  EXPECT_GE(received - received_before, kIterations);
  EXPECT_TRUE(eventually([&] {
    return exported("roce_rdma_sent_packets_total") == sent &&
           exported("roce_rdma_received_packets_total") == received;
  })) << "sysfs sent "
      << sent << " received " << received << "\n"
      << scrape();
}

// ---- stacked netdevs, as the kernel makes them ----

void ip(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kIp};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto result = run_command(argv);
  ASSERT_EQ(result.exit_code, 0) << "ip " << args[0] << " " << args[1] << ": " << result.err;
}

// rxe0's GID index whose entry is `gid`, of `type`, on `ndev` (gid_attrs/ndevs names the netdev
// the kernel made the entry for), read from sysfs here.
std::optional<int> sysfs_gid_index_on(const std::string& gid, const std::string& ndev) {
  for (int index = 0; index < 64; ++index) {
    const std::string i = std::to_string(index);
    if (read_text(kRxe + "/gids/" + i) == gid &&
        read_text(kRxe + "/gid_attrs/types/" + i) == "RoCE v2" &&
        read_text(kRxe + "/gid_attrs/ndevs/" + i) == ndev) {
      return index;
    }
  }
  return std::nullopt;
}

const json* function_entry(const json& status, const std::string& netdev) {
  if (!status.contains("functions") || !status["functions"].is_array()) return nullptr;
  for (const auto& entry : status["functions"]) {
    if (entry.value("netdev", "") == netdev) return &entry;
  }
  return nullptr;
}

// A VLAN and a macvlan over veth0: the kernel makes their addresses GIDs of rxe0 under their own
// names (roce_gid_mgmt.c), and roced tells them from sysfs and lists them under veth0. (An ipvlan
// cannot share a port with a macvlan: ipvlan_port_create refuses it with EBUSY.)
TEST(Stacked, UpperDevicesAreTheirPortsGidsAndListedUnderIt) {
  ip({"link", "set", "veth0", "mtu", std::to_string(kDaemonMtu)});
  ip({"link", "add", "link", "veth0", "name", "veth0.100", "type", "vlan", "id", "100"});
  ip({"link", "add", "link", "veth0", "name", "mv0", "type", "macvlan", "mode", "bridge"});
  const std::vector<std::pair<std::string, std::string>> uppers = {{"veth0.100", "10.100.0.1"},
                                                                   {"mv0", "10.101.0.1"}};
  for (const auto& [netdev, address] : uppers) {
    ip({"addr", "add", address + "/24", "dev", netdev});
    ip({"link", "set", netdev, "up"});
  }
  for (const auto& [netdev, address] : uppers) {
    EXPECT_TRUE(eventually([&, n = netdev, a = address] {
      return sysfs_gid_index_on(mapped_gid_text(a), n).has_value();
    })) << netdev
        << "'s address is no GID of rxe0 named by it";
  }
  // What roced reads to tell them: a VLAN's uevent names its type, the others' none.
  EXPECT_NE(read_text("/sys/class/net/veth0.100/uevent").find("DEVTYPE=vlan"), std::string::npos);
  EXPECT_EQ(read_text("/sys/class/net/mv0/uevent").find("DEVTYPE"), std::string::npos);

  ip({"link", "set", "veth0.100", "mtu", "1500"});
  const json status = run_json({"rocectl", "status", "--json", "--port", "veth0"});
  for (const auto& [netdev, address] : uppers) {
    const json* entry = function_entry(status, netdev);
    ASSERT_NE(entry, nullptr) << netdev << "\n" << status.dump(2);
    EXPECT_EQ((*entry)["role"], "upper") << netdev;
    EXPECT_EQ((*entry)["of"], "veth0") << netdev;
    EXPECT_EQ((*entry)["mtu"], link_mtu(netdev)) << netdev;
  }
  EXPECT_EQ((*function_entry(status, "veth0.100"))["detail"], "VLAN of veth0");
  EXPECT_EQ((*function_entry(status, "mv0"))["detail"], "upper device of veth0");
  const auto text = run_command({"rocectl", "status", "--port", "veth0"}).out;
  EXPECT_NE(text.find("  uppers   "), std::string::npos) << text;
  // veth0 at 4200 carries RoCE MTU 4096, the VLAN at 1500 only 1024 (rdma_cm's path MTU).
  EXPECT_NE(text.find("RoCE over veth0.100's addresses gets path MTU 1024, not 4096"),
            std::string::npos)
      << text;

  // Named, the VLAN's RoCE v2 GID is the kernel's entry for its address under its name.
  const auto config =
      config_file("upper.yaml", "ports: {drivers: [], netdevs: [veth0.100]}\nprofile: {}\n");
  const json plan = run_json({"rocectl", "plan", "--json", "--config", config});
  const json* port = port_entry(plan, "veth0.100");
  ASSERT_NE(port, nullptr) << plan.dump(2);
  EXPECT_EQ((*port)["rdma_device"], "rxe0");
  EXPECT_EQ((*port)["roce_v2_gid_index"],
            *sysfs_gid_index_on(mapped_gid_text("10.100.0.1"), "veth0.100"));

  for (const auto& [netdev, address] : uppers) ip({"link", "del", netdev});
}

// A bond of two veths with rxe on it: roced reads the bonding driver's sysfs as it is. (Loading
// bonding made an empty bond0 already: max_bonds defaults to 1.)
TEST(Stacked, ABondIsReadAsTheBondingDriverShowsIt) {
  for (const std::string slave : {"a0", "a1"}) {
    ip({"link", "add", slave, "type", "veth", "peer", "name", slave + "p"});
    ip({"link", "set", slave + "p", "up"});
  }
  ip({"link", "add", "rb0", "type", "bond", "mode", "active-backup", "miimon", "100"});
  ip({"link", "set", "a0", "master", "rb0"});
  ip({"link", "set", "a1", "master", "rb0"});
  ip({"link", "set", "rb0", "up"});
  ip({"addr", "add", "10.9.0.1/24", "dev", "rb0"});
  const auto rxe =
      run_command({"/usr/bin/rdma", "link", "add", "rxe1", "type", "rxe", "netdev", "rb0"});
  ASSERT_EQ(rxe.exit_code, 0) << rxe.err;
  ASSERT_TRUE(eventually([] {
    return read_text("/sys/class/net/a0/bonding_slave/mii_status") == "up" &&
           read_text("/sys/class/net/rb0/bonding/active_slave") == "a0";
  })) << read_text("/sys/class/net/rb0/bonding/slaves");

  const json status = run_json({"rocectl", "status", "--json", "--port", "rb0", "--port", "a1"});
  const json* bond = port_entry(status, "rb0");
  ASSERT_NE(bond, nullptr) << status.dump(2);
  EXPECT_EQ((*bond)["rdma_device"], "rxe1");
  EXPECT_EQ((*bond)["observed"]["role"], "bond");
  const json& info = (*bond)["observed"]["bond"];
  // bonding_show_mode prints "active-backup 1": the name is the first word.
  EXPECT_EQ(read_text("/sys/class/net/rb0/bonding/mode"), "active-backup 1");
  EXPECT_EQ(info["mode"], "active-backup") << info.dump();
  ASSERT_EQ(info["slaves"].size(), 2u) << info.dump();
  EXPECT_EQ(info["slaves"][0]["netdev"], "a0");
  EXPECT_EQ(info["slaves"][0]["state"], read_text("/sys/class/net/a0/bonding_slave/state"));
  EXPECT_EQ(info["slaves"][1]["state"], read_text("/sys/class/net/a1/bonding_slave/state"));
  EXPECT_EQ(info["slaves"][1]["state"], "backup");
  EXPECT_EQ(info["active_slave"], "a0");
  EXPECT_TRUE(info["lag_device"].is_null()) << "veths are no mlx5 LAG";
  const json* slave = port_entry(status, "a1");
  ASSERT_NE(slave, nullptr) << status.dump(2);
  EXPECT_EQ((*slave)["observed"]["bond"]["name"], "rb0");

  EXPECT_EQ(run_command({"/usr/bin/rdma", "link", "delete", "rxe1"}).exit_code, 0);
  ip({"link", "del", "rb0"});
  for (const std::string name : {"a0", "a1"}) ip({"link", "del", name});
}

}  // namespace
