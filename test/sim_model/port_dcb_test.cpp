// SPDX-License-Identifier: Apache-2.0
// DCB quirks of the simulated mlx5 port (en_dcbnl.c, en/port_buffer.c, net/dcb/dcbnl.c).
#include <gtest/gtest.h>

#include <cerrno>

#include "sim/model/port.hpp"
#include "test/sim_model/test_ports.hpp"

namespace roce_sim {
namespace {

dcb_app dscp_app(uint16_t dscp, uint8_t prio) {
  return dcb_app{IEEE_8021QAZ_APP_SEL_DSCP, prio, dscp};
}

// ---- trust / APP table ----

TEST(PortApp, FirstDscpEntrySwitchesTrustToDscp) {
  Port port(test::cx7_port());
  EXPECT_FALSE(port.trust_dscp());
  EXPECT_TRUE(port.app_table().empty());
  ASSERT_EQ(port.ieee_setapp(dscp_app(26, 3)), 0);
  EXPECT_TRUE(port.trust_dscp());
  ASSERT_EQ(port.app_table().size(), 1u);
  EXPECT_EQ(port.app_table()[0].protocol, 26);
  EXPECT_EQ(port.app_table()[0].priority, 3);
}

TEST(PortApp, NewestEntryIsReportedFirstLikeDcbAppList) {
  Port port(test::cx7_port());
  ASSERT_EQ(port.ieee_setapp(dscp_app(26, 3)), 0);
  ASSERT_EQ(port.ieee_setapp(dscp_app(48, 6)), 0);
  const auto table = port.app_table();
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table[0].protocol, 48);
  EXPECT_EQ(table[1].protocol, 26);
}

TEST(PortApp, RemappingADscpReplacesItsEntry) {
  Port port(test::cx7_port());
  ASSERT_EQ(port.ieee_setapp(dscp_app(26, 3)), 0);
  ASSERT_EQ(port.ieee_setapp(dscp_app(26, 5)), 0);
  ASSERT_EQ(port.app_table().size(), 1u);
  EXPECT_EQ(port.app_table()[0].priority, 5);
  EXPECT_EQ(port.dscp2prio()[26], 5);
}

TEST(PortApp, DeleteWithWrongPriorityIsENOENT) {
  Port port(test::cx7_port());
  ASSERT_EQ(port.ieee_setapp(dscp_app(26, 3)), 0);
  EXPECT_EQ(port.ieee_delapp(dscp_app(26, 2)), -ENOENT);
  EXPECT_EQ(port.app_table().size(), 1u);
  EXPECT_TRUE(port.trust_dscp());
}

TEST(PortApp, DeleteWithoutAnyDscpEntryIsENOENT) {
  Port port(test::cx7_port());
  EXPECT_EQ(port.ieee_delapp(dscp_app(26, 3)), -ENOENT);
}

TEST(PortApp, DeletingTheLastDscpEntryReturnsToPcpTrust) {
  Port port(test::cx7_port());
  ASSERT_EQ(port.ieee_setapp(dscp_app(26, 3)), 0);
  ASSERT_EQ(port.ieee_setapp(dscp_app(48, 6)), 0);
  ASSERT_EQ(port.ieee_delapp(dscp_app(26, 3)), 0);
  EXPECT_TRUE(port.trust_dscp());
  EXPECT_EQ(port.dscp2prio()[26], 0);  // the deleted DSCP goes back to priority 0
  ASSERT_EQ(port.ieee_delapp(dscp_app(48, 6)), 0);
  EXPECT_FALSE(port.trust_dscp());
  EXPECT_TRUE(port.app_table().empty());
}

TEST(PortApp, NonDscpSelectorOrDscpOutOfRangeIsEINVAL) {
  Port port(test::cx7_port());
  EXPECT_EQ(port.ieee_setapp(dcb_app{IEEE_8021QAZ_APP_SEL_ETHERTYPE, 3, 0x8915}), -EINVAL);
  EXPECT_EQ(port.ieee_setapp(dscp_app(64, 3)), -EINVAL);
  EXPECT_EQ(port.ieee_delapp(dcb_app{IEEE_8021QAZ_APP_SEL_DGRAM, 3, 4791}), -EINVAL);
  EXPECT_FALSE(port.trust_dscp());
  EXPECT_TRUE(port.app_table().empty());
}

TEST(PortApp, FirmwareDscpTrustReportsAll64EntriesAtLoad) {
  auto spec = test::cx7_port();
  spec.firmware_trust_dscp = true;
  Port port(spec);
  EXPECT_TRUE(port.trust_dscp());
  const auto table = port.app_table();
  ASSERT_EQ(table.size(), 64u);
  EXPECT_EQ(table.front().protocol, 63);  // added last, so first in the kernel's list
  EXPECT_EQ(table.front().priority, 7);
  for (const auto& app : table) {
    EXPECT_EQ(app.selector, IEEE_8021QAZ_APP_SEL_DSCP);
    EXPECT_EQ(app.priority, app.protocol >> 3);
  }
  ASSERT_EQ(port.ieee_delapp(dscp_app(26, 3)), 0);
  EXPECT_EQ(port.app_table().size(), 63u);
  EXPECT_TRUE(port.trust_dscp());
}

TEST(PortApp, ApptrustIsNotSupported) {
  Port port(test::cx7_port());
  const uint8_t selectors[] = {IEEE_8021QAZ_APP_SEL_DSCP, 255};  // 255: DCB_APP_SEL_PCP (6.2+)
  EXPECT_EQ(port.dcbnl_setapptrust(selectors, 2), -EOPNOTSUPP);
}

// ---- DCBX ----

TEST(PortDcbx, FirmwareModeReportsCeeAndIeeeWithoutHost) {
  Port port(test::cx7_port());
  EXPECT_EQ(port.getdcbx(), DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE);
  auto spec = test::cx7_port();
  spec.firmware_dcbx_host = true;
  Port host(spec);
  EXPECT_EQ(host.getdcbx(), DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE);
}

TEST(PortDcbx, LldManagedIsRefused) {
  Port port(test::cx7_port());
  EXPECT_EQ(port.setdcbx(DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE), 1);
  EXPECT_EQ(port.setdcbx(DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE), 1);
  EXPECT_FALSE(port.dcbx_host_mode());
}

TEST(PortDcbx, HostBitSwitchesToHostModeAndZeroBackToFirmware) {
  Port port(test::cx7_port());
  EXPECT_EQ(port.setdcbx(DCB_CAP_DCBX_VER_IEEE), 1);  // neither 0 nor HOST
  ASSERT_EQ(port.setdcbx(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE), 0);
  EXPECT_TRUE(port.dcbx_host_mode());
  EXPECT_EQ(port.getdcbx(), DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);  // cap = mode as given
  ASSERT_EQ(port.setdcbx(0), 0);
  EXPECT_FALSE(port.dcbx_host_mode());
  EXPECT_EQ(port.getdcbx(), DCB_CAP_DCBX_VER_IEEE);  // only HOST is cleared
}

TEST(PortDcbx, PeerSettingsApplyOnlyInFirmwareMode) {
  Port port(test::cx7_port());
  const ieee_pfc peer = test::pfc_mask(0x08);
  EXPECT_TRUE(port.apply_peer_dcbx(nullptr, &peer));
  EXPECT_EQ(port.pfc_enabled(), 0x08);
  ASSERT_EQ(port.setdcbx(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE), 0);
  const ieee_pfc other = test::pfc_mask(0x10);
  EXPECT_FALSE(port.apply_peer_dcbx(nullptr, &other));
  EXPECT_EQ(port.pfc_enabled(), 0x08);
}

// ---- PFC ----

TEST(PortPfc, ChangingTheMaskTogglesTheLinkButTheSameMaskDoesNot) {
  Port port(test::cx7_port());
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08)), 0);
  EXPECT_EQ(port.link_toggles(), 1u);
  EXPECT_EQ(port.carrier_changes(), 1u);  // down: the link trains again
  EXPECT_FALSE(port.carrier());
  EXPECT_EQ(port.link_training_ms(), 3000u);  // 400G
  EXPECT_FALSE(port.advance(std::chrono::milliseconds(2999)));
  EXPECT_FALSE(port.carrier());
  EXPECT_TRUE(port.advance(std::chrono::milliseconds(1)));
  EXPECT_TRUE(port.carrier());
  EXPECT_EQ(port.carrier_changes(), 2u);  // and up again
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08)), 0);
  EXPECT_EQ(port.link_toggles(), 1u);
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x00)), 0);
  EXPECT_EQ(port.link_toggles(), 2u);
}

TEST(PortPfc, GetReportsCapDelayAndPauseCountersPerPriority) {
  Port port(test::cx7_port());
  port.counters().prio[3].tx_pause = 11;
  port.counters().prio[3].rx_pause = 22;
  port.counters().prio[4].rx_pause = 33;  // no PFC on priority 4: reported all the same
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08)), 0);
  port.update_stats();
  ieee_pfc pfc{};
  ASSERT_EQ(port.ieee_getpfc(pfc), 0);
  EXPECT_EQ(pfc.pfc_cap, 8);
  EXPECT_EQ(pfc.pfc_en, 0x08);
  EXPECT_EQ(pfc.delay, 7);  // MLX5E_DEFAULT_CABLE_LEN
  EXPECT_EQ(pfc.requests[3], 11u);
  EXPECT_EQ(pfc.indications[3], 22u);
  EXPECT_EQ(pfc.indications[4], 33u);
}

// mlx5e_dcbnl_ieee_getpfc reads priv->stats.pport, which only mlx5e_stats_update (ETHTOOL_GSTATS)
// refreshes: the counts are those of the last statistics read, not of the moment.
TEST(PortPfc, PauseCountsAreThoseOfTheLastStatisticsRead) {
  Port port(test::cx7_port());
  ieee_pfc pfc{};
  port.counters().prio[3].rx_pause = 5;
  ASSERT_EQ(port.ieee_getpfc(pfc), 0);
  EXPECT_EQ(pfc.indications[3], 0u);  // nothing read since the driver loaded
  port.update_stats();
  port.counters().prio[3].rx_pause = 9;
  ASSERT_EQ(port.ieee_getpfc(pfc), 0);
  EXPECT_EQ(pfc.indications[3], 5u);
  port.update_stats();
  ASSERT_EQ(port.ieee_getpfc(pfc), 0);
  EXPECT_EQ(pfc.indications[3], 9u);
  port.reset_to_firmware_defaults();  // a driver reload: a new priv, nothing read
  ASSERT_EQ(port.ieee_getpfc(pfc), 0);
  EXPECT_EQ(pfc.indications[3], 0u);
}

TEST(PortPfc, DelayOutsideOneTo999IsIgnoredNotRejected) {
  Port port(test::cx7_port());
  ieee_pfc pfc{};
  EXPECT_EQ(port.ieee_setpfc(test::pfc_mask(0, 0)), 0);
  EXPECT_EQ(port.cable_length_m(), 7u);
  EXPECT_EQ(port.ieee_setpfc(test::pfc_mask(0, 1000)), 0);
  EXPECT_EQ(port.cable_length_m(), 7u);
  EXPECT_EQ(port.ieee_setpfc(test::pfc_mask(0, 999)), 0);
  EXPECT_EQ(port.cable_length_m(), 999u);
  EXPECT_EQ(port.ieee_setpfc(test::pfc_mask(0, 30)), 0);
  ASSERT_EQ(port.ieee_getpfc(pfc), 0);
  EXPECT_EQ(pfc.delay, 30);
  EXPECT_EQ(port.link_toggles(), 0u);  // only the mask flaps the link
}

TEST(PortPfc, DelayIsNotReportedWithoutBufferSupport) {
  auto spec = test::cx7_port();
  spec.caps.buffers = false;
  Port port(spec);
  ieee_pfc pfc{};
  ASSERT_EQ(port.ieee_getpfc(pfc), 0);
  EXPECT_EQ(pfc.delay, 0);
}

// ---- ETS ----

TEST(PortEts, FirmwareDefaultIsAllVendorWithPrio0OnTc1) {
  Port port(test::cx7_port());
  ieee_ets ets{};
  ASSERT_EQ(port.ieee_getets(ets), 0);
  EXPECT_EQ(ets.ets_cap, 8);
  const uint8_t expected_prio_tc[8] = {1, 0, 2, 3, 4, 5, 6, 7};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(ets.prio_tc[i], expected_prio_tc[i]) << i;
    EXPECT_EQ(ets.tc_tsa[i], IEEE_8021QAZ_TSA_VENDOR) << i;
    EXPECT_EQ(ets.tc_tx_bw[i], 100) << i;
  }
}

TEST(PortEts, EtsBandwidthSumOtherThan100IsEINVAL) {
  Port port(test::cx7_port());
  ieee_ets ets{};
  for (int i = 0; i < 8; ++i) ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
  ets.tc_tsa[0] = ets.tc_tsa[3] = IEEE_8021QAZ_TSA_ETS;
  ets.tc_tx_bw[0] = 50;
  ets.tc_tx_bw[3] = 40;
  ets.tc_tx_bw[6] = 10;  // strict: does not count
  EXPECT_EQ(port.ieee_setets(ets), -EINVAL);
  ets.tc_tx_bw[0] = ets.tc_tx_bw[3] = 0;  // zero sum is not allowed for setets either
  EXPECT_EQ(port.ieee_setets(ets), -EINVAL);
  ieee_ets now{};
  ASSERT_EQ(port.ieee_getets(now), 0);
  EXPECT_EQ(now.tc_tsa[0], IEEE_8021QAZ_TSA_VENDOR);  // unchanged
}

TEST(PortEts, NoEtsTcAtAllIsValid) {
  Port port(test::cx7_port());
  ieee_ets ets{};
  for (int i = 0; i < 8; ++i) ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
  EXPECT_EQ(port.ieee_setets(ets), 0);
}

TEST(PortEts, PrioTc8IsEINVAL) {
  Port port(test::cx7_port());
  ieee_ets ets{};
  for (int i = 0; i < 8; ++i) ets.tc_tsa[i] = IEEE_8021QAZ_TSA_VENDOR;
  ets.prio_tc[5] = 8;
  EXPECT_EQ(port.ieee_setets(ets), -EINVAL);
}

TEST(PortEts, SetEtsReadsBackThroughTheFirmwareGroups) {
  Port port(test::cx7_port());
  ieee_ets ets{};
  ets.willing = 1;  // ignored
  for (uint8_t i = 0; i < 8; ++i) {
    ets.prio_tc[i] = i;
    ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
  }
  ets.tc_tsa[0] = ets.tc_tsa[3] = IEEE_8021QAZ_TSA_ETS;
  ets.tc_tx_bw[0] = 40;
  ets.tc_tx_bw[3] = 60;
  ets.tc_rx_bw[0] = 77;  // ignored
  ASSERT_EQ(port.ieee_setets(ets), 0);
  ieee_ets now{};
  ASSERT_EQ(port.ieee_getets(now), 0);
  EXPECT_EQ(now.willing, 0);
  EXPECT_EQ(now.tc_rx_bw[0], 0);
  EXPECT_EQ(now.tc_tsa[0], IEEE_8021QAZ_TSA_ETS);
  EXPECT_EQ(now.tc_tx_bw[0], 40);
  EXPECT_EQ(now.tc_tsa[3], IEEE_8021QAZ_TSA_ETS);
  EXPECT_EQ(now.tc_tx_bw[3], 60);
  EXPECT_EQ(now.tc_tsa[6], IEEE_8021QAZ_TSA_STRICT);
  EXPECT_EQ(now.tc_tx_bw[6], 100);
  EXPECT_EQ(now.prio_tc[0], 0);
}

// ---- maxrate ----

TEST(PortMaxrate, RoundsTo100MbitBelow26GbitAnd1GbitAbove) {
  Port port(test::cx7_port());
  ieee_maxrate in{};
  in.tc_maxrate[0] = 1234567;    // 1.23 Gb/s -> 12 x 100 Mb/s
  in.tc_maxrate[1] = 50;         // below one unit -> one unit
  in.tc_maxrate[2] = 40500000;   // 40.5 Gb/s -> 40 Gb/s
  in.tc_maxrate[3] = 0;          // unlimited
  in.tc_maxrate[4] = 25650000;   // 256 units do not fit the u8 register: wraps to 0 -> 1 unit
  in.tc_maxrate[5] = 400000000;  // 400 Gb/s: 400 mod 256 = 144 Gb/s
  ASSERT_EQ(port.ieee_setmaxrate(in), 0);
  ieee_maxrate out{};
  ASSERT_EQ(port.ieee_getmaxrate(out), 0);
  EXPECT_EQ(out.tc_maxrate[0], 1200000u);
  EXPECT_EQ(out.tc_maxrate[1], 100000u);
  EXPECT_EQ(out.tc_maxrate[2], 40000000u);
  EXPECT_EQ(out.tc_maxrate[3], 0u);
  EXPECT_EQ(out.tc_maxrate[4], 100000u);
  EXPECT_EQ(out.tc_maxrate[5], 144000000u);
}

// Mainline keeps a u8 count of Gbit/s and wraps past 255; NVIDIA's own tree (the OFED flavour)
// a u16 (mlx5e_dcbnl_ieee_setmaxrate).
TEST(PortMaxrate, FourHundredGigabitsHoldOnlyOnNvidiasDriver) {
  ieee_maxrate in{};
  in.tc_maxrate[7] = 400000000;  // kbit/s
  PortSpec mainline_spec = test::cx7_port();
  PortSpec nvidia_spec = test::cx7_port();
  nvidia_spec.flavour = DriverFlavour::NicKernel;
  nvidia_spec.traits = traits_of(nvidia_spec.flavour);
  Port mainline(mainline_spec);
  Port nvidia(nvidia_spec);
  ieee_maxrate out{};
  ASSERT_EQ(nvidia.ieee_setmaxrate(in), 0);
  ASSERT_EQ(nvidia.ieee_getmaxrate(out), 0);
  EXPECT_EQ(out.tc_maxrate[7], 400000000u);
  ASSERT_EQ(mainline.ieee_setmaxrate(in), 0);
  ASSERT_EQ(mainline.ieee_getmaxrate(out), 0);
  EXPECT_EQ(out.tc_maxrate[7], uint64_t{400 % 256} * 1000000);  // wrapped
}

// Debian's kernels since the fixes (6.1.159, 6.12.63) refuse a cap above 255 Gbit/s and write
// nothing; MLNX_OFED still wraps it: 300 Gbit/s is programmed as 44.
TEST(PortMaxrate, AboveTwoHundredFiftyFiveGigabitsIsRefusedOrWrappedByFlavour) {
  ieee_maxrate in{};
  in.tc_maxrate[0] = 10000000;
  in.tc_maxrate[7] = 300000000;  // kbit/s
  PortSpec checked_spec = test::cx7_port();
  checked_spec.flavour = DriverFlavour::Debian612;
  checked_spec.traits = traits_of(checked_spec.flavour);
  Port checked(checked_spec);
  ieee_maxrate out{};
  EXPECT_EQ(checked.ieee_setmaxrate(in), -EINVAL);
  ASSERT_EQ(checked.ieee_getmaxrate(out), 0);
  EXPECT_EQ(out.tc_maxrate[0], 0u) << "nothing written";
  in.tc_maxrate[7] = 255000000;
  ASSERT_EQ(checked.ieee_setmaxrate(in), 0);
  ASSERT_EQ(checked.ieee_getmaxrate(out), 0);
  EXPECT_EQ(out.tc_maxrate[7], 255000000u);

  PortSpec ofed_spec = test::cx7_port();
  ofed_spec.flavour = DriverFlavour::Ofed;
  ofed_spec.traits = traits_of(ofed_spec.flavour);
  Port ofed(ofed_spec);
  in.tc_maxrate[7] = 300000000;
  ASSERT_EQ(ofed.ieee_setmaxrate(in), 0);
  ASSERT_EQ(ofed.ieee_getmaxrate(out), 0);
  EXPECT_EQ(out.tc_maxrate[7], 44000000u);
}

// ---- buffers ----

// Debian 6.12 asks the firmware who owns the buffers (port.c mlx5_query_port_buffer_ownership):
// firmware without PCAM buffer_ownership answers unknown, so host-set buffers are never sized
// again after a PFC change, where 6.1's manual flag has them recomputed at 40 Gb/s.
TEST(PortBuffer, OnDebian612WithoutTheOwnershipBitAPfcChangeRecomputesNothing) {
  for (const bool ownership_bit : {false, true}) {
    PortSpec spec = test::cx7_port();
    spec.flavour = DriverFlavour::Debian612;
    spec.traits = traits_of(spec.flavour);
    spec.caps.buffer_ownership = ownership_bit;
    Port port(spec);
    ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08)), 0);
    port.advance(std::chrono::seconds(3));
    dcbnl_buffer buffer{};
    ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
    buffer.buffer_size[1] = 393216;
    ASSERT_EQ(port.dcbnl_setbuffer(buffer), 0);
    const uint32_t at_400g = port.buffer_xoff()[1];
    ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x18)), 0);  // toggles the link
    const uint32_t at_40g = (393216u - port.xoff_at(40000)) / 128 * 128;
    EXPECT_EQ(port.buffer_xoff()[1], ownership_bit ? at_40g : at_400g) << ownership_bit;
    port.advance(std::chrono::seconds(3));
    ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x18)), 0);  // same mask, carrier back
    EXPECT_EQ(port.buffer_xoff()[1], at_400g) << ownership_bit;
  }
}

TEST(PortBuffer, FirmwareLayoutIsAutoWithLossyBuffer0) {
  Port port(test::cx7_port());
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  EXPECT_FALSE(port.buffers_manual());
  EXPECT_EQ(buffer.total_size, Port::kPortBufferBytes);
  EXPECT_GT(buffer.buffer_size[0], 0u);
  for (int prio = 0; prio < 8; ++prio) EXPECT_EQ(buffer.prio2buffer[prio], 0);
  EXPECT_TRUE(port.buffer_lossy()[0]);
}

// With firmware-owned buffers mainline mlx5 stores the cable length (getpfc echoes it) and never
// sends it to the NIC (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc): the firmware's layout is the same.
TEST(PortBuffer, FirmwareLayoutDoesNotFollowTheCableLength) {
  Port near(test::cx7_port());
  Port far(test::cx7_port());
  for (auto [port, metres] : {std::pair{&near, uint16_t{1}}, std::pair{&far, uint16_t{300}}}) {
    ieee_pfc pfc{};
    pfc.pfc_en = 1 << 3;
    pfc.delay = metres;
    ASSERT_EQ(port->ieee_setpfc(pfc), 0);
    ieee_pfc read{};
    ASSERT_EQ(port->ieee_getpfc(read), 0);
    EXPECT_EQ(read.delay, metres);  // echoed
  }
  dcbnl_buffer a{};
  dcbnl_buffer b{};
  ASSERT_EQ(near.dcbnl_getbuffer(a), 0);
  ASSERT_EQ(far.dcbnl_getbuffer(b), 0);
  EXPECT_FALSE(far.buffers_manual());
  EXPECT_EQ(std::vector<uint32_t>(a.buffer_size, a.buffer_size + 8),
            std::vector<uint32_t>(b.buffer_size, b.buffer_size + 8));
  EXPECT_EQ(near.buffer_xoff(), far.buffer_xoff());
}

TEST(PortBuffer, TooSmallLosslessBufferIsENOMEMAndManualModeStays) {
  Port port(test::cx7_port());
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08)), 0);  // prio 3 lossless on buffer 1 (auto)
  port.advance(std::chrono::seconds(3));                 // carrier back: 400 Gb/s
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  ASSERT_EQ(buffer.prio2buffer[3], 1);
  ASSERT_FALSE(port.buffer_lossy()[1]);
  // xoff = (301 + 216*7/100) * 400 + 272*1500/100 = 130480; + max(9978, 9216) + 128 = 140586.
  buffer.buffer_size[1] = 140544;  // 1098 cells: 42 bytes short
  EXPECT_EQ(port.dcbnl_setbuffer(buffer), -ENOMEM);
  EXPECT_TRUE(port.buffers_manual());
  buffer.buffer_size[1] = 140672;  // 1099 cells
  ASSERT_EQ(port.dcbnl_setbuffer(buffer), 0);
  dcbnl_buffer now{};
  ASSERT_EQ(port.dcbnl_getbuffer(now), 0);
  EXPECT_EQ(now.buffer_size[1], 140672u);
  EXPECT_EQ(port.buffer_xoff()[1], (140672u - 130480u) / 128 * 128);
}

// en_dcbnl.c mlx5e_dcbnl_ieee_setpfc toggles the link, then mlx5e_port_manual_buffer_config
// runs calculate_xoff while the link trains: 40 Gb/s. Only a setpfc that reaches the driver with
// the carrier back recomputes it (xoff != priv->dcbx.xoff); an MTU change does not.
TEST(PortBuffer, XoffAfterAMaskChangeIsAt40GUntilSetpfcAgainWithCarrier) {
  Port port(test::cx7_port());
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08)), 0);
  port.advance(std::chrono::seconds(3));
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  buffer.buffer_size[1] = 393216;
  ASSERT_EQ(port.dcbnl_setbuffer(buffer), 0);  // manual mode, link up: 400G
  ASSERT_TRUE(port.buffers_manual());
  const uint32_t at_400g = port.buffer_xoff()[1];
  EXPECT_EQ(at_400g, (393216u - port.xoff_at(400000)) / 128 * 128);

  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x18)), 0);  // toggles the link: recomputed at 40G
  EXPECT_FALSE(port.carrier());
  const uint32_t at_40g = (393216u - port.xoff_at(40000)) / 128 * 128;
  EXPECT_EQ(port.buffer_xoff()[1], at_40g);
  EXPECT_GT(at_40g, at_400g);  // less headroom above Xoff: drops at 400G

  ASSERT_EQ(port.set_mtu(4200), 0);  // no recompute
  EXPECT_EQ(port.buffer_xoff()[1], at_40g);
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x18)), 0);  // same mask, link still training: 40G
  EXPECT_EQ(port.buffer_xoff()[1], (393216u - port.xoff_at(40000)) / 128 * 128);

  port.advance(std::chrono::seconds(3));
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x18)), 0);  // same mask, carrier back: 400G
  EXPECT_EQ(port.buffer_xoff()[1], (393216u - port.xoff_at(400000)) / 128 * 128);
}

TEST(PortBuffer, LosslessBufferOfSizeZeroIsEINVAL) {
  Port port(test::cx7_port());
  ASSERT_EQ(port.ieee_setpfc(test::pfc_mask(0x08)), 0);
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  buffer.buffer_size[1] = 0;
  EXPECT_EQ(port.dcbnl_setbuffer(buffer), -EINVAL);
}

TEST(PortBuffer, SizesAreRoundedDownToCells) {
  Port port(test::cx7_port());
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  buffer.buffer_size[0] = 100000;  // lossy: any size
  ASSERT_EQ(port.dcbnl_setbuffer(buffer), 0);
  EXPECT_TRUE(port.buffers_manual());
  dcbnl_buffer now{};
  ASSERT_EQ(port.dcbnl_getbuffer(now), 0);
  EXPECT_EQ(now.buffer_size[0], 99968u);
}

TEST(PortBuffer, IdenticalLayoutIsANoOpAndStaysAuto) {
  Port port(test::cx7_port());
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  EXPECT_EQ(port.dcbnl_setbuffer(buffer), 0);
  EXPECT_FALSE(port.buffers_manual());
}

TEST(PortBuffer, ManualModePfcOnAZeroSizedBufferIsENOMEMButTheMaskIsSet) {
  Port port(test::cx7_port());
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  buffer.prio2buffer[3] = 2;  // buffer 2 has size 0
  ASSERT_EQ(port.dcbnl_setbuffer(buffer), 0);
  ASSERT_TRUE(port.buffers_manual());
  EXPECT_EQ(port.ieee_setpfc(test::pfc_mask(0x08)), -ENOMEM);
  EXPECT_EQ(port.pfc_enabled(), 0x08);  // mlx5 set the mask and flapped before the buffer failed
  EXPECT_EQ(port.link_toggles(), 1u);
}

TEST(PortBuffer, PrioMappedBeyondEightBuffersIsEINVAL) {
  Port port(test::cx7_port());
  dcbnl_buffer buffer{};
  ASSERT_EQ(port.dcbnl_getbuffer(buffer), 0);
  buffer.prio2buffer[0] = 8;
  EXPECT_EQ(port.dcbnl_setbuffer(buffer), -EINVAL);
}

TEST(PortBuffer, NotSupportedWithoutCapability) {
  auto spec = test::cx7_port();
  spec.caps.buffers = false;
  Port port(spec);
  dcbnl_buffer buffer{};
  EXPECT_EQ(port.dcbnl_getbuffer(buffer), -EOPNOTSUPP);
  EXPECT_EQ(port.dcbnl_setbuffer(buffer), -EOPNOTSUPP);
}

}  // namespace
}  // namespace roce_sim
