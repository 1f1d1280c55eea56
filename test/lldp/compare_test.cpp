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
  l.ets = Ets{false, false, 0, {0, 1, 2, 3, 4, 5, 6, 7}, {50, 0, 0, 50, 0, 0, 0, 0}, {}};
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
