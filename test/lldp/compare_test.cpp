// SPDX-License-Identifier: Apache-2.0
#include "lldp/compare.hpp"

#include <gtest/gtest.h>

#include "test/support/seen_finding.hpp"

namespace roced::lldp {
namespace {

using test::Seen;
using test::seen;

const Neighbours::TimePoint kNow{std::chrono::seconds(100)};

// The host as roced sets it: DCBX host/IEEE, PFC on 3, DSCP 26 -> 3 and 48 -> 6, MTU 4200.
HostState roced_host() {
  HostState host;
  host.dcbx = dcb::kDcbxHost | dcb::kDcbxVerIeee;
  host.pfc = dcb::Pfc{};
  host.pfc->enabled_mask = 1u << 3;
  host.apps = std::vector<dcb::AppEntry>{{5, 3, 26}, {5, 6, 48}};
  host.ets = dcb::Ets{};
  host.ets->prio_tc = {0, 1, 2, 3, 4, 5, 6, 7};
  host.ets->tc_tx_bw = {50, 0, 0, 50, 0, 0, 0, 0};
  host.ets->tc_tsa.fill(dcb::Tsa::Strict);
  host.ets->tc_tsa[0] = dcb::Tsa::Ets;
  host.ets->tc_tsa[3] = dcb::Tsa::Ets;
  host.mtu = 4200;
  return host;
}

// A switch that agrees with it.
Lldpdu agreeing_switch() {
  Lldpdu l;
  l.chassis_id = "0c:42:a1:00:00:01";
  l.port_id = "Ethernet1/1";
  l.ttl = 120;
  l.pfc = Pfc{false, false, 8, 1u << 3};
  l.app = std::vector<dcb::AppEntry>{{5, 3, 26}, {5, 6, 48}};
  l.ets = Ets{false,
              false,
              0,
              {0, 1, 2, 3, 4, 5, 6, 7},
              {50, 0, 0, 50, 0, 0, 0, 0},
              {0, 0, 0, 0, 0, 0, 0, 0}};
  l.ets->tsa[0] = 2;  // ETS
  l.ets->tsa[3] = 2;
  l.max_frame_size = 9216;
  return l;
}

PeerReport report_for(const Lldpdu& peer, const HostState& host = roced_host()) {
  Neighbours n;
  (void)n.hear(peer, kNow);
  return compare(n, host);
}

TEST(Compare, AnAgreeingSwitchHasNoFinding) {
  const PeerReport r = report_for(agreeing_switch());
  EXPECT_EQ(r.state, PeerState::Compared);
  EXPECT_TRUE(r.findings.empty());
}

TEST(Compare, PfcOnAnotherPriorityIsAMismatchWithBothSides) {
  Lldpdu peer = agreeing_switch();
  peer.pfc->enabled_mask = 1u << 4;
  const PeerReport r = report_for(peer);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(seen(r.findings[0]),
            (Seen{"switch_pfc_priorities", finding::Severity::Critical, "3", "4"}));
}

TEST(Compare, OnlyTheDscpsTheSwitchAdvertisesAreCompared) {
  Lldpdu peer = agreeing_switch();
  peer.app = std::vector<dcb::AppEntry>{{5, 4, 26}, {5, 6, 48}, {4, 1, 3260}};
  const PeerReport r = report_for(peer);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(seen(r.findings[0]),
            (Seen{"switch_dscp_map", finding::Severity::Critical, "dscp 26 -> 3", "dscp 26 -> 4"}));
  HostState pcp = roced_host();
  pcp.apps = std::vector<dcb::AppEntry>{};
  EXPECT_EQ(report_for(agreeing_switch(), pcp).findings.at(0).wanted, "PCP trust (no DSCP map)");
}

TEST(Compare, AMaximumFrameBelowTheMtusFrameIsAMismatch) {
  Lldpdu peer = agreeing_switch();
  peer.max_frame_size = 1518;
  const PeerReport r = report_for(peer);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "switch_max_frame_size");
  EXPECT_EQ(r.findings[0].wanted, "MTU 4200 (frames up to 4218 bytes)");
  EXPECT_EQ(r.findings[0].found, "1518 bytes");
  peer.max_frame_size = 4218;
  EXPECT_TRUE(report_for(peer).findings.empty());
}

TEST(Compare, EtsAndWillingAreNotices) {
  Lldpdu peer = agreeing_switch();
  peer.ets->prio_tc[3] = 2;
  peer.ets->tc_bw = {60, 0, 0, 40, 0, 0, 0, 0};
  peer.pfc->willing = true;
  const PeerReport r = report_for(peer);
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(seen(r.findings[0]),
            (Seen{"switch_ets_priority_tc", finding::Severity::Info, "prio 3 3", "prio 3 2"}));
  EXPECT_EQ(seen(r.findings[1]), (Seen{"switch_ets_bandwidth", finding::Severity::Info,
                                       "tc0 50, tc3 50", "tc0 60, tc3 40"}));
  EXPECT_EQ(r.findings[2].id, "switch_willing");
  EXPECT_EQ(r.findings[2].found, "willing (PFC)");
}

// A DSCP the host has no APP entry for is mapped by the NIC's firmware table (QPDPM), which dcbnl
// does not show: dscp>>3 from the factory, 0 once an entry was deleted (en_dcbnl.c
// mlx5e_dcbnl_ieee_delapp). roced cannot tell, and says so instead of "host -> 0".
TEST(Compare, ADscpWithoutAHostEntryIsCannotTellNotPriorityZero) {
  Lldpdu peer = agreeing_switch();
  peer.app->push_back({5, 3, 24});  // DSCP 24 -> 3 on the switch; the host lists 26 and 48 only
  const PeerReport r = report_for(peer);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "switch_dscp_not_on_host");
  EXPECT_EQ(r.findings[0].severity, finding::Severity::Warning);
  EXPECT_EQ(r.findings[0].verdict, finding::Verdict::CannotTell);
  EXPECT_EQ(r.findings[0].wanted,
            "dscp 24: no APP entry (firmware table: 3 from the factory, 0 if deleted)");
  EXPECT_EQ(r.findings[0].found, "dscp 24 -> 3");
  EXPECT_EQ(r.findings[0].text.find("host dscp 24 -> 0"), std::string::npos);
}

// mlx5e_dcbnl_ieee_getets reports 0 for a TC that is not ETS; a switch may send its own value
// for a strict TC. Bandwidth means something only where both sides run ETS; a TSA that differs
// is a difference of its own.
TEST(Compare, EtsBandwidthOnlyWhereBothAreEtsAndTheTsaIsCompared) {
  Lldpdu peer = agreeing_switch();
  peer.ets->tc_bw = {50, 0, 0, 50, 0, 0, 100, 0};  // tc6 strict on both sides: its bw is no share
  EXPECT_TRUE(report_for(peer).findings.empty());
  peer.ets->tsa[6] = 2;  // the switch runs tc6 as ETS with 100 %, the host strict
  peer.ets->tc_bw = {0, 0, 0, 0, 0, 0, 100, 0};
  peer.ets->tsa[0] = 0;  // and tc0 strict where the host has ETS
  const PeerReport r = report_for(peer);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(seen(r.findings[0]), (Seen{"switch_ets_tsa", finding::Severity::Info,
                                       "tc0 ets, tc6 strict", "tc0 strict, tc6 ets"}));
  EXPECT_EQ(seen(r.findings[1]),
            (Seen{"switch_ets_bandwidth", finding::Severity::Info, "tc3 50", "tc3 0"}));
}

// mlx5e_dcbnl_ieee_setapp takes the DSCP selector only: the host cannot hold a UDP-port entry.
// What it can be compared with is the priority RoCE is lossless on at the host (its PFC).
TEST(Compare, TheSwitchsRoceUdpPortPriorityIsComparedWithTheHostsPfc) {
  Lldpdu peer = agreeing_switch();
  peer.app->push_back({3, 3, 4791});  // RoCE v2 -> priority 3: the host's PFC priority
  peer.app->push_back({3, 5, 53});    // not RoCE: not compared
  EXPECT_TRUE(report_for(peer).findings.empty());
  peer.app->at(2).priority = 4;
  const PeerReport r = report_for(peer);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(seen(r.findings[0]), (Seen{"switch_roce_udp_priority", finding::Severity::Critical,
                                       "PFC on 3", "udp 4791 -> 4"}));
}

// 802.3's maximum frame size counts the whole MAC frame, a tag included; where the host trusts
// PCP its RoCE frames carry one (the priority travels in it).
TEST(Compare, APcpTrustingHostsFramesCarryATag) {
  HostState pcp = roced_host();
  pcp.apps = std::vector<dcb::AppEntry>{};
  Lldpdu peer = agreeing_switch();
  peer.app.reset();
  peer.max_frame_size = 4218;
  const PeerReport r = report_for(peer, pcp);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].id, "switch_max_frame_size");
  EXPECT_EQ(r.findings[0].wanted, "MTU 4200 (802.1Q-tagged frames up to 4222 bytes: PCP trust)");
  peer.max_frame_size = 4222;
  EXPECT_TRUE(report_for(peer, pcp).findings.empty());
}

TEST(Compare, CeeIsComparedWhenThereIsNoIeeeTlv) {
  Lldpdu peer = agreeing_switch();
  peer.pfc.reset();
  peer.ets.reset();
  peer.app.reset();
  peer.cee = Cee{};
  peer.cee->pfc = CeePfc{CeeFeature{0, 0, true, false, false}, (1u << 3) | (1u << 4), 8};
  const PeerReport r = report_for(peer);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(seen(r.findings[0]),
            (Seen{"switch_pfc_priorities", finding::Severity::Critical, "3", "3,4"}));
  peer.cee->pfc->feature.enabled = false;  // a disabled feature advertises nothing
  EXPECT_TRUE(report_for(peer).findings.empty());
}

TEST(Compare, NoPeerNoDcbxAndFirmwareModeAreStatesNotMismatches) {
  EXPECT_EQ(compare(Neighbours{}, roced_host()).state, PeerState::NoPeer);
  Lldpdu plain = agreeing_switch();
  plain.pfc.reset();
  plain.ets.reset();
  plain.app.reset();
  const PeerReport no_dcbx = report_for(plain);
  EXPECT_EQ(no_dcbx.state, PeerState::NoDcbx);
  EXPECT_TRUE(no_dcbx.findings.empty());
  HostState firmware = roced_host();
  firmware.dcbx = dcb::kDcbxVerIeee;  // no host bit: the NIC's agent answers the switch
  Lldpdu disagreeing = agreeing_switch();
  disagreeing.pfc->enabled_mask = 1u << 4;
  const PeerReport fw = report_for(disagreeing, firmware);
  EXPECT_EQ(fw.state, PeerState::FirmwareDcbx);
  EXPECT_TRUE(fw.findings.empty());
}

TEST(Compare, WhatTheHostCouldNotReadIsNotCompared) {
  Lldpdu peer = agreeing_switch();
  peer.pfc->enabled_mask = 1u << 4;
  peer.max_frame_size = 1500;
  EXPECT_TRUE(report_for(peer, HostState{}).findings.empty());
}

TEST(Compare, PriorityLists) {
  EXPECT_EQ(priority_list(0), "none");
  EXPECT_EQ(priority_list(0x18), "3,4");
}

}  // namespace
}  // namespace roced::lldp
