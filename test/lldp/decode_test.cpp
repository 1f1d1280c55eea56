// SPDX-License-Identifier: Apache-2.0
// The LLDP decoder against tcpdump: its test suite's captures with its own decode of them, and
// frames the simulated switch builds (DSCP application entries, CEE, maximum frame size: what
// those captures lack) decoded by the tcpdump installed here.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "lldp/lldpdu.hpp"
#include "sim/model/switch_peer.hpp"
#include "test/lldp/pcap.hpp"
#include "test/lldp/tcpdump_view.hpp"
#include "test/support/build_paths.hpp"

namespace roced::lldp {
namespace {

const std::filesystem::path kData = ROCED_LLDP_DATA;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<test::TcpdumpPacket> run_tcpdump(const std::filesystem::path& pcap) {
  const std::string command = "tcpdump -n -vv -r '" + pcap.string() + "' 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string text;
  char buffer[4096];
  while (const size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
  const int status = ::pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "tcpdump (installed by scripts/setup.sh) failed on " << pcap;
  return test::parse_tcpdump(text);
}

std::array<int, 8> ints(const std::array<uint8_t, 8>& values) {
  std::array<int, 8> out{};
  for (size_t i = 0; i < 8; ++i) out[i] = values[i];
  return out;
}

// Every field tcpdump printed is what roced decoded.
void expect_same(const test::TcpdumpPacket& theirs, const Decoded& ours, size_t index) {
  SCOPED_TRACE("packet " + std::to_string(index + 1) + (ours.lldpdu ? "" : ": " + ours.error));
  if (!theirs.lldp) {
    EXPECT_FALSE(ours.lldpdu);
    EXPECT_EQ(ours.reason, DropReason::NotLldp);
    return;
  }
  ASSERT_TRUE(ours.lldpdu);
  const Lldpdu& l = *ours.lldpdu;
  if (!theirs.chassis_mac.empty()) {
    EXPECT_EQ(l.chassis_id, theirs.chassis_mac);
  }
  if (theirs.ttl) {
    EXPECT_EQ(l.ttl, *theirs.ttl);
  }
  EXPECT_EQ(l.system_name, theirs.system_name);
  EXPECT_EQ(l.pfc.has_value(), theirs.pfc_mask.has_value());
  if (l.pfc && theirs.pfc_mask) {
    EXPECT_EQ(l.pfc->enabled_mask, *theirs.pfc_mask);
    EXPECT_EQ(l.pfc->willing, *theirs.pfc_willing == 1);
    EXPECT_EQ(l.pfc->mbc, *theirs.pfc_mbc == 1);
    EXPECT_EQ(l.pfc->cap, *theirs.pfc_cap);
  }
  // ETS tables in print order: configuration (priority, bandwidth, TSA), then recommendation.
  std::vector<std::array<int, 8>> rows;
  for (const auto* ets :
       {l.ets ? &*l.ets : nullptr, l.ets_recommendation ? &*l.ets_recommendation : nullptr}) {
    if (ets == nullptr) continue;
    rows.push_back(ints(ets->prio_tc));
    rows.push_back(ints(ets->tc_bw));
    rows.push_back(ints(ets->tsa));
  }
  EXPECT_EQ(rows, theirs.ets_rows);
  if (l.ets && theirs.ets_willing) {
    EXPECT_EQ(l.ets->willing, *theirs.ets_willing == 1);
    EXPECT_EQ(l.ets->cbs, *theirs.ets_cbs == 1);
    EXPECT_EQ(l.ets->max_tcs, *theirs.ets_max_tcs);
  }
  const size_t app_count = l.app ? l.app->size() : 0;
  ASSERT_EQ(app_count, theirs.apps.size());
  for (size_t i = 0; i < app_count; ++i) {
    EXPECT_EQ((*l.app)[i].priority, theirs.apps[i].priority);
    EXPECT_EQ((*l.app)[i].selector, theirs.apps[i].selector);
    EXPECT_EQ((*l.app)[i].protocol, theirs.apps[i].protocol);
  }
  EXPECT_EQ(l.max_frame_size.has_value(), theirs.max_frame_size.has_value());
  if (l.max_frame_size && theirs.max_frame_size) {
    EXPECT_EQ(*l.max_frame_size, *theirs.max_frame_size);
  }
  const bool cee_pfc = l.cee && l.cee->pfc;
  EXPECT_EQ(cee_pfc, theirs.cee_pfc_mask.has_value());
  if (cee_pfc && theirs.cee_pfc_mask) {
    EXPECT_EQ(l.cee->pfc->enabled_mask, *theirs.cee_pfc_mask);
    EXPECT_EQ(l.cee->pfc->feature.enabled, theirs.cee_enable == 1);
    EXPECT_EQ(l.cee->pfc->feature.willing, theirs.cee_willing == 1);
  }
  const bool cee_pg = l.cee && l.cee->priority_groups;
  EXPECT_EQ(cee_pg, theirs.cee_pg);
  if (cee_pg) {
    EXPECT_EQ(ints(l.cee->priority_groups->prio_pg), theirs.cee_pgid);
    EXPECT_EQ(ints(l.cee->priority_groups->pg_bw), theirs.cee_pg_percent);
  }
}

void expect_capture_matches(const std::string& capture, const std::string& decode) {
  const auto frames = test::read_pcap(kData / capture);
  const auto packets = test::parse_tcpdump(read_text(kData / decode));
  ASSERT_EQ(frames.size(), packets.size()) << capture;
  size_t lldp = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    expect_same(packets[i], decode_frame(frames[i]), i);
    lldp += packets[i].lldp ? 1 : 0;
  }
  EXPECT_GT(lldp, 0u) << capture << " holds no LLDP frame";
}

TEST(TcpdumpCaptures, PfcFramesDecodeAsTcpdumpDecodedThem) {
  expect_capture_matches("dcb_pfc.pcap", "dcb_pfc.out");
}
TEST(TcpdumpCaptures, EtsFramesDecodeAsTcpdumpDecodedThem) {
  expect_capture_matches("dcb_ets.pcap", "dcb_ets.out");
}
TEST(TcpdumpCaptures, FabricSwitchFrameDecodesAsTcpdumpDecodedIt) {
  expect_capture_matches("lldp-app-priority.pcap", "lldp-app-priority.out");
}
TEST(TcpdumpCaptures, OrdinaryNeighboursAndCdpDecodeAsTcpdumpDecodedThem) {
  expect_capture_matches("LLDP_and_CDP.pcap", "lldp_cdp-ev.out");
}

TEST(TcpdumpCaptures, PfcOnTwoFourFiveWithCapabilityFour) {
  const auto frames = test::read_pcap(kData / "dcb_pfc.pcap");
  const Decoded d = decode_frame(frames.at(1));
  ASSERT_TRUE(d.lldpdu) << d.error;
  EXPECT_EQ(d.lldpdu->chassis_id, "08:00:27:42:ba:59");
  EXPECT_EQ(d.lldpdu->ttl, 120);
  ASSERT_TRUE(d.lldpdu->pfc);
  EXPECT_EQ(d.lldpdu->pfc->enabled_mask, 0x34);
  EXPECT_EQ(d.lldpdu->pfc->cap, 4);
  EXPECT_FALSE(d.lldpdu->pfc->willing);
  EXPECT_TRUE(d.lldpdu->has_dcbx());
}

TEST(TcpdumpCaptures, FabricSwitchNamesItselfAndItsPort) {
  const Decoded d = decode_frame(test::read_pcap(kData / "lldp-app-priority.pcap").at(0));
  ASSERT_TRUE(d.lldpdu) << d.error;
  EXPECT_EQ(d.lldpdu->system_name, "leaf0b");
  EXPECT_EQ(d.lldpdu->port_id, "leaf0b-eth10");
  EXPECT_EQ(d.lldpdu->port_id_subtype, 5);
  EXPECT_EQ(d.lldpdu->port_description, "Big Cloud Fabric Switch Port leaf0b-eth10");
  ASSERT_TRUE(d.lldpdu->pfc);
  EXPECT_EQ(d.lldpdu->pfc->enabled_mask, 1u << 4);
  ASSERT_TRUE(d.lldpdu->app);
  ASSERT_EQ(d.lldpdu->app->size(), 1u);
  EXPECT_EQ((*d.lldpdu->app)[0], (dcb::AppEntry{4, 4, 3260}));
  EXPECT_EQ(d.lldpdu->unknown_tlvs, 4u);  // Big Switch's own (OUI 00-26-E1)
}

// Captures that once made tcpdump read out of bounds or loop: each is dropped with a reason or
// decoded, and the sanitizer builds run this too.
TEST(HostileCaptures, AreDroppedWithTheirReason) {
  struct Case {
    const char* capture;
    std::optional<DropReason> first;  // the first frame's fate; nullopt: decoded
  };
  for (const Case& c : {Case{"lldp_8023_mtu-oobr.pcap", DropReason::Malformed},
                        Case{"lldp_asan.pcap", DropReason::Malformed},
                        Case{"lldp_mgmt_addr_tlv_asan.pcap", DropReason::Malformed},
                        Case{"lldp-infinite-loop-1.pcap", std::nullopt},
                        Case{"lldp-infinite-loop-2.pcap", std::nullopt}}) {
    SCOPED_TRACE(c.capture);
    const auto frames = test::read_pcap(kData / c.capture);
    ASSERT_FALSE(frames.empty());
    const Decoded first = decode_frame(frames[0]);
    if (c.first) {
      EXPECT_FALSE(first.lldpdu);
      EXPECT_EQ(first.reason, *c.first) << first.error;
      EXPECT_FALSE(first.error.empty());
    } else {
      EXPECT_TRUE(first.lldpdu) << first.error;
    }
    for (const auto& frame : frames) {
      const Decoded d = decode_frame(frame);
      EXPECT_TRUE(d.lldpdu || !d.error.empty());
    }
  }
}

roce_sim::SwitchPeer ieee_switch() {
  roce_sim::SwitchPeer peer;
  peer.system_name = "leaf7";
  peer.port = "Ethernet1/7";
  peer.pfc = 1u << 3;
  peer.pfc_willing = true;
  peer.dscp = {{26, 3}, {48, 6}, {0, 0}};
  peer.udp_ports = {{4791, 3}};  // RoCE v2 by its UDP port (selector 3)
  peer.ets = roce_sim::SwitchEts{
      false, {0, 0, 0, 3, 0, 0, 6, 0}, {50, 0, 0, 40, 0, 0, 10, 0}, {2, 0, 0, 2, 0, 0, 2, 0}};
  peer.max_frame_size = 9216;
  return peer;
}

roce_sim::SwitchPeer cee_switch() {
  roce_sim::SwitchPeer peer = ieee_switch();
  peer.dcbx = roce_sim::SwitchDcbx::Cee;
  peer.pfc = (1u << 3) | (1u << 4);
  return peer;
}

TEST(BuiltFrames, TcpdumpReadsWhatTheDecoderReads) {
  const std::vector<std::vector<uint8_t>> frames = {
      roce_sim::lldp_frame(ieee_switch(), "0c:42:a1:00:00:07"),
      roce_sim::lldp_frame(cee_switch(), "0c:42:a1:00:00:07"),
      roce_sim::lldp_frame(roce_sim::SwitchPeer{}, "0c:42:a1:00:00:07", 0),
  };
  const auto dir = std::filesystem::path(::testing::TempDir()) / "lldp_built";
  std::filesystem::create_directories(dir);
  test::write_pcap(dir / "built.pcap", frames);
  const auto packets = run_tcpdump(dir / "built.pcap");
  ASSERT_EQ(packets.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) expect_same(packets[i], decode_frame(frames[i]), i);
  EXPECT_EQ(packets[0].apps.size(), 4u);
  EXPECT_EQ(packets[0].max_frame_size, 9216);
  EXPECT_EQ(packets[1].cee_pfc_mask, 0x18);
  EXPECT_EQ(packets[2].ttl, 0);
}

TEST(BuiltFrames, DscpEntriesCeeAndFrameSizeDecode) {
  const Decoded ieee = decode_frame(roce_sim::lldp_frame(ieee_switch(), "0c:42:a1:00:00:07"));
  ASSERT_TRUE(ieee.lldpdu) << ieee.error;
  EXPECT_EQ(ieee.lldpdu->source, (std::array<uint8_t, 6>{0x0c, 0x42, 0xa1, 0, 0, 7}));
  EXPECT_EQ(ieee.lldpdu->system_name, "leaf7");
  EXPECT_EQ(ieee.lldpdu->port_id, "Ethernet1/7");
  ASSERT_TRUE(ieee.lldpdu->app);
  EXPECT_EQ((*ieee.lldpdu->app)[0], (dcb::AppEntry{5, 3, 26}));
  ASSERT_EQ(ieee.lldpdu->app->size(), 4u);
  EXPECT_EQ((*ieee.lldpdu->app)[3], (dcb::AppEntry{3, 3, 4791}));
  EXPECT_EQ(ieee.lldpdu->max_frame_size, 9216);
  ASSERT_TRUE(ieee.lldpdu->ets);
  EXPECT_EQ(ieee.lldpdu->ets->prio_tc[3], 3);
  EXPECT_EQ(ieee.lldpdu->unknown_tlvs, 0u);

  const Decoded cee = decode_frame(roce_sim::lldp_frame(cee_switch(), "0c:42:a1:00:00:07"));
  ASSERT_TRUE(cee.lldpdu) << cee.error;
  ASSERT_TRUE(cee.lldpdu->cee);
  EXPECT_FALSE(cee.lldpdu->pfc);
  ASSERT_TRUE(cee.lldpdu->cee->pfc);
  EXPECT_EQ(cee.lldpdu->cee->pfc->enabled_mask, 0x18);
  EXPECT_TRUE(cee.lldpdu->cee->pfc->feature.willing);
  EXPECT_EQ(cee.lldpdu->cee->sequence, 1u);
  EXPECT_TRUE(cee.lldpdu->has_dcbx());
}

// Every cut of a good frame: nothing is read past it (the sanitizer builds check), and a cut
// inside a TLV is reported as truncated.
TEST(BuiltFrames, EveryTruncationIsSafe) {
  const auto frame = roce_sim::lldp_frame(ieee_switch(), "0c:42:a1:00:00:07");
  for (size_t size = 0; size < frame.size(); ++size) {
    std::vector<uint8_t> cut(frame.begin(), frame.begin() + static_cast<long>(size));
    const Decoded d = decode_frame(cut);
    if (!d.lldpdu) {
      EXPECT_EQ(d.reason, DropReason::Truncated) << size << ": " << d.error;
    }
  }
}

TEST(Decode, MandatoryTlvsComeFirstAndOnce) {
  auto frame = roce_sim::lldp_frame(roce_sim::SwitchPeer{}, "0c:42:a1:00:00:07");
  auto swapped = frame;
  swapped[14] = 0x04;  // chassis ID (type 1) becomes port ID (2) in the first TLV's header
  const Decoded d = decode_frame(swapped);
  EXPECT_FALSE(d.lldpdu);
  EXPECT_EQ(d.reason, DropReason::Malformed);
  EXPECT_NE(d.error.find("chassis ID (1), port ID (2), TTL (3) first"), std::string::npos);
  std::vector<uint8_t> other(frame);
  other[12] = 0x08;
  other[13] = 0x00;
  EXPECT_EQ(decode_frame(other).reason, DropReason::NotLldp);
}

TEST(Decode, TextFromTheWireIsMadePrintable) {
  const std::vector<uint8_t> hostile = {'l', 'e', 'a', 'f', '\n', '"', '}', 0x00, 0xff, '\\'};
  EXPECT_EQ(display_text(hostile), "leaf\\x0a\\x22}\\x00\\xff\\x5c");
  const std::vector<uint8_t> long_name(400, 'a');
  EXPECT_EQ(display_text(long_name).size(), 255u);
}

}  // namespace
}  // namespace roced::lldp
