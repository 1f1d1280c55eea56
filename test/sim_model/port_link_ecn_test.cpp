// SPDX-License-Identifier: Apache-2.0
// Link (MTU, admin state, peer carrier), DCQCN knobs and driver reload of the simulated port.
#include <gtest/gtest.h>

#include <cerrno>

#include "sim/model/port.hpp"
#include "test/sim_model/test_ports.hpp"

namespace roce_sim {
namespace {

TEST(PortLink, MtuRangeIs68ToMaxMtu) {
  Port port(test::cx7_port());
  EXPECT_EQ(port.mtu(), 1500u);
  EXPECT_EQ(port.set_mtu(67), -EINVAL);
  EXPECT_EQ(port.set_mtu(9979), -EINVAL);
  EXPECT_EQ(port.mtu(), 1500u);
  EXPECT_EQ(port.set_mtu(68), 0);
  EXPECT_EQ(port.set_mtu(9978), 0);
  EXPECT_EQ(port.mtu(), 9978u);
}

TEST(PortLink, CarrierNeedsAdminUpAndPeer) {
  Port port(test::cx7_port());
  EXPECT_TRUE(port.carrier());
  port.set_peer_carrier(false);
  EXPECT_FALSE(port.carrier());
  EXPECT_EQ(port.link_down_events(), 1u);
  port.set_peer_carrier(true);
  EXPECT_TRUE(port.carrier());
  ASSERT_EQ(port.set_admin_up(false), 0);
  EXPECT_FALSE(port.carrier());
  EXPECT_EQ(port.carrier_changes(), 3u);
  ASSERT_EQ(port.set_admin_up(true), 0);
  EXPECT_TRUE(port.carrier());
}

TEST(PortEcn, DefaultsAreTheFirmwareDcqcnValues) {
  Port port(test::cx7_port());
  const EcnState& ecn = port.ecn();
  for (size_t p = 0; p < 8; ++p) {
    EXPECT_TRUE(ecn.np_enabled[p]);
    EXPECT_TRUE(ecn.rp_enabled[p]);
  }
  EXPECT_EQ(ecn.params.at("rp_time_reset"), 300u);
  EXPECT_EQ(ecn.params.at("rp_byte_reset"), 32767u);
  EXPECT_EQ(ecn.params.at("np_cnp_dscp"), 48u);
  EXPECT_EQ(ecn.params.at("np_cnp_prio"), 6u);
  EXPECT_EQ(ecn.params.at("rp_initial_alpha_value"), 1023u);
  for (const char* name :
       {"rp_clamp_tgt_rate", "rp_clamp_tgt_rate_ati", "rp_threshold", "rp_ai_rate", "rp_max_rate",
        "rp_hai_rate", "rp_min_dec_fac", "rp_min_rate", "rp_rate_to_set_on_first_cnp",
        "rp_dce_tcp_g", "rp_dce_tcp_rtt", "rp_rate_reduce_monitor_period", "rp_gd",
        "np_min_time_between_cnps", "np_cnp_prio_mode"})
    EXPECT_TRUE(ecn.params.count(name)) << name;
}

// cong.c mlx5_ib_set_cc_param_mask_val stores with MLX5_SET: a value wider than its mlx5_ifc
// field keeps its low bits (70 in the 6-bit cnp_dscp is 6); the 32-bit fields take any u32.
TEST(PortEcn, AValueWiderThanItsFieldIsTruncated) {
  Port port(test::cx7_port());
  EXPECT_EQ(port.set_cc_param("np_cnp_dscp", 70), 0);
  EXPECT_EQ(port.ecn().params.at("np_cnp_dscp"), 6u);
  EXPECT_EQ(port.set_cc_param("np_cnp_prio", 9), 0);
  EXPECT_EQ(port.ecn().params.at("np_cnp_prio"), 1u);
  EXPECT_EQ(port.set_cc_param("rp_clamp_tgt_rate", 2), 0);
  EXPECT_EQ(port.ecn().params.at("rp_clamp_tgt_rate"), 0u);
  EXPECT_EQ(port.set_cc_param("rp_min_dec_fac", 1000), 0);
  EXPECT_EQ(port.ecn().params.at("rp_min_dec_fac"), 1000u);
  EXPECT_EQ(port.set_cc_param("no_such_param", 1), -EINVAL);
}

TEST(PortEcn, SettingCnpPrioForcesPrioModeZero) {
  Port port(test::cx7_port());
  ASSERT_EQ(port.ecn().params.at("np_cnp_prio_mode"), 1u);
  ASSERT_EQ(port.set_cc_param("np_cnp_prio", 3), 0);
  EXPECT_EQ(port.ecn().params.at("np_cnp_prio"), 3u);
  EXPECT_EQ(port.ecn().params.at("np_cnp_prio_mode"), 0u);
}

// MLNX_OFED's ecn/roce_np/cnp_802p_prio (en_ecn.c mlx5e_store_cnp_802p_prio) selects only the
// priority field: whatever mode the firmware had stays, and the host has no file to read it from.
TEST(PortEcn, OfedSetsTheCnpPriorityWithoutTheMode) {
  PortSpec spec = test::cx7_port();
  spec.flavour = DriverFlavour::Ofed;
  Port port(spec);
  ASSERT_EQ(port.ecn().params.at("np_cnp_prio_mode"), 1u);
  ASSERT_EQ(port.set_cc_param("np_cnp_prio", 3), 0);
  EXPECT_EQ(port.ecn().params.at("np_cnp_prio"), 3u);
  EXPECT_EQ(port.ecn().params.at("np_cnp_prio_mode"), 1u);
}

TEST(PortEcn, EnablePerPriority) {
  Port port(test::cx7_port());
  EXPECT_EQ(port.set_ecn_enabled(true, 8, false), -EINVAL);
  EXPECT_EQ(port.set_ecn_enabled(false, -1, false), -EINVAL);
  ASSERT_EQ(port.set_ecn_enabled(true, 3, false), 0);
  EXPECT_FALSE(port.ecn().rp_enabled[3]);
  EXPECT_TRUE(port.ecn().np_enabled[3]);
}

TEST(PortReload, FirmwareDefaultsRestoreEverything) {
  Port port(test::cx7_port());
  ieee_pfc pfc{};
  pfc.pfc_en = 0x08;
  pfc.delay = 30;
  ASSERT_EQ(port.ieee_setpfc(pfc), 0);
  ASSERT_EQ(port.ieee_setapp(dcb_app{IEEE_8021QAZ_APP_SEL_DSCP, 3, 26}), 0);
  ASSERT_EQ(port.setdcbx(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE), 0);
  ieee_ets ets{};
  for (int i = 0; i < 8; ++i) ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
  ASSERT_EQ(port.ieee_setets(ets), 0);
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  buffer.buffer_size[0] = 200064;
  ASSERT_EQ(port.dcbnl_setbuffer(buffer), 0);
  ASSERT_EQ(port.set_mtu(9000), 0);
  ASSERT_EQ(port.set_pfc_prevention_tout(100), 0);
  ASSERT_EQ(port.set_cc_param("np_cnp_dscp", 26), 0);
  ASSERT_EQ(port.rdma().set_default_roce_mode("IB/RoCE v1"), 0);
  ASSERT_EQ(port.rdma().set_default_roce_tos(106), 0);
  port.counters().prio[3].rx_pause = 77;
  port.rdma().add_to_counter("np_cnp_sent", 5);

  port.reset_to_firmware_defaults();

  ieee_pfc now{};
  ASSERT_EQ(port.ieee_getpfc(now), 0);
  EXPECT_EQ(now.pfc_en, 0);
  EXPECT_EQ(now.delay, 7);
  EXPECT_EQ(now.indications[3], 0u);
  EXPECT_FALSE(port.trust_dscp());
  EXPECT_TRUE(port.app_table().empty());
  EXPECT_EQ(port.getdcbx(), DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE);
  ieee_ets now_ets{};
  ASSERT_EQ(port.ieee_getets(now_ets), 0);
  EXPECT_EQ(now_ets.tc_tsa[2], IEEE_8021QAZ_TSA_VENDOR);
  EXPECT_FALSE(port.buffers_manual());
  EXPECT_EQ(port.mtu(), 1500u);
  uint16_t ms = 0;
  ASSERT_EQ(port.get_pfc_prevention_tout(ms), 0);
  EXPECT_EQ(ms, Port::kStallTimeoutDefaultMs);
  EXPECT_EQ(port.ecn().params.at("np_cnp_dscp"), 48u);
  EXPECT_EQ(port.rdma().default_roce_mode(), "RoCE v2");
  EXPECT_EQ(port.rdma().default_roce_tos(), 0);
  EXPECT_EQ(port.rdma().hw_counters().at("np_cnp_sent").value, 0u);
  EXPECT_EQ(port.link_toggles(), 0u);
  EXPECT_EQ(port.rdma().find_gid_index(GidType::RoceV2, "192.168.2.10"), 3);
}

// Firmware commands are counted per name and charged at the node's per-command time; a PFC
// mask change's link toggle is three of them (PAOS query, down, up).
TEST(PortFirmware, CommandsAreCountedAndTheirTimeIsTakenOnce) {
  PortSpec spec = test::cx7_port();
  spec.firmware_command_us = 25;
  Port port(spec);
  port.issue("ACCESS_REG", 2);
  port.issue("QUERY_VPORT_COUNTER", 1);
  EXPECT_EQ(port.firmware_commands().at("ACCESS_REG").n, 2u);
  EXPECT_EQ(port.firmware_commands().at("ACCESS_REG").total_ns, 50'000u);
  EXPECT_EQ(port.take_firmware_time(), std::chrono::microseconds(75));
  EXPECT_EQ(port.take_firmware_time(), std::chrono::microseconds(0));
  ieee_pfc pfc{};
  pfc.pfc_en = 0x08;
  ASSERT_EQ(port.ieee_setpfc(pfc), 0);
  EXPECT_EQ(port.firmware_commands().at("ACCESS_REG").n, 5u);
  EXPECT_EQ(port.take_firmware_time(), std::chrono::microseconds(75));
}

}  // namespace
}  // namespace roce_sim
