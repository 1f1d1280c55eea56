// SPDX-License-Identifier: Apache-2.0
// The cases on the test module's mlx5-like ports rtd0 and rtd1 (test/kmod/roce_testdev.c) in the
// VM: the kernel's own dcbnl, ethtool core, rtnetlink and debugfs between roced and a driver that
// behaves as mlx5's DCB side does. Every value roced writes is read back through another door:
// iproute2's dcb and ip, ethtool, debugfs and the module's own state file. The cases run in file
// order and build on each other; the lockdown case is last, as lockdown cannot be lowered again.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "dcb/client.hpp"
#include "devlink/health_events.hpp"
#include "devlink/health_reporter.hpp"
#include "ethtool/ethtool.hpp"
#include "ethtool/fec.hpp"
#include "ethtool/module_eeprom.hpp"
#include "ethtool/standard_stats.hpp"
#include "health/transceiver.hpp"
#include "os/open_system.hpp"
#include "vm_support.hpp"

namespace {

using namespace roced::vm;
using roced::EthtoolClient;
using roced::PauseParams;
using roced::System;

const std::string kDcb = "/usr/bin/dcb";
const std::string kEthtool = "/usr/bin/ethtool";
const std::string kModuleDir = "/sys/kernel/debug/roce_testdev/";
const std::string kCcParams = "/sys/kernel/debug/mlx5/mlx5_core.0/cc_params/";
const std::string kTestdevMetricsUrl = "http://127.0.0.1:9880/metrics";

// The shipped lossless profile (packaging/roced.yaml) on rtd0 only, with one DCQCN knob.
std::string profile_config(const std::string& name, const std::string& pfc = "[3]",
                           const std::string& stall = "auto") {
  return config_file(name, R"(ports: {netdevs: [rtd0]}
profile:
  dcbx: host
  trust: dscp
  dscp_map: {26: 3, 48: 6}
  pfc: {priorities: )" + pfc + R"(, cable_length: 7}
  ets:
    prio_tc: [0, 1, 2, 3, 4, 5, 6, 7]
    tcs:
      0: {tsa: ets, bandwidth: 10}
      1: {tsa: ets, bandwidth: 10}
      2: {tsa: ets, bandwidth: 10}
      3: {tsa: ets, bandwidth: 50}
      4: {tsa: ets, bandwidth: 10}
      5: {tsa: ets, bandwidth: 5}
      6: {tsa: strict}
      7: {tsa: ets, bandwidth: 5}
  mtu: 9000
  ecn: {cnp_dscp: 48, cnp_priority: 6, dcqcn: {rp_ai_rate: 10}}
  stall_prevention: )" + stall +
                               "\n");
}

std::string shown(const std::vector<std::string>& argv) {
  const auto result = run_command(argv);
  EXPECT_EQ(result.exit_code, 0) << argv[0] << " " << argv[1] << ": " << result.err;
  return result.out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string module_state(const std::string& netdev) {
  return read_text(kModuleDir + netdev + "/state");
}

int stats_count(const std::string& netdev) {
  const std::string stats = shown({kEthtool, "-S", netdev});
  int lines = 0;
  for (char c : stats) lines += c == '\n';
  return lines - 1;  // "NIC statistics:"
}

const json* applied_port(const json& result) {
  const json* port = port_entry(result, "rtd0");
  EXPECT_NE(port, nullptr) << result.dump(2);
  return port;
}

TEST(TestDev, RocedTakesTheTestPortsForMlx5Ports) {
  const json status = run_json({"rocectl", "status", "--json", "--port", "rtd0"});
  const json* port = port_entry(status, "rtd0");
  ASSERT_NE(port, nullptr) << status.dump(2);
  EXPECT_EQ((*port)["observed"]["mlx5"], true) << port->dump(2);
  // The kernel's view: the device and driver links mlx5 ports have.
  EXPECT_EQ(
      shown({"/bin/busybox", "readlink", "/sys/class/net/rtd0/device/driver"}).find("mlx5_core") !=
          std::string::npos,
      true);
  EXPECT_TRUE(contains(shown({kEthtool, "-i", "rtd0"}), "driver: mlx5_core"));
  // The tree told from the kernel's own strings: the mainline driver of the kernel running, whose
  // behaviour the test module takes on for the kernel it is built for.
  const json& tree = (*port)["observed"]["driver_tree"];
  const auto kernel = running_kernel();
  const std::string expected = kernel.minor == 12 ? "debian-6.12" : "debian-6.1";
  EXPECT_EQ(tree["flavour"], expected) << tree.dump(2);
  EXPECT_EQ(tree["version"].get<std::string>().rfind(
                std::to_string(kernel.major) + "." + std::to_string(kernel.minor) + ".", 0),
            0u)
      << tree.dump(2);
  EXPECT_FALSE(tree["evidence"].empty()) << tree.dump(2);
  EXPECT_EQ(tree["traits"]["maxrate"], "u8-checked") << tree.dump(2);
}

// The attributes the kernel's dcbnl puts in DCB_ATTR_IEEE of an IEEE_GET reply (net/dcb/dcbnl.c
// dcbnl_ieee_fill), read with a bare rtnetlink socket: empty when there is no reply.
std::set<int> ieee_get_attributes(const std::string& netdev) {
  std::set<int> types;
  const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return types;
  struct {
    nlmsghdr header;
    dcbmsg dcb;
    char attributes[64];
  } request{};
  request.header.nlmsg_type = RTM_GETDCB;
  request.header.nlmsg_flags = NLM_F_REQUEST;
  request.dcb.dcb_family = AF_UNSPEC;
  request.dcb.cmd = DCB_CMD_IEEE_GET;
  auto* name = reinterpret_cast<nlattr*>(request.attributes);
  name->nla_type = DCB_ATTR_IFNAME;
  name->nla_len = static_cast<uint16_t>(NLA_HDRLEN + netdev.size() + 1);
  std::memcpy(request.attributes + NLA_HDRLEN, netdev.c_str(), netdev.size() + 1);
  request.header.nlmsg_len =
      static_cast<uint32_t>(NLMSG_LENGTH(sizeof(dcbmsg)) + NLA_ALIGN(name->nla_len));
  std::vector<char> reply(65536);
  ssize_t got = -1;
  if (::send(fd, &request, request.header.nlmsg_len, 0) >= 0) {
    got = ::recv(fd, reply.data(), reply.size(), 0);
  }
  ::close(fd);
  const auto* header = reinterpret_cast<const nlmsghdr*>(reply.data());
  if (got < static_cast<ssize_t>(NLMSG_LENGTH(sizeof(dcbmsg))) ||
      header->nlmsg_type != RTM_GETDCB) {
    return types;
  }
  const char* at = reply.data() + NLMSG_LENGTH(sizeof(dcbmsg));
  const char* end = reply.data() + std::min<size_t>(header->nlmsg_len, static_cast<size_t>(got));
  while (at + NLA_HDRLEN <= end) {
    const auto* attribute = reinterpret_cast<const nlattr*>(at);
    if (attribute->nla_len < NLA_HDRLEN || at + attribute->nla_len > end) break;
    if ((attribute->nla_type & NLA_TYPE_MASK) == DCB_ATTR_IEEE) {
      const char* inner = at + NLA_HDRLEN;
      const char* inner_end = at + attribute->nla_len;
      while (inner + NLA_HDRLEN <= inner_end) {
        const auto* nested = reinterpret_cast<const nlattr*>(inner);
        if (nested->nla_len < NLA_HDRLEN) break;
        types.insert(nested->nla_type & NLA_TYPE_MASK);
        inner += NLA_ALIGN(nested->nla_len);
      }
    }
    at += NLA_ALIGN(attribute->nla_len);
  }
  return types;
}

// What the two kernels' dcbnl differ in, on a port that answers as mlx5 does. Upstream 6.2 added
// the APP trust table (dcbnl_rtnl_ops.dcbnl_getapptrust, DCB_ATTR_DCB_APP_TRUST_TABLE) and 6.4
// the rewrite table (DCB_ATTR_DCB_REWR_TABLE); bookworm's 6.1 headers have neither. mlx5, and so
// the test module, implements no trust op (trust is DSCP APP entries present): the trust table is
// absent on both kernels. 6.12's dcbnl_ieee_fill adds the rewrite table's nest for every port,
// driver op or not: 6.1 sends no such attribute. roced, built on bookworm's 6.1 uapi headers, must
// read both replies alike.
TEST(TestDev, TheKernelsDcbnlDiffersOnlyWhereRocedDoesNotLook) {
  constexpr int kAppTrustTable = 11;  // DCB_ATTR_DCB_APP_TRUST_TABLE, uapi/linux/dcbnl.h in 6.2+
  constexpr int kRewriteTable = 12;   // DCB_ATTR_DCB_REWR_TABLE, uapi/linux/dcbnl.h in 6.4+
  const auto kernel = running_kernel();
  const auto attributes = ieee_get_attributes("rtd0");
  std::string listed;
  for (int type : attributes) listed += std::to_string(type) + " ";
  std::printf("kernel %s: DCB_ATTR_IEEE of IEEE_GET on rtd0 holds %s\n", kernel.release.c_str(),
              listed.c_str());
  ASSERT_TRUE(attributes.count(DCB_ATTR_IEEE_ETS) && attributes.count(DCB_ATTR_IEEE_PFC))
      << "kernel " << kernel.release << ", attributes " << listed;
  EXPECT_FALSE(attributes.count(kAppTrustTable))
      << "kernel " << kernel.release << ": mlx5 has no dcbnl_getapptrust; attributes " << listed;
  if (kernel_at_least(6, 4)) {
    EXPECT_TRUE(attributes.count(kRewriteTable))
        << "kernel " << kernel.release << " (6.4+) sends the rewrite table; attributes " << listed;
  } else {
    EXPECT_FALSE(attributes.count(kRewriteTable))
        << "kernel " << kernel.release << " (before 6.4) has no rewrite table; attributes "
        << listed;
  }
  System system = roced::real_system();
  roced::dcb::DcbClient dcb(system);
  const auto state = dcb.get("rtd0");
  ASSERT_TRUE(state) << kernel.release << ": " << state.error().message;
  EXPECT_TRUE(state->ets.has_value() && state->pfc.has_value()) << kernel.release;
}

TEST(TestDev, ApplyConfiguresThePortAsDcbIpAndEthtoolShowIt) {
  ASSERT_TRUE(eventually([] { return read_text("/sys/class/net/rtd0/carrier") == "1"; }));
  int code = -1;
  const json result =
      run_json({"rocectl", "apply", "--json", "--config", profile_config("lossless.yaml")}, &code);
  EXPECT_EQ(code, 0) << result.dump(2);
  const json* port = applied_port(result);
  ASSERT_NE(port, nullptr);
  EXPECT_EQ((*port)["outcome"], "applied") << port->dump(2);

  const std::string pfc = shown({kDcb, "pfc", "show", "dev", "rtd0"});
  EXPECT_TRUE(contains(pfc, "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off")) << pfc;
  EXPECT_TRUE(contains(pfc, "delay 7")) << pfc;
  const std::string app = shown({kDcb, "-N", "app", "show", "dev", "rtd0"});
  EXPECT_TRUE(contains(app, " 26:3 ")) << app;
  EXPECT_TRUE(contains(app, " 48:6 ")) << app;
  const std::string ets = shown({kDcb, "ets", "show", "dev", "rtd0"});
  EXPECT_TRUE(contains(ets, "tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:strict 7:ets")) << ets;
  EXPECT_TRUE(contains(ets, "tc-bw 0:10 1:10 2:10 3:50 4:10 5:5")) << ets;
  EXPECT_TRUE(contains(ets, "prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7")) << ets;
  EXPECT_TRUE(contains(shown({kDcb, "dcbx", "show", "dev", "rtd0"}), "host"));
  EXPECT_EQ(link_mtu("rtd0"), 9000);
  const std::string stall = shown({kEthtool, "--get-tunable", "rtd0", "pfc-prevention-tout"});
  EXPECT_TRUE(contains(stall, "pfc-prevention-tout: 100")) << stall;  // auto reads back as 100
  EXPECT_EQ(read_text(kCcParams + "np_cnp_dscp"), "48");
  EXPECT_EQ(read_text(kCcParams + "np_cnp_prio"), "6");
  EXPECT_EQ(read_text(kCcParams + "rp_ai_rate"), "10");
  // The module's own registers: trust DSCP, PFC on 3, the firmware's lossless buffer for it.
  const std::string state = module_state("rtd0");
  EXPECT_TRUE(contains(state, "pfc_en 0x08")) << state;
  EXPECT_TRUE(contains(state, "trust dscp")) << state;
  EXPECT_TRUE(contains(state, "buffer1 size 262144")) << state;
  // rtd1 is not selected: untouched.
  EXPECT_TRUE(contains(module_state("rtd1"), "pfc_en 0x00"));

  const json again =
      run_json({"rocectl", "apply", "--json", "--config", profile_config("lossless.yaml")}, &code);
  EXPECT_EQ(code, 0) << again.dump(2);
  EXPECT_EQ(again["changed"], false) << again.dump(2);
}

TEST(TestDev, AStepTheDriverRefusesIsRolledBackAsDcbShows) {
  // PFC on 3 and 4 and a stall timeout the next set_tunable refuses (EIO): PFC goes back.
  write_text(kModuleDir + "rtd0/fail", "set_tunable 5");
  int code = -1;
  const json result = run_json(
      {"rocectl", "apply", "--json", "--config", profile_config("refused.yaml", "[3, 4]", "500")},
      &code);
  EXPECT_NE(code, 0) << result.dump(2);
  const json* port = applied_port(result);
  ASSERT_NE(port, nullptr);
  EXPECT_EQ((*port)["outcome"], "rolled-back") << port->dump(2);
  const std::string pfc = shown({kDcb, "pfc", "show", "dev", "rtd0"});
  EXPECT_TRUE(contains(pfc, "prio-pfc 0:off 1:off 2:off 3:on 4:off")) << pfc;
  EXPECT_TRUE(contains(module_state("rtd0"), "pfc_en 0x08"));
  EXPECT_TRUE(contains(shown({kEthtool, "--get-tunable", "rtd0", "pfc-prevention-tout"}),
                       "pfc-prevention-tout: 100"));
}

TEST(TestDev, TheStatisticsFollowThePfcMaskAndTheChannels) {
  const std::string stats = shown({kEthtool, "-S", "rtd0"});
  EXPECT_TRUE(contains(stats, " tx_prio3_pause: ")) << stats;
  EXPECT_FALSE(contains(stats, " tx_prio4_pause: ")) << stats;
  const int before = stats_count("rtd0");
  ASSERT_EQ(run_command({kEthtool, "-L", "rtd0", "combined", "8"}).exit_code, 0);
  EXPECT_GT(stats_count("rtd0"), before);
  EXPECT_TRUE(contains(shown({kEthtool, "-S", "rtd0"}), " rx7_packets: "));
}

// 802.3x global pause on rtd1, still fresh here (the cases before it only read rtd1): ethtool 6.1
// speaks the kernel's ethtool netlink (net/ethtool/pause.c ethnl_set_pause), roced's client the
// ioctl (net/ethtool/ioctl.c ethtool_get_pauseparam), both reaching the module's
// get/set_pauseparam as they would mlx5's. A PFC mask change through dcbnl turns it off
// (port.c mlx5_set_port_pfc); so does the PFC write of every later case on this port.
TEST(TestDev, GlobalPauseIsOnUntilEthtoolOrAPfcWriteTurnsItOff) {
  System system = roced::real_system();
  EthtoolClient ethtool(system);
  const auto pause = [&] {
    auto read = ethtool.pause("rtd1");
    EXPECT_TRUE(read) << read.error().message;
    return read.value_or(PauseParams{true, true, true});
  };
  const auto shown_pause = [] { return shown({kEthtool, "-a", "rtd1"}); };
  const PauseParams on{false, true, true}, off{false, false, false};

  EXPECT_EQ(pause(), on);
  std::string text = shown_pause();
  EXPECT_TRUE(contains(text, "Autonegotiate:\toff\nRX:\t\ton\nTX:\t\ton")) << text;
  EXPECT_TRUE(contains(module_state("rtd1"), "global_pause rx 1 tx 1"));
  EXPECT_TRUE(contains(shown({kEthtool, "-S", "rtd1"}), " rx_global_pause: "));

  shown({kEthtool, "-A", "rtd1", "rx", "off", "tx", "off"});
  EXPECT_EQ(pause(), off);
  text = shown_pause();
  EXPECT_TRUE(contains(text, "RX:\t\toff\nTX:\t\toff")) << text;
  EXPECT_FALSE(contains(shown({kEthtool, "-S", "rtd1"}), " rx_global_pause: "));

  ASSERT_TRUE(ethtool.set_pause("rtd1", on));  // on again, through roced's client
  text = shown_pause();
  EXPECT_TRUE(contains(text, "RX:\t\ton\nTX:\t\ton")) << text;
  EXPECT_EQ(ethtool.set_pause("rtd1", PauseParams{true, true, true}).error().code, EINVAL);
  write_text(kModuleDir + "rtd1/fail", "set_pauseparam 16");
  EXPECT_EQ(ethtool.set_pause("rtd1", off).error().code, EBUSY);
  EXPECT_EQ(pause(), on);

  // dcb 6.1 may read a stale ACK as the set's answer (sim_exec.hpp): the state is read back.
  run_command({kDcb, "pfc", "set", "dev", "rtd1", "prio-pfc", "3:on"});
  EXPECT_EQ(pause(), off);
  text = shown_pause();
  EXPECT_TRUE(contains(text, "RX:\t\toff\nTX:\t\toff")) << text;
  EXPECT_TRUE(contains(module_state("rtd1"), "pfc_en 0x08"));
  // rtd1 back as the later cases found it before this one: PFC off (global pause stays off with
  // it), then global pause on again, the link up and the kernel done with it (operstate up).
  run_command({kDcb, "pfc", "set", "dev", "rtd1", "prio-pfc", "3:off"});
  EXPECT_TRUE(contains(module_state("rtd1"), "pfc_en 0x00"));
  EXPECT_EQ(pause(), off);
  EXPECT_TRUE(ethtool.set_pause("rtd1", on));
  EXPECT_TRUE(eventually([] {
    return read_text("/sys/class/net/rtd1/carrier") == "1" &&
           read_text("/sys/class/net/rtd1/operstate") == "up";
  }));
}

// The optic of rtd1 through the kernel's ethtool netlink (net/ethtool/eeprom.c
// eeprom_parse_request, eeprom_prepare_data) to the module's get_module_eeprom_by_page, as mlx5's:
// roced's reader and decoder and ethtool 6.1's `-m` (netlink too, by page) read the same
// readings; a lane dimmed below the module's low alarm is an alarm for both.
TEST(TestDev, TheOpticReadsAsEthtoolShowsIt) {
  System system = roced::real_system();
  roced::ModuleEepromReader reader(system);
  const auto decode = [&] {
    const roced::EepromRead reads[] = {
        {"rtd1", 0, 0, 128}, {"rtd1", 0, 128, 128}, {"rtd1", 3, 128, 128}};
    auto pages = reader.read(reads, std::chrono::seconds(5));
    for (const auto& page : pages) EXPECT_TRUE(page) << page.error().message;
    std::optional<roced::health::ModuleDiagnostics> module;
    if (pages[0] && pages[1] && pages[2]) {
      module = roced::health::decode_sff8636(*pages[0], *pages[1], *pages[2]);
    }
    return module;
  };
  const auto rx = [](const roced::health::ModuleDiagnostics& module, int lane) {
    for (const auto& m : module.monitors) {
      if (m.quantity == roced::health::Quantity::rx_power && m.lane == lane) return m;
    }
    return roced::health::Monitor{roced::health::Quantity::rx_power, lane, -1};
  };
  auto module = decode();
  ASSERT_TRUE(module);
  EXPECT_EQ(module->part_number, "MMA1B00-C100D");
  EXPECT_NEAR(rx(*module, 1).value, 0.81e-3, 1e-9);
  EXPECT_FALSE(roced::health::judge_transceiver("rtd1", *module));
  std::string text = shown({kEthtool, "-m", "rtd1"});
  EXPECT_TRUE(contains(text, "Rcvr signal avg optical power(Channel 1)  : 0.8100 mW / -0.92 dBm"))
      << text;
  EXPECT_TRUE(contains(text, "Laser rx power low alarm threshold        : 0.0468 mW / -13.30 dBm"))
      << text;

  write_text(kModuleDir + "rtd1/optic", "rx 2 400");  // 40 uW: -13.98 dBm
  text = shown({kEthtool, "-m", "rtd1"});
  EXPECT_TRUE(contains(text, "Rcvr signal avg optical power(Channel 2)  : 0.0400 mW / -13.98 dBm"))
      << text;
  EXPECT_TRUE(contains(text, "Laser rx power low alarm    (Channel 2)   : On")) << text;
  module = decode();
  ASSERT_TRUE(module);
  EXPECT_NEAR(rx(*module, 2).value, 40e-6, 1e-9);
  EXPECT_EQ(roced::health::excursion(rx(*module, 2)), roced::health::Excursion::alarm);
  const auto found = roced::health::judge_transceiver("rtd1", *module);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, roced::health::kTransceiverAlarm.id);

  // The kernel's own checks refuse a read across the half page (eeprom_parse_request).
  const roced::EepromRead across[] = {{"rtd1", 0, 64, 128}};
  const auto refused = reader.read(across, std::chrono::seconds(5));
  ASSERT_FALSE(refused[0]);
  EXPECT_EQ(refused[0].error().code, EINVAL);
  write_text(kModuleDir + "rtd1/optic", "rx 2 7800");  // as the later cases found it
  shown({kEthtool, "-m", "rtd1"});                     // and its latched flags read (cleared)
  EXPECT_FALSE(roced::health::judge_transceiver("rtd1", decode().value()));
}

// rtd1 with an OSFP module (CMIS): roced reads lower and upper page 00h and upper pages 01h, 02h
// and 11h through the kernel's eeprom_parse_request, and decodes what ethtool 6.1's own CMIS
// decoder (over netlink: mlx5's legacy ioctl refuses CMIS identifiers) shows.
TEST(TestDev, TheCmisOpticReadsAsEthtoolShowsIt) {
  System system = roced::real_system();
  roced::ModuleEepromReader reader(system);
  write_text(kModuleDir + "rtd1/optic", "form osfp");
  const auto decode = [&] {
    const roced::EepromRead reads[] = {{"rtd1", 0, 0, 128},
                                       {"rtd1", 0, 128, 128},
                                       {"rtd1", roced::health::kCmisAdvertisingPage, 128, 128},
                                       {"rtd1", roced::health::kCmisThresholdPage, 128, 128},
                                       {"rtd1", roced::health::kCmisLanePage, 128, 128}};
    auto pages = reader.read(reads, std::chrono::seconds(5));
    for (const auto& page : pages) EXPECT_TRUE(page) << page.error().message;
    std::optional<roced::health::ModuleDiagnostics> module;
    if (pages[0] && pages[1] && pages[2] && pages[3] && pages[4]) {
      module = roced::health::decode_cmis(*pages[0], *pages[1], *pages[2], *pages[3], *pages[4]);
    }
    return module;
  };
  const auto rx = [](const roced::health::ModuleDiagnostics& module, int lane) {
    for (const auto& m : module.monitors) {
      if (m.quantity == roced::health::Quantity::rx_power && m.lane == lane) return m.value;
    }
    return -1.0;
  };
  write_text(kModuleDir + "rtd1/optic", "rx 3 400");  // 40 uW: -13.98 dBm, below the low alarm
  auto module = decode();
  std::string text = shown({kEthtool, "-m", "rtd1"});
  write_text(kModuleDir + "rtd1/optic", "rx 3 7800");
  write_text(kModuleDir + "rtd1/optic", "form qsfp28");
  ASSERT_TRUE(module);
  EXPECT_EQ(module->part_number, "MMA4Z00-NS400");
  EXPECT_NEAR(rx(*module, 1), 0.81e-3, 1e-9);
  EXPECT_NEAR(rx(*module, 3), 40e-6, 1e-9);
  EXPECT_EQ(rx(*module, 5), -1.0);  // not a lane of the module's application
  const auto found = roced::health::judge_transceiver("rtd1", *module);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, roced::health::kTransceiverAlarm.id);
  for (const char* line : {"Identifier                                : 0x19 (OSFP",
                           "Vendor PN                                 : MMA4Z00-NS400",
                           "Module temperature                        : 38.50 degrees C",
                           "Laser rx power low alarm threshold        : 0.0468 mW / -13.30 dBm",
                           "Rcvr signal avg optical power (Channel 1) : 0.8100 mW / -0.92 dBm",
                           "Rcvr signal avg optical power (Channel 3) : 0.0400 mW / -13.98 dBm",
                           "Laser rx power low alarm    (Channel 3)   : Off",
                           "Laser rx power low alarm    (Channel 5)   : On"}) {
    EXPECT_TRUE(contains(text, line)) << line << "\n" << text;
  }
  // ethtool misplaces CMIS lane flags: cmis.c cmis_show_dom_chan_lvl_flags_chan tests
  // `page_11h[offset] & chan` with the lane's index, not its bit, so lane 3's low alarm (bit 2)
  // shows on Channel 5 (index 4) and Channel 1's never. roced reads the bit per lane (CMIS 5.0
  // table 8-78) and names lane 3, which the power beside it confirms.
  EXPECT_NE(found->text.find("rx_power lane 3"), std::string::npos) << found->text;
}

// rtd1's FEC through the kernel's net/ethtool/fec.c (fec_prepare_data, fec_stats_recalc,
// fec_put_stats) from the test module's get_fecparam and get_fec_stats: roced's reader reads what
// `ethtool -I --show-fec` shows, and a port without carrier answers EOPNOTSUPP as mlx5's does.
TEST(TestDev, TheFecReadsAsEthtoolShowsIt) {
  System system = roced::real_system();
  roced::FecReader reader(system);
  write_text(kModuleDir + "rtd1/counters", "rx_corrected_bits_phy 4000001");
  write_text(kModuleDir + "rtd1/fec", "3999999 17");
  const std::string names[] = {"rtd1"};
  auto states = reader.read(names, std::chrono::seconds(5));
  ASSERT_TRUE(states[0]) << states[0].error().message;
  EXPECT_EQ(states[0]->active_mode, ETHTOOL_LINK_MODE_FEC_RS_BIT);
  EXPECT_EQ(states[0]->corrected_blocks, (roced::FecCounter{3999999, {}}));
  EXPECT_EQ(states[0]->uncorrectable_blocks, (roced::FecCounter{17, {}}));
  EXPECT_EQ(states[0]->corrected_bits, (roced::FecCounter{4000001, {}}));
  const std::string text = shown({kEthtool, "-I", "--show-fec", "rtd1"});
  EXPECT_TRUE(contains(text, "Active FEC encoding: RS")) << text;
  for (const char* line :
       {"corrected_blocks: 3999999", "uncorrectable_blocks: 17", "corrected_bits: 4000001"}) {
    EXPECT_TRUE(contains(text, line)) << line << "\n" << text;
  }

  write_text(kModuleDir + "rtd1/fec", "0 0");
  write_text(kModuleDir + "rtd1/counters", "rx_corrected_bits_phy 0");
  shown({kIp, "link", "set", "rtd1", "down"});
  states = reader.read(names, std::chrono::seconds(5));
  shown({kIp, "link", "set", "rtd1", "up"});
  ASSERT_FALSE(states[0]);
  EXPECT_EQ(states[0].error().code, EOPNOTSUPP) << states[0].error().message;
  EXPECT_TRUE(eventually([] {
    return read_text("/sys/class/net/rtd1/carrier") == "1" &&
           read_text("/sys/class/net/rtd1/operstate") == "up";
  }));
}

// rtd1's IEEE 802.3 PHY statistics through the kernel's net/ethtool/stats.c (stats_prepare_data,
// stats_put_phy_stats) from the test module's get_eth_phy_stats: roced's reader reads the symbol
// errors `ethtool -S --groups eth-phy` shows, which are ethtool -S's rx_symbol_err_phy on mlx5.
TEST(TestDev, TheSymbolErrorsReadAsEthtoolShowsThem) {
  System system = roced::real_system();
  roced::StandardStatsReader reader(system, ETHTOOL_STATS_ETH_PHY);
  write_text(kModuleDir + "rtd1/counters", "rx_symbol_err_phy 321");
  const std::string names[] = {"rtd1"};
  const auto groups = reader.read(names, std::chrono::seconds(5));
  write_text(kModuleDir + "rtd1/counters", "rx_symbol_err_phy 0");
  ASSERT_TRUE(groups[0]) << groups[0].error().message;
  EXPECT_EQ(*groups[0], (roced::StandardCounters{{ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR, 321}}));
  write_text(kModuleDir + "rtd1/counters", "rx_symbol_err_phy 321");
  const std::string text = shown({kEthtool, "-S", "rtd1", "--groups", "eth-phy"});
  write_text(kModuleDir + "rtd1/counters", "rx_symbol_err_phy 0");
  EXPECT_TRUE(contains(text, "SymbolErrorDuringCarrier: 321")) << text;
}

// The firmware's devlink health reporters of rtd1's device (platform/mlx5_core.1) through the
// kernel's own devlink (devlink_health_report, its auto recovery and grace period,
// devlink_nl_health_reporter_fill): roced's reader reads them as `devlink health show` does.
TEST(TestDev, TheFirmwareReportersReadAsDevlinkShowsThem) {
  System system = roced::real_system();
  roced::HealthReporterReader reader(system);
  const roced::HealthReporterQuery queries[] = {{"mlx5_core.1", "fw", "platform"},
                                                {"mlx5_core.1", "fw_fatal", "platform"}};
  const auto read = [&] {
    auto states = reader.read(queries, std::chrono::seconds(5));
    for (const auto& state : states) EXPECT_TRUE(state) << state.error().message;
    return states;
  };
  const auto shown_json = [](const std::string& reporter) {
    return json::parse(shown({"/usr/bin/devlink", "-j", "health", "show", "platform/mlx5_core.1",
                              "reporter", reporter}))["health"]["platform/mlx5_core.1"][0];
  };
  auto states = read();
  ASSERT_TRUE(states[0] && states[1]);
  EXPECT_EQ(*states[1], (roced::HealthReporterState{true, 0, 0}));

  write_text(kModuleDir + "rtd1/firmware", "fatal");  // recovered at once: the first
  write_text(kModuleDir + "rtd1/firmware", "error");
  states = read();
  ASSERT_TRUE(states[0] && states[1]);
  EXPECT_EQ(*states[0], (roced::HealthReporterState{false, 1, 0}));  // no recover op
  EXPECT_EQ(*states[1], (roced::HealthReporterState{true, 1, 1}));
  json fatal = shown_json("fw_fatal");
  EXPECT_EQ(fatal["state"], "healthy") << fatal.dump();
  EXPECT_EQ(fatal["error"], 1) << fatal.dump();
  EXPECT_EQ(fatal["recover"], 1) << fatal.dump();
  EXPECT_EQ(shown_json("fw")["state"], "error");

  write_text(kModuleDir + "rtd1/firmware", "fatal");  // within the grace period: not recovered
  states = read();
  ASSERT_TRUE(states[1]);
  EXPECT_EQ(*states[1], (roced::HealthReporterState{false, 2, 1}));
  fatal = shown_json("fw_fatal");
  EXPECT_EQ(fatal["state"], "error") << fatal.dump();
  EXPECT_EQ(fatal["error"], 2) << fatal.dump();

  const roced::HealthReporterQuery unknown[] = {{"mlx5_core.1", "tx", "platform"},
                                                {"mlx5_core.9", "fw", "platform"}};
  const auto refused = reader.read(unknown, std::chrono::seconds(5));
  ASSERT_FALSE(refused[0]);
  EXPECT_EQ(refused[0].error().code, EINVAL);
  ASSERT_FALSE(refused[1]);
  EXPECT_EQ(refused[1].error().code, ENODEV);
}

// The kernel's own notification of a report (devlink_health_report -> devlink_recover_notify, to
// devlink's "config" group): roced's listener hears which instance's reporter changed.
TEST(TestDev, AReporterChangeIsNotified) {
  System system = roced::real_system();
  roced::HealthReporterEvents events(system);
  auto joined = events.open();
  ASSERT_TRUE(joined) << joined.error().message;
  write_text(kModuleDir + "rtd1/firmware", "error");
  std::vector<roced::HealthReporterEvent> heard;
  const auto patience = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (heard.empty() && std::chrono::steady_clock::now() < patience) {
    pollfd ready{events.fd(), POLLIN, 0};
    ::poll(&ready, 1, 1000);
    heard = events.drain();
  }
  ASSERT_FALSE(heard.empty());
  EXPECT_EQ(heard.front(), (roced::HealthReporterEvent{"platform", "mlx5_core.1", "fw"}));
}

// ---- the daemon on rtd0 ----

// rocectl qualify on the kernel's own dcbnl, ethtool and sysfs: what it reports is what the
// kernel's tools show, and the test port does what roced assumes of mlx5.
std::string first_word_after(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  if (at == std::string::npos) return {};
  const auto start = at + key.size();
  return text.substr(start, text.find_first_of(" \n", start) - start);
}

// rocectl qualify's JSON report; its stderr and exit status in the failure when it is not JSON.
json qualify_report(const std::vector<std::string>& args, int& code) {
  std::vector<std::string> argv = {"rocectl", "qualify", "--json", "--out", "/tmp"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto result = run_command(argv);
  code = result.exit_code;
  try {
    return json::parse(result.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what() << "\nexit " << result.exit_code << ", " << result.out.size()
                  << " bytes on stdout; stderr:\n"
                  << result.err;
    return json::object();
  }
}

TEST(TestDev, QualifyReportsThePortAsTheKernelsToolsShowIt) {
  int code = -1;
  const json report = qualify_report({"--port", "rtd0"}, code);
  EXPECT_EQ(code, 0) << report.dump(2);
  ASSERT_EQ(report["ports"].size(), 1u) << report.dump(2);
  const json& port = report["ports"][0];
  const std::string info = shown({kEthtool, "-i", "rtd0"});
  EXPECT_EQ(port["driver"], first_word_after(info, "driver: "));
  EXPECT_EQ(port["firmware"], first_word_after(info, "firmware-version: "));
  EXPECT_EQ(port["mtu"], link_mtu("rtd0"));
  EXPECT_EQ(port["speed_mbps"], std::stoi(read_text("/sys/class/net/rtd0/speed")));
  const std::string stats = shown({kEthtool, "-S", "rtd0"});
  EXPECT_EQ(port["statistics"].size(),
            static_cast<size_t>(std::count(stats.begin(), stats.end(), '\n') - 1));
  for (const auto& check : port["checks"]) {
    EXPECT_NE(check["verdict"], "differs") << check.dump();
  }
}

TEST(TestDev, QualifyWritePutsTheTestPortBackAsDcbShowsIt) {
  const std::string before = shown({kDcb, "-j", "pfc", "show", "dev", "rtd1"}) +
                             shown({kDcb, "-j", "ets", "show", "dev", "rtd1"});
  const int mtu = link_mtu("rtd1");
  int code = -1;
  const json report = run_json({"rocectl", "qualify", "--json", "--out", "/tmp", "--port", "rtd1",
                                "--write", "--links-may-flap"},
                               &code);
  EXPECT_EQ(code, 0) << report.dump(2);
  ASSERT_EQ(report["ports"].size(), 1u) << report.dump(2);
  const json& port = report["ports"][0];
  for (const auto& check : port["checks"]) {
    EXPECT_NE(check["verdict"], "differs") << check.dump();
  }
  EXPECT_FALSE(port["touched"].empty());
  for (const auto& item : port["touched"]) EXPECT_EQ(item["restored"], true) << item.dump();
  EXPECT_TRUE(port["link_training_ms"].is_number()) << port.dump(2);
  EXPECT_TRUE(eventually([] { return read_text("/sys/class/net/rtd1/carrier") == "1"; }));
  EXPECT_EQ(shown({kDcb, "-j", "pfc", "show", "dev", "rtd1"}) +
                shown({kDcb, "-j", "ets", "show", "dev", "rtd1"}),
            before);
  EXPECT_EQ(link_mtu("rtd1"), mtu);
}

class TestDevDaemon : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto config = config_file("testdev-daemon.yaml", R"(ports: {netdevs: [rtd0]}
daemon:
  drift_check_interval: 1h  # so a correction comes from the kernel's notification
watchdog:
  enabled: true
  poll_interval: 100ms
  detection_time: 200ms
  restoration_time: 500ms
  action: disable-pfc
profile:
  dcbx: host
  trust: dscp
  dscp_map: {26: 3, 48: 6}
  pfc: {priorities: [3], cable_length: 7}
  mtu: 9000
  stall_prevention: auto
)");
    daemon_ = start_roced(config, "/tmp/roced-testdev.log", "127.0.0.1:9880");
  }
  static void TearDownTestSuite() { stop_roced(daemon_, "/tmp/roced-testdev.log"); }
  static std::string log() { return read_text("/tmp/roced-testdev.log"); }
  static std::string scrape() { return scrape_url(kTestdevMetricsUrl); }
  static std::optional<double> scraped(const std::string& name,
                                       const std::map<std::string, std::string>& labels) {
    return metric(scrape(), name, labels);
  }
  static pid_t daemon_;
};
pid_t TestDevDaemon::daemon_ = -1;

TEST_F(TestDevDaemon, KeepsThePortInSync) {
  ASSERT_TRUE(eventually([] {
    return scraped("roce_config_port_state", {{"netdev", "rtd0"}, {"state", "in-sync"}}) == 1.0;
  })) << scrape()
      << log();
  EXPECT_EQ(scraped("roce_config_in_sync", {{"netdev", "rtd0"}, {"setting", "pfc.priorities"}}),
            1.0);
}

// `dcb pfc set` goes through the kernel's dcbnl, which multicasts RTM_SETDCB on RTNLGRP_DCB:
// the only thing that can make roced look again within the hour.
TEST_F(TestDevDaemon, AForeignDcbPfcSetIsCorrected) {
  run_command({kDcb, "pfc", "set", "dev", "rtd0", "prio-pfc", "3:off"});
  EXPECT_TRUE(eventually([] {
    return scraped("roce_config_corrections_total",
                   {{"netdev", "rtd0"}, {"setting", "pfc.priorities"}})
               .value_or(0) >= 1.0;
  })) << scrape()
      << log();
  EXPECT_TRUE(eventually([] { return contains(module_state("rtd0"), "pfc_en 0x08"); }))
      << module_state("rtd0");
}

// The statistics set grows under the poller (more channels): every later read still gets the
// whole reply, and the counters keep flowing into the metrics.
TEST_F(TestDevDaemon, PauseCountersReachTheMetricsAfterTheStatisticsGrow) {
  ASSERT_EQ(run_command({kEthtool, "-L", "rtd0", "combined", "32"}).exit_code, 0);
  write_text(kModuleDir + "rtd0/counters", "tx_prio3_pause +5000");
  EXPECT_TRUE(eventually([] {
    return scraped("roce_pfc_pause_frames_total",
                   {{"netdev", "rtd0"}, {"direction", "tx"}, {"priority", "3"}})
               .value_or(0) >= 5000.0;
  })) << scrape()
      << log();
  EXPECT_EQ(::kill(daemon_, 0), 0) << "roced is gone:\n" << log();
}

// The module's pause counters move with time as a storm's do (rx_prio3_pause_duration covers the
// whole poll, nothing sent on 3): roced detects it, clears PFC on 3 (dcbnl, a link flap), and puts
// it back once the storm has been over for the restoration time.
TEST_F(TestDevDaemon, AnRxStormIsDetectedRemediatedAndRestored) {
  const std::map<std::string, std::string> rx3 = {
      {"netdev", "rtd0"}, {"priority", "3"}, {"direction", "rx"}};
  ASSERT_EQ(scraped("roce_pfc_storm_active", rx3), 0.0) << scrape();
  write_text(kModuleDir + "rtd0/storm", "rx 3");
  EXPECT_TRUE(eventually([&] { return scraped("roce_pfc_storm_active", rx3) == 1.0; }))
      << scrape() << log();
  EXPECT_TRUE(eventually([&] {
    return scraped("roce_pfc_storm_remediation_active", rx3) == 1.0 &&
           contains(module_state("rtd0"), "pfc_en 0x00");
  })) << module_state("rtd0")
      << log();
  EXPECT_TRUE(contains(shown({kDcb, "pfc", "show", "dev", "rtd0"}), " 3:off ")) << log();
  write_text(kModuleDir + "rtd0/storm", "off");
  EXPECT_TRUE(eventually([&] {
    return scraped("roce_pfc_storm_active", rx3) == 0.0 &&
           scraped("roce_pfc_storm_remediation_active", rx3) == 0.0 &&
           contains(module_state("rtd0"), "pfc_en 0x08");
  })) << module_state("rtd0")
      << log();
  EXPECT_TRUE(contains(shown({kDcb, "pfc", "show", "dev", "rtd0"}), " 3:on ")) << log();
  EXPECT_EQ(scraped("roce_pfc_storm_actions_total", {{"netdev", "rtd0"},
                                                     {"priority", "3"},
                                                     {"direction", "rx"},
                                                     {"action", "disable-pfc"},
                                                     {"result", "ok"}}),
            1.0)
      << scrape();
}

// Under lockdown (integrity, what Secure Boot turns on) debugfs refuses the 0600 cc_params files
// even to root: the DCQCN knobs are unsupported here, everything else still applies.
TEST(TestDevLockdown, OnlyTheDcqcnKnobsAreOutOfReach) {
  write_text("/sys/kernel/security/lockdown", "integrity");
  ASSERT_TRUE(contains(read_text("/sys/kernel/security/lockdown"), "[integrity]"))
      << read_text("/sys/kernel/security/lockdown");
  ASSERT_EQ(run_command({kIp, "link", "set", "rtd0", "mtu", "1500"}).exit_code, 0);
  int code = -1;
  const json result =
      run_json({"rocectl", "apply", "--json", "--config", profile_config("lossless.yaml")}, &code);
  const json* port = applied_port(result);
  ASSERT_NE(port, nullptr);
  EXPECT_EQ((*port)["outcome"], "applied") << port->dump(2);
  EXPECT_EQ(link_mtu("rtd0"), 9000);
  std::map<std::string, std::string> reasons;
  for (const auto& u : (*port)["unsupported"]) reasons[u["setting"]] = u.value("reason", "");
  for (const char* knob : {"ecn.cnp_dscp", "ecn.cnp_priority", "ecn.dcqcn.rp_ai_rate"}) {
    ASSERT_TRUE(reasons.count(knob)) << knob << ": " << port->dump(2);
    EXPECT_TRUE(contains(reasons[knob], "locked down")) << knob << ": " << reasons[knob];
  }
}

}  // namespace
