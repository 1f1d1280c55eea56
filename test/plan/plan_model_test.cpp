// SPDX-License-Identifier: Apache-2.0
// make_plan against roce-sim's node in this process: the default node (four ConnectX-7 ports
// lan2..lan5, inbox driver, firmware defaults) and the OFED node.
#include <algorithm>
#include <string>
#include <string_view>

#include "daemon/plan/plan.hpp"
#include "in_process_node.hpp"
#include "plan_lines.hpp"
#include "test/support/build_paths.hpp"

namespace roced::plan {
namespace {

using test::changes_of;
using test::Lines;
using test::unsupported_of;

// A string_view, not a const std::string&: GCC 13+ -Wdangling-reference takes a reference
// returned from a call given a temporary std::string for one into that temporary.
const PortPlan& port_plan(const Plan& plan, std::string_view netdev) {
  for (const auto& port : plan.ports) {
    if (port.port.netdev == netdev) return port;
  }
  throw std::runtime_error("no plan for " + std::string(netdev));
}

config::Config default_config() {
  config::Config config;
  config.ports.netdevs = {"*"};
  config.path = "test.yaml";
  config.profile = config::default_profile();
  return config;
}

// The default profile against the mlx5 firmware defaults the model starts from
// (sim/model/port.cpp reset_to_firmware_defaults).
const Lines kDefaultNodeChanges = {
    "dcbx: firmware (cee ieee) -> host",
    "trust: pcp -> dscp",
    "dscp_map: none -> d>>3",
    "ets: prio_tc 1,0,2,3,4,5,6,7 tc all vendor -> "
    "prio_tc 0,1,2,3,4,5,6,7 tc 10,10,10,50,10,5,strict,5",
    "mtu: 1500 -> 9000 !",
    "global_pause: on -> off",
    "pfc.priorities: none -> 3 !",
    "stall_prevention: 8000 ms -> auto",
    "ecn.cnp_priority: 6 (np_cnp_prio_mode 1: not in effect) -> 6",
    "roce.tos: 0 (kernel default) -> 106",
};

class DefaultNode : public test::InProcessNode {};

TEST_F(DefaultNode, EveryPortNeedsTheLosslessProfile) {
  System& system = system_;
  const Plan plan = make_plan(system, default_config());
  EXPECT_EQ(plan.source, system.description);
  EXPECT_EQ(plan.config_path, "test.yaml");
  EXPECT_EQ(plan.error, "");
  EXPECT_EQ(plan.not_found, Lines{});
  ASSERT_EQ(plan.ports.size(), 4u) << format_plan_text(plan);
  const Lines names = {"lan2", "lan3", "lan4", "lan5"};
  for (size_t i = 0; i < names.size(); ++i) {
    const PortPlan& port = plan.ports[i];
    SCOPED_TRACE(names[i]);
    EXPECT_EQ(port.port.netdev, names[i]);
    EXPECT_EQ(port.port.rdma_device, "mlx5_" + std::to_string(i));
    EXPECT_EQ(port.error, "");
    EXPECT_EQ(changes_of(port), kDefaultNodeChanges);
    EXPECT_EQ(unsupported_of(port), Lines{});
    EXPECT_EQ(finding::texts(port.findings), Lines{});
    EXPECT_EQ(port.roce_v2_gid_index, 3);
    EXPECT_TRUE(port.disruptive());
    // The observed state the applier would roll back to.
    EXPECT_EQ(port.observed.link.value->mtu, 1500u);
  }
  EXPECT_TRUE(plan.has_changes());
  EXPECT_FALSE(plan.has_errors());
}

// A kernel locked down by UEFI Secure Boot (the node's `lockdown: integrity`) refuses the inbox
// cc_params files even to root, even to read (fs/debugfs/file.c debugfs_locked_down): the DCQCN
// knobs are unsupported there, and every other setting of the port is planned as before.
class LockedDownNode : public test::InProcessNode {
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.lockdown = roce_sim::KernelLockdown::Integrity;
  }
};

TEST_F(LockedDownNode, DcqcnKnobsAreUnsupportedAndNothingElseIsHeldBack) {
  const Plan plan = make_plan(system_, default_config());
  ASSERT_EQ(plan.ports.size(), 4u) << format_plan_text(plan);
  Lines expected = kDefaultNodeChanges;
  std::erase_if(expected, [](const std::string& line) { return line.rfind("ecn.", 0) == 0; });
  for (const auto& port : plan.ports) {
    SCOPED_TRACE(port.port.netdev);
    EXPECT_EQ(port.error, "");
    EXPECT_EQ(changes_of(port), expected);
    // The two inbox knobs the default profile names; everything else of ECN is OFED's.
    Lines settings_lacking;
    for (const auto& item : port.unsupported) {
      settings_lacking.push_back(setting_name(item.setting, item.key));
      EXPECT_EQ(item.kind, settings::Lacking::KernelLockdown);
      EXPECT_NE(item.reason.find("locked down (integrity"), std::string::npos) << item.reason;
    }
    EXPECT_EQ(settings_lacking, (Lines{"ecn.cnp_dscp", "ecn.cnp_priority"}));
  }
}

// The config's check is at 40 Gbit/s, what no link goes below; mlx5 computes Xoff at the link's
// speed when the buffers are set (en/port_buffer.c calculate_xoff) and refuses a lossless buffer
// that cannot hold it: at 400 Gbit/s that is a plan line, not an apply rolled back.
TEST_F(DefaultNode, ALosslessBufferTooSmallForTheLinkSpeedIsRefusedInThePlan) {
  config::Config config = default_config();
  config::BufferProfile buffers;
  buffers.prio2buffer = {0, 0, 0, 1, 0, 0, 0, 0};
  buffers.buffer_size = {262144, 100096, 0, 0, 0, 0, 0, 0};  // enough at 40G, not at 400G
  config.profile.buffers = buffers;
  const Plan plan = make_plan(system_, config);
  const PortPlan& lan2 = port_plan(plan, "lan2");
  EXPECT_EQ(lan2.error, "");
  Lines lacking;
  for (const auto& item : lan2.unsupported) {
    lacking.push_back(setting_name(item.setting, item.key));
    if (item.setting != settings::Setting::Buffers) continue;
    EXPECT_EQ(item.kind, settings::Lacking::OutOfRange);
    EXPECT_NE(item.reason.find("buffer 1 holds a PFC priority but is 100096 bytes; at 400 Gbit/s"),
              std::string::npos)
        << item.reason;
  }
  EXPECT_EQ(lacking, Lines{"buffers"}) << format_plan_text(plan);
  for (const auto& change : lan2.changes) EXPECT_NE(change.setting, settings::Setting::Buffers);
}

TEST_F(DefaultNode, SelectionOverridesAndMissingNames) {
  System& system = system_;
  config::Config config = default_config();
  config.ports.netdevs = {"lan[23]", "lan5", "lan9"};
  config.ports.exclude = {"lan3"};
  config::PortOverride lan5{"lan5", config::default_profile()};
  lan5.profile.mtu = 1500;
  lan5.profile.roce.gid_index = 5;
  config.overrides.push_back(lan5);
  const Plan plan = make_plan(system, config);
  ASSERT_EQ(plan.ports.size(), 2u) << format_plan_text(plan);
  EXPECT_EQ(plan.ports[0].port.netdev, "lan2");
  EXPECT_EQ(plan.ports[1].port.netdev, "lan5");
  EXPECT_EQ(plan.not_found, Lines{"lan9"});
  Lines lan5_changes = kDefaultNodeChanges;
  lan5_changes.erase(lan5_changes.begin() + 4);  // the MTU already is 1500
  EXPECT_EQ(changes_of(plan.ports[1]), lan5_changes);
  EXPECT_EQ(finding::texts(plan.ports[1].findings),
            (Lines{"MTU 1500 < 4200: the RoCE path MTU drops below 4096",
                   "RoCE v2 GID index is 3, the config says jobs use 5"}));
}

TEST_F(DefaultNode, ReplanReadsOnePort) {
  System& system = system_;
  auto port = describe_netdev(*system.files, "lan4");
  ASSERT_TRUE(port.ok());
  const PortPlan plan = replan_port(system, *port, config::default_profile());
  EXPECT_EQ(changes_of(plan), kDefaultNodeChanges);
  // Planning skips what it does not compare, but reads which driver tree the port runs: some
  // settings behave by it.
  EXPECT_EQ(plan.observed.hw_counters.error, "not read");
  ASSERT_TRUE(plan.observed.driver.ok()) << plan.observed.driver.error;
  EXPECT_EQ(plan.observed.driver.value->flavour, driver::Flavour::Debian61);
  EXPECT_EQ(plan.observed.driver.value->version, "6.1.115");
}

class OfedNode : public test::InProcessNode {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/dual-port-ofed.yaml";
  }
};

// A TC cap above 255 Gbit/s: MLNX_OFED counts it in a u8 without a check (en_dcbnl.c
// mlx5e_dcbnl_ieee_setmaxrate), so 400 Gbit/s would be programmed as 144. Refused in the plan,
// saying why.
TEST_F(OfedNode, MaxrateAbove255GbitIsRefusedWhereItWouldWrap) {
  config::Config config = default_config();
  config.profile.maxrate_mbps = std::array<uint32_t, 8>{0, 0, 0, 0, 0, 0, 0, 400000};
  const Plan plan = make_plan(system_, config);
  ASSERT_FALSE(plan.ports.empty());
  const PortPlan& port = plan.ports[0];
  ASSERT_EQ(port.unsupported.size(), 1u) << format_plan_text(plan);
  EXPECT_EQ(port.unsupported[0].setting, settings::Setting::Maxrate);
  EXPECT_EQ(port.unsupported[0].kind, settings::Lacking::OutOfRange);
  EXPECT_NE(port.unsupported[0].reason.find("wraps"), std::string::npos)
      << port.unsupported[0].reason;
}

TEST_F(DefaultNode, MaxrateAbove255GbitIsRefusedOnMainline) {
  config::Config config = default_config();
  config.profile.maxrate_mbps = std::array<uint32_t, 8>{0, 0, 0, 0, 0, 0, 0, 400000};
  const Plan plan = make_plan(system_, config);
  const PortPlan& lan2 = port_plan(plan, "lan2");
  ASSERT_EQ(lan2.unsupported.size(), 1u) << format_plan_text(plan);
  EXPECT_EQ(lan2.unsupported[0].setting, settings::Setting::Maxrate);
  EXPECT_EQ(lan2.unsupported[0].kind, settings::Lacking::OutOfRange);
}

TEST_F(OfedNode, PerPriorityEcnAndMissingStallPrevention) {
  System& system = system_;
  config::Config config = default_config();
  config.profile.ecn.enabled_priorities = 1u << 3;
  config.profile.ecn.dcqcn = {{"rp_ai_rate", 10}, {"np_min_time_between_cnps", 4}};
  const Plan plan = make_plan(system, config);
  ASSERT_EQ(plan.ports.size(), 3u) << format_plan_text(plan);
  for (const auto* name : {"ens1f0np0", "ens1f1np1"}) {  // the OFED driver's NIC
    SCOPED_TRACE(name);
    const PortPlan& port = port_plan(plan, name);
    const Lines changes = changes_of(port);
    EXPECT_NE(std::find(changes.begin(), changes.end(), "ecn.priorities: 0,1,2,3,4,5,6,7 -> 3"),
              changes.end())
        << format_plan_text(plan);
    EXPECT_NE(std::find(changes.begin(), changes.end(), "ecn.dcqcn.rp_ai_rate: 5 -> 10"),
              changes.end())
        << format_plan_text(plan);
  }
  // ens1f0np0 starts with DSCP trust and host DCBX (firmware_defaults in the node file).
  const Lines ens1f0 = changes_of(port_plan(plan, "ens1f0np0"));
  EXPECT_EQ(std::count_if(ens1f0.begin(), ens1f0.end(),
                          [](const std::string& c) {
                            return c.rfind("dcbx:", 0) == 0 || c.rfind("trust:", 0) == 0;
                          }),
            0)
      << format_plan_text(plan);
  // The ConnectX-7 has no stall prevention in its firmware, and runs the inbox driver.
  EXPECT_EQ(unsupported_of(port_plan(plan, "ens2np0")),
            (Lines{"stall_prevention: PFC stall prevention is not supported by this device "
                   "(EOPNOTSUPP)",
                   "ecn.priorities: the inbox driver has no per-priority ECN enable"}));
  EXPECT_EQ(unsupported_of(port_plan(plan, "ens1f0np0")), Lines{});
}

}  // namespace
}  // namespace roced::plan
