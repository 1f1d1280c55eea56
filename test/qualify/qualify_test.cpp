// SPDX-License-Identifier: Apache-2.0
// rocectl qualify against roce-sim in every shipped node flavour, on the simulated clock: the
// report must say what the node is (a fact that differs from the node file is a failure, as is a
// check that does not pass), the node description it captures must load in roce-sim and describe
// the same node, nothing private may leave in the report, and --write must put everything back,
// also when stopped half-way.
#include "qualify/qualify.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <regex>
#include <set>

#include "dcb/client.hpp"
#include "ethtool/ethtool.hpp"
#include "link/link.hpp"
#include "port/discovery.hpp"
#include "qualify/read_checks.hpp"
#include "qualify/report_out.hpp"
#include "sim/model/firmware_commands.hpp"
#include "sim/model/node_file.hpp"
#include "sim/model/switch_peer.hpp"
#include "test/support/build_paths.hpp"
#include "test/support/in_process_node.hpp"
#include "test/support/node_files.hpp"

namespace roced::test {
namespace {

namespace fs = std::filesystem;
using qualify::Report;
using qualify::Verdict;
using std::chrono::milliseconds;

std::vector<std::string> node_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(ROCED_SIM_NODES)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The ports qualify takes when none is named: mlx5 uplinks.
std::vector<DiscoveredPort> uplinks(System& system) {
  auto inventory = discover_ports(*system.files, {});
  EXPECT_TRUE(inventory.ok());
  std::vector<DiscoveredPort> out;
  for (const auto& port : inventory.ok() ? inventory->ports : std::vector<DiscoveredPort>{}) {
    if (port.role == PortRole::Uplink) out.push_back(port);
  }
  return out;
}

// What a node file says of its uplinks, as qualify should find it.
std::vector<const roce_sim::PortSpec*> uplink_specs(const std::vector<roce_sim::PortSpec>& specs) {
  std::vector<const roce_sim::PortSpec*> out;
  for (const auto& spec : specs) {
    if (spec.has_dcbnl()) out.push_back(&spec);
  }
  return out;
}

const qualify::PortReport* port_of(const Report& report, const std::string& netdev) {
  for (const auto& port : report.ports) {
    if (port.facts.netdev == netdev) return &port;
  }
  return nullptr;
}

std::string verdicts(const qualify::PortReport& port) {
  std::string out;
  for (const auto& check : port.checks) {
    if (check.verdict != Verdict::Holds) {
      out += "\n  " + std::string(qualify::kVerdictNames.name(check.verdict)) + " " + check.id +
             ": " + check.found;
    }
  }
  return out;
}

// Runs qualify on its own thread while the simulated clock moves 5 ms at a time.
class Qualified : public InProcessNode {
 protected:
  // `step`: how far the clock moves at a time; a node whose firmware commands take time needs
  // steps of one command, or each ETHTOOL_GSTATS would seem to take a whole step.
  Report run(
      const std::vector<DiscoveredPort>& ports, const qualify::Options& options,
      std::chrono::nanoseconds step = milliseconds(5),
      const std::function<void()>& each_step = [] {}) {
    std::atomic<bool> done{false};
    auto result = std::async(std::launch::async, [&] {
      Report report = qualify::qualify(system_, time_, stop_, ports, options);
      done = true;
      return report;
    });
    EXPECT_TRUE(time_.advance_until(
        [&] {
          each_step();
          return done.load();
        },
        step));
    return result.get();
  }
  StopSignal stop_;
};

// The facts a node file sets, compared one by one with the report's.
void expect_facts_match(const roce_sim::PortSpec& spec, const qualify::PortFacts& facts) {
  SCOPED_TRACE(spec.netdev);
  EXPECT_EQ(facts.driver, "mlx5_core");
  EXPECT_EQ(facts.flavour, roce_sim::kernel_driver(spec.flavour) ? "inbox" : "ofed");
  const std::string tree = spec.flavour == roce_sim::DriverFlavour::Debian61    ? "debian-6.1"
                           : spec.flavour == roce_sim::DriverFlavour::Debian612 ? "debian-6.12"
                           : spec.flavour == roce_sim::DriverFlavour::Ofed      ? "mlnx-ofed"
                                                                                : "unknown";
  EXPECT_EQ(facts.driver_tree, tree);
  EXPECT_FALSE(facts.driver_evidence.empty());
  EXPECT_EQ(facts.driver_version, spec.driver_version);
  EXPECT_EQ(facts.firmware, spec.firmware);
  EXPECT_EQ(facts.model, spec.board);
  EXPECT_EQ(facts.rdma_device, spec.rdma_device);
  if (!spec.rdma_device.empty()) {
    EXPECT_EQ(facts.rdma_port, spec.rdma_port);
  }
  EXPECT_EQ(facts.speed_mbps.value_or(0), spec.speed_mbps);
  EXPECT_EQ(facts.max_mtu, spec.max_mtu);
  EXPECT_EQ(facts.channels, spec.channels);
  EXPECT_EQ(facts.dcbx_host, spec.firmware_dcbx_host);
  EXPECT_EQ(facts.trust_dscp, spec.firmware_trust_dscp);
  EXPECT_EQ(facts.stall_prevention, spec.caps.stall_prevention);
  EXPECT_EQ(facts.buffers, spec.caps.buffers);
  EXPECT_EQ(facts.pause_storm_events, spec.caps.stall_prevention);
  EXPECT_EQ(facts.prio_discard_counters, spec.caps.prio_discard_counters);
  const bool locked = spec.lockdown != roce_sim::KernelLockdown::None;
  EXPECT_EQ(facts.lockdown.empty(), !locked);
  if (!spec.bond.empty()) return;  // a LAG slave: its knobs and addresses are the bond's
  if (!locked || spec.flavour == roce_sim::DriverFlavour::Ofed) {
    const std::string knobs = roce_sim::kernel_driver(spec.flavour) ? "inbox" : "ofed";
    EXPECT_EQ(facts.ecn_flavour, spec.caps.ecn ? knobs : "none");
  }
  if (!spec.rdma_device.empty()) {
    EXPECT_EQ(facts.ipv4_addresses, spec.ipv4.size());
    EXPECT_EQ(facts.ipv6_addresses, spec.ipv6.size());
  }
}

class QualifyEveryNode : public Qualified, public ::testing::WithParamInterface<std::string> {
 protected:
  std::string node_file() const override { return GetParam(); }
};

TEST_P(QualifyEveryNode, TheReportSaysWhatTheNodeIsAndEveryCheckPasses) {
  const auto specs = roce_sim::load_node_file(GetParam());
  const Report report = run(uplinks(system_), {});
  const auto wanted = uplink_specs(specs);
  ASSERT_EQ(report.ports.size(), wanted.size());
  for (const auto* spec : wanted) {
    const auto* port = port_of(report, spec->netdev);
    ASSERT_NE(port, nullptr) << spec->netdev << " not in the report";
    expect_facts_match(*spec, port->facts);
    for (const auto& check : port->checks) {
      // A check roced's assumptions and the model disagree on is a finding, never noise here.
      EXPECT_NE(check.verdict, Verdict::Differs)
          << spec->netdev << " " << check.id << ": " << check.found;
    }
    // What a node can leave unanswered: no RDMA device of its own (a LAG slave), DCQCN knobs
    // under lockdown, no stall prevention, no buffers, no firmware command yet.
    static const std::set<std::string> may_be_unknown = {"gid_table",
                                                         "rdma_cm_defaults",
                                                         "hw_counter_widths",
                                                         "dcqcn_knobs",
                                                         "stall_prevention_range",
                                                         "buffer_cells",
                                                         "firmware_command_costs"};
    for (const auto& check : port->checks) {
      if (check.verdict == Verdict::CannotTell) {
        EXPECT_TRUE(may_be_unknown.count(check.id)) << check.id << ": " << check.found;
      }
    }
    // mlx5's own command statistics say what one register access costs.
    if (spec->firmware_command_us > 0) {
      EXPECT_EQ(port->facts.firmware_command_us, spec->firmware_command_us);
    }
  }
}

// Each ETHTOOL_GSTATS waits for its firmware commands on the node's clock, moved one command at a
// time here: the cost measured is at least the PPCNT reads (firmware_commands.hpp), in whole
// commands.
class QualifyCosts : public Qualified {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/sixteen-port.yaml";
  }
};

TEST_F(QualifyCosts, OneGstatsCostsItsFirmwareCommands) {
  const uint32_t command_us = roce_sim::load_node_file(node_file()).front().firmware_command_us;
  ASSERT_GT(command_us, 0u);
  const Report report = run({uplinks(system_).front()}, {},
                            std::chrono::nanoseconds(std::chrono::microseconds(command_us)));
  ASSERT_EQ(report.ports.size(), 1u);
  const auto& checks = report.ports.front().checks;
  const auto gstats = std::find_if(checks.begin(), checks.end(),
                                   [](const auto& c) { return c.id == "gstats_cost"; });
  ASSERT_NE(gstats, checks.end());
  std::smatch median;
  ASSERT_TRUE(std::regex_search(gstats->found, median, std::regex("median ([0-9]+) ")))
      << gstats->found;
  const unsigned long us = std::stoul(median[1].str());
  EXPECT_GE(us, roce_sim::firmware::kStatsAccessRegs * command_us);
  EXPECT_EQ(us % command_us, 0u) << gstats->found;
  EXPECT_EQ(report.ports.front().facts.firmware_command_us, command_us);
}

TEST_P(QualifyEveryNode, TheCapturedNodeLoadsInRoceSimAndDescribesTheSameNode) {
  const auto specs = roce_sim::load_node_file(GetParam());
  const Report report = run(uplinks(system_), {});
  const std::string captured = qualify::node_description(report);
  std::vector<roce_sim::PortSpec> loaded;
  try {
    loaded = roce_sim::parse_node_yaml(captured, "captured.yaml");
  } catch (const std::exception& e) {
    FAIL() << e.what() << "\n" << captured;
  }
  for (const auto* spec : uplink_specs(specs)) {
    const auto again = std::find_if(loaded.begin(), loaded.end(),
                                    [&](const auto& s) { return s.netdev == spec->netdev; });
    ASSERT_NE(again, loaded.end()) << spec->netdev << " not captured:\n" << captured;
    SCOPED_TRACE(spec->netdev);
    EXPECT_EQ(again->bond, spec->bond);
    EXPECT_EQ(again->bond_mode, spec->bond_mode);
    if (spec->bond.empty()) {
      EXPECT_EQ(again->rdma_device, spec->rdma_device);  // a LAG slave's own device is gone
    }
    // nic-kernel shows itself as no tree roced has read: captured as the kernel driver it is.
    EXPECT_EQ(again->flavour, spec->flavour == roce_sim::DriverFlavour::NicKernel
                                  ? roce_sim::DriverFlavour::Debian61
                                  : spec->flavour);
    EXPECT_EQ(again->driver_version, spec->driver_version);
    EXPECT_EQ(again->firmware, spec->firmware);
    EXPECT_EQ(again->board, spec->board);
    EXPECT_EQ(again->speed_mbps, spec->speed_mbps);
    EXPECT_EQ(again->max_mtu, spec->max_mtu);
    EXPECT_EQ(again->channels, spec->channels);
    EXPECT_EQ(again->lockdown, spec->lockdown);
    EXPECT_EQ(again->caps.stall_prevention, spec->caps.stall_prevention);
    EXPECT_EQ(again->caps.buffers, spec->caps.buffers);
    EXPECT_EQ(again->caps.prio_discard_counters, spec->caps.prio_discard_counters);
    EXPECT_EQ(again->firmware_trust_dscp, spec->firmware_trust_dscp);
    EXPECT_EQ(again->firmware_dcbx_host, spec->firmware_dcbx_host);
    EXPECT_EQ(again->ipv4.size(), spec->ipv4.size());
    EXPECT_EQ(again->ipv6.size(), spec->ipv6.size());
    const auto* port = port_of(report, spec->netdev);
    ASSERT_NE(port, nullptr);
    if (port->facts.firmware_command_us) {
      EXPECT_EQ(again->firmware_command_us, spec->firmware_command_us);
    }
  }
}

// The captured node run in roce-sim answers as the node it was captured from: every port's
// ethtool statistics, hw_counters and verdicts are the same.
TEST_P(QualifyEveryNode, TheCapturedNodeAnswersAsTheOriginal) {
  const Report report = run(uplinks(system_), {});
  auto loaded = roce_sim::parse_node_yaml(qualify::node_description(report), "captured.yaml");
  for (auto& spec : loaded) spec.link_training_ms = 0;
  roce_sim::SimulatedTime time;
  const fs::path dir = dir_.string() + "-captured";
  fs::create_directories(dir);
  Report again;
  {
    roce_sim::InProcessNode node(std::move(loaded), dir, &time);
    System system = node.system();
    std::atomic<bool> done{false};
    auto result = std::async(std::launch::async, [&] {
      Report made = qualify::qualify(system, time, stop_, uplinks(system), {});
      done = true;
      return made;
    });
    EXPECT_TRUE(time.advance_until([&] { return done.load(); }, milliseconds(5)));
    again = result.get();
  }
  fs::remove_all(dir);
  ASSERT_EQ(again.ports.size(), report.ports.size());
  for (const auto& port : report.ports) {
    const auto* copy = port_of(again, port.facts.netdev);
    ASSERT_NE(copy, nullptr) << port.facts.netdev;
    SCOPED_TRACE(port.facts.netdev);
    EXPECT_EQ(copy->facts.statistics, port.facts.statistics);
    EXPECT_EQ(copy->facts.hw_counters, port.facts.hw_counters);
    ASSERT_EQ(copy->checks.size(), port.checks.size());
    for (size_t i = 0; i < port.checks.size(); ++i) {
      EXPECT_EQ(copy->checks[i].verdict, port.checks[i].verdict)
          << port.checks[i].id << ": " << port.checks[i].found << " / " << copy->checks[i].found;
    }
  }
}

TEST_P(QualifyEveryNode, NothingPrivateLeavesInTheReportOrTheCapture) {
  const auto specs = roce_sim::load_node_file(GetParam());
  const Report report = run(uplinks(system_), {});
  const std::string out = qualify::report_json(report) + qualify::node_description(report) +
                          qualify::report_text(report);
  const std::string file = read_file(GetParam());
  std::smatch host;
  if (std::regex_search(file, host, std::regex("hostname: *([A-Za-z0-9.-]+)"))) {
    EXPECT_EQ(out.find(host[1].str()), std::string::npos) << "host name " << host[1];
  }
  for (const auto& spec : specs) {
    if (!spec.mac.empty()) {
      EXPECT_EQ(out.find(spec.mac), std::string::npos) << spec.mac;
    }
    if (!spec.pci_address.empty() && spec.pci_address.find(':') != std::string::npos) {
      EXPECT_EQ(out.find(spec.pci_address), std::string::npos) << spec.pci_address;
    }
    for (const auto& cidr : spec.ipv4) {
      const std::string address = cidr.substr(0, cidr.find('/'));
      EXPECT_EQ(out.find(address), std::string::npos) << address;
    }
    for (const auto& cidr : spec.ipv6) {
      const std::string address = cidr.substr(0, cidr.find('/'));
      EXPECT_EQ(out.find(address), std::string::npos) << address;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SimNodes, QualifyEveryNode, ::testing::ValuesIn(node_files()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = fs::path(param.param).stem().string();
                           std::replace(name.begin(), name.end(), '-', '_');
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

// After roced put a port in host mode (HOST|IEEE, 0x09) mlx5 reports that mode back, without
// CEE (en_dcbnl.c mlx5e_dcbnl_setdcbx keeps it as dcbx->cap): the check must not call that a
// difference, as the test module in the VM showed it would.
class QualifyAfterRoced : public Qualified {};

TEST_F(QualifyAfterRoced, APortRocedPutInHostModePassesTheDcbxCheck) {
  ASSERT_TRUE(dcb::DcbClient(system_).set_dcbx("lan2", dcb::kDcbxHost | dcb::kDcbxVerIeee).ok());
  ASSERT_EQ(dcb::DcbClient(system_).get_dcbx("lan2").value_or(0), 0x09);
  auto port = describe_netdev(*system_.files, "lan2");
  ASSERT_TRUE(port.ok());
  const Report report = run({*port}, {});
  ASSERT_EQ(report.ports.size(), 1u);
  for (const auto& check : report.ports.front().checks) {
    EXPECT_NE(check.verdict, Verdict::Differs) << check.id << ": " << check.found;
  }
}

// --listen: each port's switch sends LLDP every 30 s (PFC on 4, frames up to 9216); lan2's NIC
// runs its firmware DCBX agent (which takes the frames in roce-sim's model), the others are in
// host mode and hear them, compared with the port.
class QualifyListening : public Qualified {
 protected:
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) {
      roce_sim::SwitchPeerChange change;
      change.system_name = "leaf-secret-name";
      change.pfc = 0x10;
      change.max_frame_size = 9216;
      change.interval_s = 30;
      spec.switch_peer = change;
      spec.firmware_dcbx_host = spec.netdev != "lan2";
    }
  }
};

TEST_F(QualifyListening, ASwitchsLldpIsHeardComparedAndItsNameLeftOut) {
  qualify::Options options;
  options.listen = std::chrono::seconds(40);
  const Report report = run(uplinks(system_), options, milliseconds(100));
  ASSERT_EQ(report.ports.size(), 4u);
  for (const auto& port : report.ports) {
    const auto heard = std::find_if(port.checks.begin(), port.checks.end(),
                                    [](const auto& c) { return c.id == "switch_lldp_heard"; });
    ASSERT_NE(heard, port.checks.end()) << port.facts.netdev;
    SCOPED_TRACE(port.facts.netdev + ": " + heard->found);
    if (port.facts.netdev == "lan2") {
      EXPECT_EQ(heard->verdict, Verdict::CannotTell);
      EXPECT_NE(heard->found.find("firmware's DCBX agent"), std::string::npos);
    } else {
      EXPECT_EQ(heard->verdict, Verdict::Holds);
      EXPECT_NE(heard->found.find("PFC on 4"), std::string::npos);
      EXPECT_NE(heard->found.find("max frame 9216"), std::string::npos);
      EXPECT_NE(
          heard->found.find("switch_pfc_priorities: PFC priorities differ: host none, switch 4"),
          std::string::npos);
    }
  }
  const std::string out = qualify::report_json(report) + qualify::report_text(report);
  EXPECT_EQ(out.find("leaf-secret-name"), std::string::npos);
}

// Whatever sysfs says of the PCI device, facts_of reads a model only from a hex ID it knows.
TEST(QualifyFacts, AnOddPciDeviceFileGivesNoModelAndNoException) {
  for (const char* device : {"0x", "0xzz", "0x1021junk", "", "4129", "0xffffffffffffffffff"}) {
    qualify::Observation seen;
    seen.pci_device = device;
    qualify::PortFacts facts;
    ASSERT_NO_THROW(facts = qualify::facts_of(seen)) << device;
    EXPECT_EQ(facts.model, "") << device;
  }
  qualify::Observation cx7;
  cx7.pci_device = "0x1021";
  EXPECT_EQ(qualify::facts_of(cx7).model, "ConnectX-7");
}

// A report made by hand: two functions of one NIC, one of another, and a device that is no PCI
// function (a test module's platform device), named in the evidence too.
TEST(QualifyReport, EveryDeviceGetsAStandInAndTheRealNamesLeaveNowhere) {
  Report report;
  for (const auto& [netdev, pci] :
       std::vector<std::pair<std::string, std::string>>{{"ens1f0np0", "0000:81:00.0"},
                                                        {"ens1f1np1", "0000:81:00.1"},
                                                        {"ens2np0", "0000:c1:00.0"},
                                                        {"rtd0", "roce_testdev.0"}}) {
    qualify::PortReport port;
    port.facts.netdev = netdev;
    port.facts.pci = pci;
    port.facts.driver = "mlx5_core";
    port.facts.rdma_device = "mlx5_" + netdev;
    qualify::Check knobs;
    knobs.id = "dcqcn_knobs";
    knobs.verdict = Verdict::Holds;
    knobs.found = "inbox knobs at /sys/kernel/debug/mlx5/" + pci + "/cc_params";
    port.checks.push_back(knobs);
    report.ports.push_back(port);
  }
  const auto stand_ins = qualify::pci_stand_ins(report);
  EXPECT_EQ(stand_ins.at("0000:81:00.0"), "0000:01:00.0");
  EXPECT_EQ(stand_ins.at("0000:81:00.1"), "0000:01:00.1");
  EXPECT_EQ(stand_ins.at("0000:c1:00.0"), "0000:02:00.0");
  EXPECT_EQ(stand_ins.at("roce_testdev.0"), "0000:03:00.0");
  std::string out;
  ASSERT_NO_THROW(out = qualify::report_json(report) + qualify::report_text(report) +
                        qualify::node_description(report));
  for (const char* real : {"0000:81:00", "0000:c1:00", "roce_testdev"}) {
    EXPECT_EQ(out.find(real), std::string::npos) << real;
  }
  EXPECT_NE(out.find("/sys/kernel/debug/mlx5/0000:02:00.0/cc_params"), std::string::npos);
}

// ---- --write ----

std::vector<dcb::AppEntry> sorted(std::vector<dcb::AppEntry> apps) {
  std::sort(apps.begin(), apps.end(), [](const auto& a, const auto& b) {
    return std::tie(a.selector, a.protocol, a.priority) <
           std::tie(b.selector, b.protocol, b.priority);
  });
  return apps;
}

struct PortState {
  uint8_t dcbx = 0;
  dcb::IeeeState dcb;
  uint32_t mtu = 0;
  // 802.3x pause: on a fresh port, and off after any PFC mask change until put back.
  std::optional<PauseParams> pause;
  bool operator==(const PortState& other) const {
    return dcbx == other.dcbx && dcb.pfc->enabled_mask == other.dcb.pfc->enabled_mask &&
           dcb.pfc->delay == other.dcb.pfc->delay && dcb.ets->tc_tsa == other.dcb.ets->tc_tsa &&
           dcb.ets->tc_tx_bw == other.dcb.ets->tc_tx_bw &&
           dcb.ets->prio_tc == other.dcb.ets->prio_tc &&
           sorted(dcb.apps) == sorted(other.dcb.apps) && mtu == other.mtu && pause == other.pause;
  }
};

class QualifyWrite : public Qualified, public ::testing::WithParamInterface<std::string> {
 protected:
  std::string node_file() const override {
    if (GetParam().empty() || GetParam() == kLockdown) return {};
    return std::string(ROCED_SIM_NODES) + "/" + GetParam();
  }
  // Links that take time to train, on the test's clock (real ones take seconds: the flap is timed
  // the same way).
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) {
      spec.link_training_ms = kTrainingMs;
      if (GetParam() == kLockdown) spec.lockdown = roce_sim::KernelLockdown::Integrity;
    }
  }
  PortState state_of(const std::string& netdev) {
    PortState state;
    state.dcbx = dcb::DcbClient(system_).get_dcbx(netdev).value_or(0xff);
    auto dcb = dcb::DcbClient(system_).get(netdev);
    EXPECT_TRUE(dcb.ok());
    if (dcb.ok()) state.dcb = *dcb;
    state.mtu = LinkClient(system_).get(netdev).value_or(LinkInfo{}).mtu;
    if (auto pause = EthtoolClient(system_).pause(netdev)) state.pause = *pause;
    return state;
  }
  DiscoveredPort first_uplink() {
    auto ports = uplinks(system_);
    EXPECT_FALSE(ports.empty());
    return ports.empty() ? DiscoveredPort{} : ports.front();
  }
  static constexpr uint32_t kTrainingMs = 500;
  static constexpr const char* kLockdown = "lockdown";  // the default node under lockdown
};

TEST_P(QualifyWrite, EverySettingIsSetReadBackAndPutBack) {
  const DiscoveredPort port = first_uplink();
  const PortState before = state_of(port.netdev);
  qualify::Options options;
  options.write = true;
  const Report report = run({port}, options);
  ASSERT_EQ(report.ports.size(), 1u);
  const auto& out = report.ports.front();
  EXPECT_EQ(verdicts(out).find("differs"), std::string::npos) << verdicts(out);
  for (const char* id :
       {"pfc_mask_flaps_link", "speed_unknown_while_training", "pfc_resend_keeps_link",
        "pause_counters_with_pfc_on_and_off", "cable_length_range", "ets_reads_back",
        "ets_sum_not_100_refused", "dscp_trust_from_app_table", "app_selectors_dscp_only",
        "mtu_reads_back", "foreign_dcb_change_notified", "restored"}) {
    const bool passed = std::any_of(out.checks.begin(), out.checks.end(), [&](const auto& c) {
      return c.id == id && c.verdict == Verdict::Holds;
    });
    EXPECT_TRUE(passed) << id << verdicts(out);
  }
  EXPECT_FALSE(out.touched.empty());
  for (const auto& touched : out.touched) EXPECT_TRUE(touched.restored) << touched.what;
  // The flap measured on the node's clock is the training the node does, to the poll.
  ASSERT_TRUE(out.facts.link_training_ms.has_value());
  EXPECT_GE(*out.facts.link_training_ms, kTrainingMs);
  EXPECT_LE(*out.facts.link_training_ms, kTrainingMs + 10);
  EXPECT_EQ(state_of(port.netdev), before);
  ASSERT_TRUE(before.pause.has_value());
  EXPECT_TRUE(before.pause->rx && before.pause->tx) << "a fresh port runs 802.3x pause";
  EXPECT_FALSE(report.interrupted);
  // Told by what 0 m reads back: only nic-kernel on firmware with PCAM cable_length keeps it.
  ASSERT_TRUE(out.facts.cable_length_in_firmware.has_value());
  EXPECT_EQ(*out.facts.cable_length_in_firmware, GetParam() == "dual-port-nic-kernel.yaml");
  // Every check a run makes is in the operator's page.
  const std::string page = read_file(std::string(ROCED_SOURCE_DIR) + "/docs/qualify.md");
  for (const auto& check : out.checks) {
    EXPECT_NE(page.find("| `" + check.id + "` |"), std::string::npos)
        << check.id << " is not in docs/qualify.md";
  }
}

TEST_P(QualifyWrite, AStopHalfWayPutsBackWhatWasChangedAndStopsThere) {
  const DiscoveredPort port = first_uplink();
  const PortState before = state_of(port.netdev);
  qualify::Options options;
  options.write = true;
  // Stopped as the first PFC change is made, while the link trains: as SIGINT would.
  options.write_options.progress = [this](const std::string& line) {
    if (line.find("PFC -> ") != std::string::npos) stop_.raise();
  };
  const Report report = run({port}, options);
  ASSERT_EQ(report.ports.size(), 1u);
  const auto& out = report.ports.front();
  EXPECT_TRUE(report.interrupted);
  EXPECT_FALSE(out.touched.empty());
  for (const auto& touched : out.touched) EXPECT_TRUE(touched.restored) << touched.what;
  for (const auto& check : out.checks) {
    EXPECT_NE(check.verdict, Verdict::Differs) << check.id << ": " << check.found;
    EXPECT_NE(check.id, "ets_reads_back") << "a step after the stop ran";
  }
  EXPECT_EQ(state_of(port.netdev), before);
}

// The default node (Debian's 6.1, firmware DCBX, PCP trust), MLNX_OFED with DSCP trust and host
// DCBX, nic-kernel (the cable length in the firmware), and the default node under lockdown (no
// DCQCN knob to write).
INSTANTIATE_TEST_SUITE_P(Nodes, QualifyWrite,
                         ::testing::Values("", "dual-port-ofed.yaml", "dual-port-nic-kernel.yaml",
                                           "lockdown"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param.empty()
                                                  ? std::string("default")
                                                  : fs::path(param.param).stem().string();
                           std::replace(name.begin(), name.end(), '-', '_');
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

}  // namespace
}  // namespace roced::test
