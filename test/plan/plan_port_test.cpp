// SPDX-License-Identifier: Apache-2.0
// plan_port per setting, on hand-made observed states: in sync, each change with its now/wanted
// text, what disrupts traffic, what the port cannot take, and the GID warnings.
#include <gtest/gtest.h>

#include "daemon/plan/plan.hpp"
#include "observed.hpp"
#include "plan_lines.hpp"

namespace roced::plan {
namespace {

using test::in_sync_status;
using test::lan2;

using test::changes_of;
using test::Lines;
using test::unsupported_of;

class PlanPort : public ::testing::Test {
 protected:
  PortPlan plan() const { return plan_port(lan2(), want, have); }
  config::Profile want = config::default_profile();
  PortStatus have = in_sync_status();
};

TEST_F(PlanPort, InSyncPortHasNoChanges) {
  const PortPlan p = plan();
  EXPECT_EQ(changes_of(p), Lines{});
  EXPECT_EQ(unsupported_of(p), Lines{});
  EXPECT_EQ(finding::texts(p.findings), Lines{});
  EXPECT_EQ(p.error, "");
  EXPECT_TRUE(p.in_sync());
  EXPECT_FALSE(p.disruptive());
  EXPECT_EQ(p.roce_v2_gid_index, 3);
  EXPECT_EQ(p.port.netdev, "lan2");
  EXPECT_EQ(p.observed.link.value->mtu, 9000u);  // the state the applier rolls back to
}

TEST_F(PlanPort, FirmwareDcbxWantedHost) {
  have.dcbx = Field<uint8_t>::of(dcb::kDcbxVerCee | dcb::kDcbxVerIeee);
  EXPECT_EQ(changes_of(plan()), Lines{"dcbx: firmware (cee ieee) -> host"});
  have.dcbx = Field<uint8_t>::of(0);
  EXPECT_EQ(changes_of(plan()), Lines{"dcbx: firmware -> host"});
}

TEST_F(PlanPort, HostDcbxWantedFirmware) {
  want.dcbx = config::DcbxMode::Firmware;
  EXPECT_EQ(changes_of(plan()), Lines{"dcbx: host (ieee) -> firmware"});
  have.dcbx = Field<uint8_t>::of(dcb::kDcbxVerIeee);  // no HOST bit: the firmware agent
  EXPECT_EQ(changes_of(plan()), Lines{});
}

TEST_F(PlanPort, PcpTrustWantedDscpChangesTrustAndTheMap) {
  have.trust = Field<dcb::Trust>::of(dcb::Trust::Pcp);
  have.dscp_apps = Field<std::vector<dcb::AppEntry>>::of({});  // no entries: every DSCP -> 0
  EXPECT_EQ(changes_of(plan()), (Lines{"trust: pcp -> dscp", "dscp_map: none -> d>>3"}));
}

TEST_F(PlanPort, DscpMapShowsOnlyTheDifferingEntries) {
  auto apps = *have.dscp_apps.value;
  apps[26].priority = 0;
  apps[48].priority = 0;
  have.dscp_apps = Field<std::vector<dcb::AppEntry>>::of(apps);
  EXPECT_EQ(changes_of(plan()), Lines{"dscp_map: 26->0 48->0 -> 26->3 48->6"});
}

TEST_F(PlanPort, ManyDifferingDscpEntriesShowBothMapsAgainstTheDefault) {
  auto apps = *have.dscp_apps.value;
  for (int dscp = 0; dscp < 10; ++dscp) apps[dscp].priority = 5;
  have.dscp_apps = Field<std::vector<dcb::AppEntry>>::of(apps);
  EXPECT_EQ(changes_of(plan()),
            Lines{"dscp_map: d>>3 except 0->5 1->5 2->5 3->5 4->5 5->5 6->5 7->5 +2 more -> d>>3"});
}

TEST_F(PlanPort, UnmappedDscpIsTheFirmwaresAndWritten) {
  auto apps = *have.dscp_apps.value;
  // DSCP 26 has no entry: mlx5 maps it by the firmware's table (d>>3, or 0 if deleted since
  // load), which dcbnl does not show.
  apps.erase(apps.begin() + 26);
  have.dscp_apps = Field<std::vector<dcb::AppEntry>>::of(apps);
  EXPECT_EQ(changes_of(plan()), Lines{"dscp_map: 26->fw -> 26->3"});
}

TEST_F(PlanPort, PcpTrustWantedComparesNoMap) {
  want.trust = dcb::Trust::Pcp;
  // DSCP entries present = DSCP trust; wanting PCP means deleting them, not fixing the map.
  auto apps = *have.dscp_apps.value;
  apps[26].priority = 0;
  have.dscp_apps = Field<std::vector<dcb::AppEntry>>::of(apps);
  EXPECT_EQ(changes_of(plan()), Lines{"trust: dscp -> pcp"});
  have.trust = Field<dcb::Trust>::of(dcb::Trust::Pcp);
  have.dscp_apps = Field<std::vector<dcb::AppEntry>>::of({});
  EXPECT_EQ(changes_of(plan()), Lines{});
}

TEST_F(PlanPort, DriverDefaultEtsShowsPrioTcAndTcs) {
  dcb::Ets ets = *have.ets.value;
  ets.prio_tc = {1, 0, 2, 3, 4, 5, 6, 7};  // mlx5 at load: all TCs vendor
  ets.tc_tsa.fill(dcb::Tsa::Vendor);
  ets.tc_tx_bw.fill(0);
  have.ets = Field<dcb::Ets>::of(ets);
  EXPECT_EQ(changes_of(plan()), Lines{"ets: prio_tc 1,0,2,3,4,5,6,7 tc all vendor -> "
                                      "prio_tc 0,1,2,3,4,5,6,7 tc 10,10,10,50,10,5,strict,5"});
}

TEST_F(PlanPort, EtsBandwidthCountsOnlyForEtsTcs) {
  dcb::Ets ets = *have.ets.value;
  ets.tc_tx_bw[6] = 100;  // strict TC6: its bandwidth means nothing
  have.ets = Field<dcb::Ets>::of(ets);
  EXPECT_EQ(changes_of(plan()), Lines{});
  ets.tc_tx_bw[3] = 40;
  ets.tc_tx_bw[0] = 20;
  have.ets = Field<dcb::Ets>::of(ets);
  EXPECT_EQ(changes_of(plan()),
            Lines{"ets: tc 20,10,10,40,10,5,strict,5 -> tc 10,10,10,50,10,5,strict,5"});
}

TEST_F(PlanPort, PfcMaskChangeDisruptsTraffic) {
  dcb::Pfc pfc = *have.pfc.value;
  pfc.enabled_mask = 0;
  have.pfc = Field<dcb::Pfc>::of(pfc);
  const PortPlan p = plan();
  EXPECT_EQ(changes_of(p), Lines{"pfc.priorities: none -> 3 !"});
  ASSERT_EQ(p.changes.size(), 1u);
  EXPECT_EQ(p.changes[0].disruption,
            "mlx5 flaps the link when the PFC mask changes (mlx5_toggle_port_link)");
  EXPECT_TRUE(p.disruptive());

  pfc.enabled_mask = (1u << 3) | (1u << 4);
  have.pfc = Field<dcb::Pfc>::of(pfc);
  EXPECT_EQ(changes_of(plan()), Lines{"pfc.priorities: 3,4 -> 3 !"});
}

TEST_F(PlanPort, CableLengthAloneDoesNotDisrupt) {
  dcb::Pfc pfc = *have.pfc.value;
  pfc.delay = 30;
  have.pfc = Field<dcb::Pfc>::of(pfc);
  const PortPlan p = plan();
  // Mainline mlx5 hands the cable length to the NIC only for buffers the host set.
  EXPECT_EQ(changes_of(p),
            Lines{"pfc.cable_length: 30 m -> 7 m (no effect unless roced manages the buffers)"});
  EXPECT_FALSE(p.disruptive());
  want.buffers = config::BufferProfile{{0, 0, 0, 1, 0, 0, 0, 0}, {262144, 262144}};
  const PortPlan with_buffers = plan();
  EXPECT_NE(std::find(changes_of(with_buffers).begin(), changes_of(with_buffers).end(),
                      "pfc.cable_length: 30 m -> 7 m"),
            changes_of(with_buffers).end());
}

TEST_F(PlanPort, BuffersOnlyWhenTheProfileHasThem) {
  EXPECT_EQ(changes_of(plan()), Lines{});  // the observed layout is left to the driver
  config::BufferProfile buffers;
  buffers.prio2buffer = {0, 0, 0, 1, 0, 0, 0, 0};
  buffers.buffer_size = {131072, 131072, 0, 0, 0, 0, 0, 0};
  want.buffers = buffers;
  EXPECT_EQ(changes_of(plan()), Lines{"buffers: prio2buffer 0,0,0,0,0,0,0,0 size 0:262144 -> "
                                      "prio2buffer 0,0,0,1,0,0,0,0 size 0:131072 1:131072"});
  have.buffer = test::unsupported<dcb::Buffer>("the buffer configuration");
  EXPECT_EQ(unsupported_of(plan()),
            Lines{"buffers: the buffer configuration is not supported by this device "
                  "(EOPNOTSUPP)"});
}

TEST_F(PlanPort, MtuChangeInterruptsTrafficBriefly) {
  LinkInfo link = *have.link.value;
  link.mtu = 1500;
  have.link = Field<LinkInfo>::of(link);
  const PortPlan p = plan();
  EXPECT_EQ(changes_of(p), Lines{"mtu: 1500 -> 9000 !"});
  ASSERT_EQ(p.changes.size(), 1u);
  EXPECT_EQ(p.changes[0].disruption,
            "mlx5 rebuilds its channels on an MTU change (mlx5e_change_mtu -> "
            "mlx5e_safe_switch_params): traffic stops briefly, the link stays up");
}

TEST_F(PlanPort, MtuAboveTheLinkMaximumIsUnsupported) {
  LinkInfo link = *have.link.value;
  link.mtu = 1500;
  link.max_mtu = 4096;
  have.link = Field<LinkInfo>::of(link);
  const PortPlan p = plan();
  EXPECT_EQ(changes_of(p), Lines{});
  EXPECT_EQ(unsupported_of(p), Lines{"mtu: MTU 9000 is above this link's maximum 4096"});
}

TEST_F(PlanPort, MtuBelow4200Warns) {
  want.mtu = 1500;
  LinkInfo link = *have.link.value;
  link.mtu = 1500;
  have.link = Field<LinkInfo>::of(link);
  const PortPlan p = plan();
  EXPECT_EQ(changes_of(p), Lines{});
  EXPECT_EQ(finding::texts(p.findings),
            Lines{"MTU 1500 < 4200: the RoCE path MTU drops below 4096"});
}

TEST_F(PlanPort, StallAutoIsSatisfiedByItsReadBack) {
  // mlx5 stores auto as 100 ms and reads 100 back: 100 and 0xffff are one state.
  for (uint16_t raw : {uint16_t{100}, uint16_t{0xffff}}) {
    have.stall_prevention = Field<StallPrevention>::of(StallPrevention{raw});
    EXPECT_EQ(changes_of(plan()), Lines{}) << raw;
  }
  want.stall_prevention = {config::StallPrevention::Mode::Manual, 100};
  EXPECT_EQ(changes_of(plan()), Lines{});
}

TEST_F(PlanPort, StallChanges) {
  have.stall_prevention = Field<StallPrevention>::of(StallPrevention{0});
  EXPECT_EQ(changes_of(plan()), Lines{"stall_prevention: off -> auto"});
  have.stall_prevention = Field<StallPrevention>::of(StallPrevention{8000});
  EXPECT_EQ(changes_of(plan()), Lines{"stall_prevention: 8000 ms -> auto"});
  want.stall_prevention = {config::StallPrevention::Mode::Manual, 500};
  have.stall_prevention = Field<StallPrevention>::of(StallPrevention{100});
  EXPECT_EQ(changes_of(plan()), Lines{"stall_prevention: 100 ms -> 500 ms"});
  want.stall_prevention = {config::StallPrevention::Mode::Off, 0};
  EXPECT_EQ(changes_of(plan()), Lines{"stall_prevention: 100 ms -> off"});
}

TEST_F(PlanPort, StallPreventionWithoutFirmwareSupportIsUnsupported) {
  have.stall_prevention = test::unsupported<StallPrevention>("PFC stall prevention");
  const PortPlan p = plan();
  EXPECT_EQ(unsupported_of(p), Lines{"stall_prevention: PFC stall prevention is not supported by "
                                     "this device (EOPNOTSUPP)"});
  EXPECT_TRUE(p.in_sync());  // unsupported is reported, never pending
}

TEST_F(PlanPort, AVfWithoutEcnKnobsIsToldTheyAreItsPfs) {
  test::without_rdma(have);
  have.port.netdev = "lan2v3";
  have.port.role = PortRole::Vf;
  have.port.parent = "lan2";
  const PortPlan p = plan_port(have.port, want, have);
  const auto lines = unsupported_of(p);
  const std::string vf_line =
      "no ECN/DCQCN knobs on this VF (neither debugfs mlx5/<pci>/cc_params nor "
      "/sys/class/net/lan2v3/ecn): they are its PF's, lan2";
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
    return line.find(vf_line) != std::string::npos;
  })) << ::testing::PrintToString(lines);
}

TEST_F(PlanPort, DeviceWithoutDcbOrRdmaPlansOnlyTheMtu) {
  test::without_dcb(have);
  test::without_rdma(have);
  have.stall_prevention = test::unsupported<StallPrevention>("PFC stall prevention");
  LinkInfo link = *have.link.value;
  link.mtu = 1500;
  link.max_mtu = 65535;
  have.link = Field<LinkInfo>::of(link);
  const PortPlan p = plan_port(have.port, want, have);
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(changes_of(p), Lines{"mtu: 1500 -> 9000 !"});
  const std::string no_dcb = "DCB is not supported by this device (EOPNOTSUPP)";
  const std::string no_ecn =
      "no ECN/DCQCN knobs on this port (neither debugfs mlx5/<pci>/cc_params nor "
      "/sys/class/net/lan2/ecn; is debugfs mounted?)";
  EXPECT_EQ(
      unsupported_of(p),
      (Lines{"dcbx: " + no_dcb, "trust: " + no_dcb, "dscp_map: " + no_dcb, "ets: " + no_dcb,
             "pfc.priorities: " + no_dcb, "pfc.cable_length: " + no_dcb,
             "stall_prevention: PFC stall prevention is not supported by this device "
             "(EOPNOTSUPP)",
             "ecn.cnp_dscp: " + no_ecn, "ecn.cnp_priority: " + no_ecn,
             "roce.rdma_cm_mode: no RDMA device for lan2", "roce.tos: no RDMA device for lan2"}));
  EXPECT_EQ(finding::texts(p.findings),
            Lines{});  // no RDMA device is said once, by the rdma_cm lines
  EXPECT_EQ(p.roce_v2_gid_index, std::nullopt);
}

TEST_F(PlanPort, InboxDriverHasNoPerPriorityEcnEnable) {
  want.ecn.enabled_priorities = 1u << 3;
  EXPECT_EQ(unsupported_of(plan()),
            Lines{"ecn.priorities: the inbox driver has no per-priority ECN enable"});
  EXPECT_EQ(changes_of(plan()), Lines{});
}

TEST_F(PlanPort, OfedEcnPrioritiesAndKnobsByUpstreamName) {
  rdma::EcnState ecn;
  ecn.flavour = rdma::EcnFlavour::Ofed;
  ecn.np_enabled = 1u << 3;
  ecn.rp_enabled = 0;
  ecn.np_params = {{"cnp_dscp", 48}, {"cnp_802p_prio", 6}, {"min_time_between_cnps", 0}};
  ecn.rp_params = {{"rpg_ai_rate", 5}, {"rpg_time_reset", 300}};
  have.ecn = Field<rdma::EcnState>::of(ecn);
  want.ecn.enabled_priorities = 1u << 3;
  want.ecn.dcqcn = {{"rp_ai_rate", 10}, {"rp_time_reset", 300}, {"np_min_time_between_cnps", 4}};
  const PortPlan p = plan();
  EXPECT_EQ(changes_of(p),
            (Lines{"ecn.priorities: np 3 rp none -> 3",
                   "ecn.dcqcn.np_min_time_between_cnps: 0 -> 4", "ecn.dcqcn.rp_ai_rate: 5 -> 10"}));
  EXPECT_EQ(p.changes[1].key, "np_min_time_between_cnps");
  EXPECT_EQ(unsupported_of(p), Lines{});
}

TEST_F(PlanPort, CnpDscpAndPriority) {
  auto ecn = *have.ecn.value;
  ecn.np_params["np_cnp_dscp"] = 26;
  ecn.np_params["np_cnp_prio"] = 3;
  have.ecn = Field<rdma::EcnState>::of(ecn);
  EXPECT_EQ(changes_of(plan()), (Lines{"ecn.cnp_dscp: 26 -> 48", "ecn.cnp_priority: 3 -> 6"}));
}

TEST_F(PlanPort, CnpPriorityIsNotInEffectUnderPrioMode1) {
  auto ecn = *have.ecn.value;
  ecn.np_params["np_cnp_prio_mode"] = 1;  // the right number, but not used
  have.ecn = Field<rdma::EcnState>::of(ecn);
  EXPECT_EQ(changes_of(plan()),
            Lines{"ecn.cnp_priority: 6 (np_cnp_prio_mode 1: not in effect) -> 6"});
}

TEST_F(PlanPort, DcqcnKnobTheDriverLacksIsUnsupported) {
  want.ecn.dcqcn = {{"rp_ai_rate", 5}, {"rp_max_rate", 100000}};
  const PortPlan p = plan();
  EXPECT_EQ(changes_of(p), Lines{});
  EXPECT_EQ(unsupported_of(p),
            Lines{"ecn.dcqcn.rp_max_rate: the inbox driver has no rp_max_rate knob on this port"});
  EXPECT_EQ(p.unsupported[0].key, "rp_max_rate");
}

TEST_F(PlanPort, NoEcnInterfaceMakesEveryEcnSettingUnsupported) {
  have.ecn = Field<rdma::EcnState>::of(rdma::EcnState{});
  want.ecn.dcqcn = {{"rp_ai_rate", 5}};
  const std::string why =
      "no ECN/DCQCN knobs on this port (neither debugfs mlx5/<pci>/cc_params nor "
      "/sys/class/net/lan2/ecn; is debugfs mounted?)";
  EXPECT_EQ(unsupported_of(plan()), (Lines{"ecn.cnp_dscp: " + why, "ecn.cnp_priority: " + why,
                                           "ecn.dcqcn.rp_ai_rate: " + why}));
}

TEST_F(PlanPort, UnconfiguredRdmaCmMeansTheKernelDefaults) {
  have.rdma_cm = Field<rdma::RdmaCmDefaults>::of(rdma::RdmaCmDefaults{});
  // RoCE v2 is already the kernel's default: only the ToS needs the configfs group.
  EXPECT_EQ(changes_of(plan()), Lines{"roce.tos: 0 (kernel default) -> 106"});
  want.roce.rdma_cm_mode = "IB/RoCE v1";
  want.roce.tos = 0;
  EXPECT_EQ(changes_of(plan()), Lines{"roce.rdma_cm_mode: RoCE v2 (kernel default) -> IB/RoCE v1"});
}

TEST_F(PlanPort, ConfiguredRdmaCmIsComparedAsRead) {
  rdma::RdmaCmDefaults cm{true, "IB/RoCE v1", 0};
  have.rdma_cm = Field<rdma::RdmaCmDefaults>::of(cm);
  EXPECT_EQ(changes_of(plan()),
            (Lines{"roce.rdma_cm_mode: IB/RoCE v1 -> RoCE v2", "roce.tos: 0 -> 106"}));
}

TEST_F(PlanPort, GidIndexOtherThanJobsUseWarns) {
  have.gids = Field<GidStatus>::of(GidStatus{"sysfs", test::ipv4_gid_table(5)});
  want.roce.gid_index = 3;
  const PortPlan p = plan();
  EXPECT_EQ(p.roce_v2_gid_index, 5);
  EXPECT_EQ(finding::texts(p.findings),
            Lines{"RoCE v2 GID index is 5, the config says jobs use 3"});
  EXPECT_TRUE(p.in_sync());  // a warning is no change
  want.roce.gid_index = 5;
  EXPECT_EQ(finding::texts(plan().findings), Lines{});
}

TEST_F(PlanPort, MissingRoceV2GidWarns) {
  auto table = test::ipv4_gid_table(3);
  table.pop_back();  // only the v1 entry of the address is left
  have.gids = Field<GidStatus>::of(GidStatus{"sysfs", table});
  EXPECT_EQ(finding::texts(plan().findings), Lines{"no RoCE v2 GID with an IPv4 address on lan2"});
  EXPECT_EQ(plan().roce_v2_gid_index, std::nullopt);
  want.roce.gid_index = 3;
  EXPECT_EQ(finding::texts(plan().findings),
            Lines{"no RoCE v2 GID with an IPv4 address on lan2, the config says jobs use 3"});
}

TEST_F(PlanPort, Ipv6FamilySkipsLinkLocalAndMappedGids) {
  auto table = test::ipv4_gid_table(3);
  table.push_back({4, "fd00:0000:0000:0000:0000:0000:0000:0001", "IB/RoCE v1", "lan2"});
  table.push_back({5, "fd00:0000:0000:0000:0000:0000:0000:0001", "RoCE v2", "lan2"});
  have.gids = Field<GidStatus>::of(GidStatus{"sysfs", table});
  want.roce.gid_family = "ipv6";
  EXPECT_EQ(plan().roce_v2_gid_index, 5);
  table.resize(4);
  have.gids = Field<GidStatus>::of(GidStatus{"sysfs", table});
  EXPECT_EQ(finding::texts(plan().findings), Lines{"no RoCE v2 GID with an IPv6 address on lan2"});
}

TEST_F(PlanPort, UnreadableLinkIsAPortError) {
  have.link = Field<LinkInfo>::from(Error{ENODEV, "lan2: RTM_GETLINK: No such device"}, "link");
  const PortPlan p = plan();
  EXPECT_EQ(p.error, "cannot read the link: lan2: RTM_GETLINK: No such device (ENODEV)");
  EXPECT_EQ(changes_of(p), Lines{});
  EXPECT_FALSE(p.in_sync());
}

TEST_F(PlanPort, DcbReadErrorLeavesDcbAloneAndPlansTheRest) {
  const Error eio{EIO, "lan2: RTM_GETDCB: Input/output error"};
  have.dcbx = Field<uint8_t>::from(eio, "DCB");
  have.trust = Field<dcb::Trust>::from(eio, "DCB");
  have.dscp_apps = Field<std::vector<dcb::AppEntry>>::from(eio, "DCB");
  have.pfc = Field<dcb::Pfc>::from(eio, "DCB");
  have.ets = Field<dcb::Ets>::from(eio, "DCB");
  LinkInfo link = *have.link.value;
  link.mtu = 1500;
  have.link = Field<LinkInfo>::of(link);
  const PortPlan p = plan();
  // Nothing to roll back to for DCB, so no DCB change; the MTU does not depend on it.
  EXPECT_EQ(changes_of(p), Lines{"mtu: 1500 -> 9000 !"});
  EXPECT_TRUE(p.partly_read);
  EXPECT_FALSE(p.in_sync());
  EXPECT_EQ(p.error,
            "cannot read DCBX: lan2: RTM_GETDCB: Input/output error (EIO); cannot read DCB: "
            "lan2: RTM_GETDCB: Input/output error (EIO)");
}

TEST_F(PlanPort, ChangesComeInSettingOrder) {
  have = in_sync_status();
  have.dcbx = Field<uint8_t>::of(0);
  LinkInfo link = *have.link.value;
  link.mtu = 1500;
  have.link = Field<LinkInfo>::of(link);
  dcb::Pfc pfc = *have.pfc.value;
  pfc.enabled_mask = 0;
  pfc.delay = 30;
  have.pfc = Field<dcb::Pfc>::of(pfc);
  have.rdma_cm = Field<rdma::RdmaCmDefaults>::of(rdma::RdmaCmDefaults{});
  have.stall_prevention = Field<StallPrevention>::of(StallPrevention{8000});
  std::vector<Setting> order;
  for (const auto& c : plan().changes) order.push_back(c.setting);
  EXPECT_EQ(order, (std::vector<Setting>{Setting::Dcbx, Setting::Mtu, Setting::PfcPriorities,
                                         Setting::CableLength, Setting::StallPrevention,
                                         Setting::RdmaCmTos}));
}

TEST(SettingName, IsTheProfileKey) {
  EXPECT_EQ(setting_name(Setting::Dcbx), "dcbx");
  EXPECT_EQ(setting_name(Setting::DscpMap), "dscp_map");
  EXPECT_EQ(setting_name(Setting::CableLength), "pfc.cable_length");
  EXPECT_EQ(setting_name(Setting::StallPrevention), "stall_prevention");
  EXPECT_EQ(setting_name(Setting::CnpPriority), "ecn.cnp_priority");
  EXPECT_EQ(setting_name(Setting::Dcqcn, "rp_ai_rate"), "ecn.dcqcn.rp_ai_rate");
  EXPECT_EQ(setting_name(Setting::RdmaCmMode), "roce.rdma_cm_mode");
  EXPECT_EQ(setting_name(Setting::RdmaCmTos), "roce.tos");
}

}  // namespace
}  // namespace roced::plan
