// SPDX-License-Identifier: Apache-2.0
// plan_port on ports whose driver is not mlx5: a veth under soft-RoCE (no DCB at all) and a
// bnxt-like port whose DCB reads fine. The mlx5-only settings are unsupported with the right
// reason, never changes or read errors; MTU and rdma_cm are planned as on mlx5.
#include <gtest/gtest.h>

#include "daemon/plan/plan.hpp"
#include "observed.hpp"
#include "plan_lines.hpp"

namespace roced::plan {
namespace {

using test::changes_of;
using test::Lines;
using test::unsupported_of;

constexpr const char* kVethDcb = "DCB is not supported by this device (EOPNOTSUPP)";

DiscoveredPort veth0() {
  DiscoveredPort port;
  port.netdev = "veth0";
  port.rdma_device = "rxe0";
  port.rdma_port = 1;
  port.rdma_driver = "rxe";
  port.owns_rdma_device = true;
  return port;
}

// What read_port_status reads on a veth carrying rxe0: DCB and stall prevention refused by the
// kernel, ECN not read (mlx5 only), rdma_cm in RoCE v1 with TOS 0, MTU 1500.
PortStatus veth_status() {
  PortStatus status = test::in_sync_status();
  status.port = veth0();
  test::without_dcb(status);
  status.stall_prevention = test::unsupported<StallPrevention>("PFC stall prevention");
  status.global_pause = test::unsupported<PauseParams>("global pause");  // veth: no pauseparam
  status.ecn = Field<rdma::EcnState>::unsupported(mlx5_only_reason(status.port));
  status.link.value->name = "veth0";
  status.link.value->mtu = 1500;
  status.link.value->max_mtu = 65535;
  rdma::RdmaCmDefaults cm;
  cm.configured = true;
  cm.roce_mode = "IB/RoCE v1";
  cm.tos = 0;
  status.rdma_cm = Field<rdma::RdmaCmDefaults>::of(cm);
  status.gids = Field<GidStatus>::of(
      GidStatus{"sysfs",
                {{0, "fe80:0000:0000:0000:0000:00ff:fe00:0001", "RoCE v2", "veth0"},
                 {1, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2", "veth0"}}});
  return status;
}

TEST(PlanNonMlx5, VethUnderRxeGetsMtuAndRdmaCmAndTheRestUnsupported) {
  config::Profile want = config::default_profile();
  want.ecn.dcqcn["rp_ai_rate"] = 5;
  const PortPlan p = plan_port(veth0(), want, veth_status());
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(changes_of(p), (Lines{"mtu: 1500 -> 9000 !", "roce.rdma_cm_mode: IB/RoCE v1 -> RoCE v2",
                                  "roce.tos: 0 -> 106"}));
  const std::string dcb = kVethDcb;
  const std::string mlx5_only = "mlx5 only: veth0's RDMA driver is rxe";
  EXPECT_EQ(unsupported_of(p),
            (Lines{"dcbx: " + dcb, "trust: " + dcb, "dscp_map: " + dcb, "ets: " + dcb,
                   "global_pause: global pause is not supported by this device (EOPNOTSUPP)",
                   "pfc.priorities: " + dcb, "pfc.cable_length: " + dcb,
                   "stall_prevention: PFC stall prevention is not supported by this device "
                   "(EOPNOTSUPP)",
                   "ecn.cnp_dscp: " + mlx5_only, "ecn.cnp_priority: " + mlx5_only,
                   "ecn.dcqcn.rp_ai_rate: " + mlx5_only}));
  // The MTU change names no mlx5 behaviour on a veth.
  ASSERT_FALSE(p.changes.empty());
  EXPECT_EQ(p.changes[0].disruption.find("mlx5"), std::string::npos) << p.changes[0].disruption;
  // The GID checks run as on mlx5.
  EXPECT_EQ(p.roce_v2_gid_index, 1);
}

TEST(PlanNonMlx5, VethInSyncOnceMtuAndRdmaCmMatch) {
  PortStatus have = veth_status();
  have.link.value->mtu = 9000;
  have.rdma_cm.value->roce_mode = "RoCE v2";
  have.rdma_cm.value->tos = 106;
  config::Profile want = config::default_profile();
  want.roce.gid_index = 3;  // jobs were told 3; rxe has it at 1
  const PortPlan p = plan_port(veth0(), want, have);
  EXPECT_TRUE(p.in_sync());
  EXPECT_EQ(changes_of(p), Lines{});
  EXPECT_EQ(p.unsupported.size(), 10u);  // dcbx..stall_prevention (8), cnp dscp and priority
  EXPECT_EQ(finding::texts(p.findings),
            Lines{"RoCE v2 GID index is 1, the config says jobs use 3"});
}

// A bnxt-like port: DCB reads fine and differs from the profile everywhere, and a buffer
// profile is asked for; still nothing of it is planned, and no ECN read was tried.
TEST(PlanNonMlx5, ReadableDcbOnAnotherDriverIsStillUnsupported) {
  const DiscoveredPort port{"ens2f0", "bnxt_en", "0000:3b:00.0", "bnxt_re0", 1, "bnxt_re", true};
  PortStatus have = test::in_sync_status();
  have.port = port;
  have.dcbx = Field<uint8_t>::of(dcb::kDcbxVerCee);  // firmware agent: mlx5 would change it
  have.trust = Field<dcb::Trust>::of(dcb::Trust::Pcp);
  have.pfc.value->enabled_mask = 0;
  have.pfc.value->delay = 0;
  have.ets.value->prio_tc = {0, 0, 0, 0, 0, 0, 0, 0};
  have.stall_prevention = Field<StallPrevention>::of(StallPrevention{0});
  have.ecn = Field<rdma::EcnState>::failed("error: EIO reading something", EIO);
  have.link.value->mtu = 1500;
  config::Profile want = config::default_profile();
  config::BufferProfile buffers;
  want.buffers = buffers;
  want.ecn.enabled_priorities = 0x08;
  const PortPlan p = plan_port(port, want, have);
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(changes_of(p), Lines{"mtu: 1500 -> 9000 !"});
  const std::string reason = "mlx5 only: ens2f0's RDMA driver is bnxt_re";
  EXPECT_EQ(
      unsupported_of(p),
      (Lines{"dcbx: " + reason, "trust: " + reason, "dscp_map: " + reason, "ets: " + reason,
             "global_pause: " + reason, "pfc.priorities: " + reason, "pfc.cable_length: " + reason,
             "buffers: " + reason, "stall_prevention: " + reason, "ecn.priorities: " + reason,
             "ecn.cnp_dscp: " + reason, "ecn.cnp_priority: " + reason}));
}

TEST(PlanNonMlx5, ReasonNamesWhatTheNetdevIs) {
  DiscoveredPort plain;
  plain.netdev = "eth0";
  plain.driver = "virtio_net";
  EXPECT_EQ(mlx5_only_reason(plain), "mlx5 only: eth0's driver is virtio_net");
  plain.driver.clear();
  EXPECT_EQ(mlx5_only_reason(plain), "mlx5 only: eth0 has no mlx5 device");
}

}  // namespace
}  // namespace roced::plan
