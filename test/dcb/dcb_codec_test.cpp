// SPDX-License-Identifier: Apache-2.0
// The DCB codec: golden bytes for a SET, a hand-built IEEE_GET reply, and the status-byte rules
// of net/dcb/dcbnl.c (dcb_doit, dcbnl_ieee_set, dcbnl_setdcbx).
#include <gtest/gtest.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include "dcb/client.hpp"
#include "dcb/codec.hpp"
#include "test/support/wire.hpp"

namespace roced::dcb {
namespace {

using testing::concat;
using testing::FakeKernel;
using testing::Wire;

constexpr uint32_t kPid = FakeKernel::kPortId;

// What dcb_doit + dcbnl_ieee_set send back: RTM_SETDCB {dcbmsg, u8 DCB_ATTR_IEEE = (u8)err}, then
// the ACK the request asked for.
std::vector<std::vector<uint8_t>> ieee_set_reply(const nlmsghdr& req, uint8_t cmd, int err) {
  Wire w;
  w.begin_message(RTM_SETDCB, 0, req.nlmsg_seq, kPid).u8(AF_UNSPEC).u8(cmd).u16(0);
  w.attr_u8(DCB_ATTR_IEEE, static_cast<uint8_t>(err)).end_message();
  return {concat({w.bytes, Wire::error(req.nlmsg_seq, kPid, 0)})};
}

TEST(DcbCodec, PfcSetForLan2MatchesHandComputedBytes) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) { return ieee_set_reply(req, DCB_CMD_IEEE_SET, 0); };
  System system = testing::fake_system(kernel);
  Pfc pfc;
  pfc.cap = 8;
  pfc.enabled_mask = 0x08;  // priority 3
  pfc.delay = 7;            // mlx5: cable length in metres
  ASSERT_TRUE(DcbClient(system).set_pfc("lan2", pfc).ok());
  ASSERT_EQ(kernel.sent.size(), 1u);
  std::vector<uint8_t> sent = kernel.sent[0];
  ASSERT_EQ(sent.size(), 176u);
  const uint8_t* seq = sent.data() + 8;  // the sequence number is fresh each time

  std::vector<uint8_t> expected = {
      0xb0,   0x00,   0x00,   0x00,    // nlmsg_len 176
      0x4f,   0x00,                    // RTM_SETDCB (79)
      0x05,   0x00,                    // NLM_F_REQUEST | NLM_F_ACK
      seq[0], seq[1], seq[2], seq[3],  // nlmsg_seq
      0x42,   0x42,   0x00,   0x00,    // nlmsg_pid = the socket's port id
      0x00,   0x14,   0x00,   0x00,    // dcbmsg: AF_UNSPEC, DCB_CMD_IEEE_SET (20), pad
      0x09,   0x00,   0x01,   0x00,    // DCB_ATTR_IFNAME, len 9
      'l',    'a',    'n',    '2',    0x00, 0x00, 0x00, 0x00,  // "lan2\0" + 3 bytes of padding
      0x90,   0x00,   0x0d,   0x80,  // DCB_ATTR_IEEE (13) | NLA_F_NESTED, len 144
      0x8c,   0x00,   0x02,   0x00,  // DCB_ATTR_IEEE_PFC (2), len 140
      0x08,   0x08,   0x00,   0x00,  // pfc_cap 8, pfc_en 0x08, mbc 0, (pad)
      0x07,   0x00,   0x00,   0x00,  // delay 7 at offset 4, (pad to 8)
  };
  expected.resize(176, 0x00);  // requests[8], indications[8]: zero
  EXPECT_EQ(sent, expected);
}

TEST(DcbCodec, AppAddAndDeleteCarryDcbAppEntries) {
  FakeKernel kernel;
  kernel.respond = [&kernel](const nlmsghdr& req) {
    const uint8_t cmd = kernel.sent.back()[NLMSG_HDRLEN + 1];
    return ieee_set_reply(req, cmd, 0);
  };
  System system = testing::fake_system(kernel);
  DcbClient client(system);
  const std::vector<AppEntry> apps = {{5, 3, 26}, {5, 6, 48}};
  ASSERT_TRUE(client.add_apps("lan2", apps).ok());
  ASSERT_TRUE(client.delete_apps("lan2", {{5, 3, 26}}).ok());
  ASSERT_EQ(kernel.sent.size(), 2u);
  EXPECT_EQ(kernel.sent[0][NLMSG_HDRLEN + 1], DCB_CMD_IEEE_SET);
  EXPECT_EQ(kernel.sent[1][NLMSG_HDRLEN + 1], DCB_CMD_IEEE_DEL);

  // IFNAME (12) + IEEE nest header (4) + APP_TABLE nest header (4), then the entries.
  const size_t first_entry = NLMSG_HDRLEN + 4 + 12 + 4 + 4;
  const std::vector<uint8_t> entries(kernel.sent[0].begin() + first_entry, kernel.sent[0].end());
  const std::vector<uint8_t> expected = {
      0x08, 0x00, 0x01, 0x00, 0x05, 0x03, 0x1a, 0x00,  // DCB_ATTR_IEEE_APP {DSCP, prio 3, 26}
      0x08, 0x00, 0x01, 0x00, 0x05, 0x06, 0x30, 0x00,  // DCB_ATTR_IEEE_APP {DSCP, prio 6, 48}
  };
  EXPECT_EQ(entries, expected);
}

// Hand-built reply in dcbnl_ieee_fill's order, with an attribute newer than our headers.
std::vector<uint8_t> captured_ieee_get_reply(uint32_t seq) {
  Wire w;
  w.begin_message(RTM_GETDCB, 0, seq, kPid).u8(AF_UNSPEC).u8(DCB_CMD_IEEE_GET).u16(0);
  w.attr_str(DCB_ATTR_IFNAME, "lan2");
  w.begin_attr(DCB_ATTR_IEEE | NLA_F_NESTED);
  {  // ETS: willing 0, ets_cap 8, cbs 0, tc_tx_bw, tc_rx_bw, tc_tsa, prio_tc, reco_*
    w.begin_attr(DCB_ATTR_IEEE_ETS).u8(0).u8(8).u8(0);
    const uint8_t tx_bw[8] = {50, 50, 0, 0, 0, 0, 0, 0};
    w.raw(tx_bw, 8).zeros(8);
    const uint8_t tsa[8] = {2, 2, 0, 0, 0, 0, 0, 0};
    w.raw(tsa, 8);
    const uint8_t prio_tc[8] = {1, 0, 2, 3, 4, 5, 6, 7};
    w.raw(prio_tc, 8).zeros(24).end_attr();
  }
  {  // MAXRATE: TC 1 limited to 10 Gbit/s
    w.begin_attr(DCB_ATTR_IEEE_MAXRATE).u64(0).u64(10'000'000).zeros(48).end_attr();
  }
  {  // PFC: cap 8, en 0x08, mbc 0, delay 7, requests[3] = 5, indications[3] = 9
    w.begin_attr(DCB_ATTR_IEEE_PFC).u8(8).u8(0x08).u8(0).u8(0).u16(7).u16(0);
    w.zeros(3 * 8).u64(5).zeros(4 * 8).zeros(3 * 8).u64(9).zeros(4 * 8).end_attr();
  }
  {  // BUFFER: prio 3 -> buffer 1; sizes; total
    w.begin_attr(DCB_ATTR_DCB_BUFFER);
    const uint8_t prio2buffer[8] = {0, 0, 0, 1, 0, 0, 0, 0};
    w.raw(prio2buffer, 8).u32(130'944).u32(261'888).zeros(6 * 4).u32(1'048'576).end_attr();
  }
  {  // APP_TABLE: DSCP 26 -> 3, DSCP 48 -> 6
    w.begin_attr(DCB_ATTR_IEEE_APP_TABLE | NLA_F_NESTED);
    w.begin_attr(DCB_ATTR_IEEE_APP).u8(5).u8(3).u16(26).end_attr();
    w.begin_attr(DCB_ATTR_IEEE_APP).u8(5).u8(6).u16(48).end_attr();
    w.end_attr();
  }
  w.begin_attr(11 /* DCB_ATTR_DCB_APP_TRUST_TABLE, kernel 6.2+ */ | NLA_F_NESTED).end_attr();
  w.end_attr();
  w.attr_u8(DCB_ATTR_DCBX, kDcbxHost | kDcbxVerIeee);
  return w.end_message().bytes;
}

TEST(DcbCodec, DecodesAHandBuiltIeeeGetReply) {
  NlMessage reply(captured_ieee_get_reply(1));
  auto state = parse_ieee_get(reply);
  ASSERT_TRUE(state.ok()) << state.error().message;
  ASSERT_TRUE(state->ets.has_value());
  EXPECT_EQ(state->ets->ets_cap, 8);
  EXPECT_EQ(state->ets->tc_tx_bw[0], 50);
  EXPECT_EQ(state->ets->tc_tsa[1], Tsa::Ets);
  EXPECT_EQ(state->ets->tc_tsa[2], Tsa::Strict);
  EXPECT_EQ(state->ets->prio_tc, (std::array<uint8_t, 8>{1, 0, 2, 3, 4, 5, 6, 7}));
  ASSERT_TRUE(state->maxrate.has_value());
  EXPECT_EQ(state->maxrate->tc_kbps[1], 10'000'000u);
  ASSERT_TRUE(state->pfc.has_value());
  EXPECT_EQ(state->pfc->enabled_mask, 0x08);
  EXPECT_EQ(state->pfc->delay, 7);
  EXPECT_EQ(state->pfc->requests[3], 5u);
  EXPECT_EQ(state->pfc->indications[3], 9u);
  ASSERT_TRUE(state->buffer.has_value());
  EXPECT_EQ(state->buffer->prio2buffer[3], 1);
  EXPECT_EQ(state->buffer->buffer_size[1], 261'888u);
  EXPECT_EQ(state->buffer->total_size, 1'048'576u);
  EXPECT_EQ(state->apps, (std::vector<AppEntry>{{5, 3, 26}, {5, 6, 48}}));
  ASSERT_TRUE(state->dcbx.has_value());
  EXPECT_EQ(*state->dcbx, kDcbxHost | kDcbxVerIeee);
}

TEST(DcbCodec, EncodeDecodeRoundTripPerObject) {
  Ets ets;
  ets.ets_cap = 8;
  ets.tc_tx_bw = {10, 20, 30, 40, 0, 0, 0, 0};
  ets.tc_tsa = {Tsa::Ets,    Tsa::Ets,    Tsa::Ets,    Tsa::Ets,
                Tsa::Strict, Tsa::Strict, Tsa::Vendor, Tsa::Vendor};
  ets.prio_tc = {0, 1, 2, 3, 4, 5, 6, 7};
  Maxrate rate;
  rate.tc_kbps[2] = 25'000'000;
  Buffer buffer;
  buffer.prio2buffer[3] = 1;
  buffer.buffer_size = {1000, 2000, 0, 0, 0, 0, 0, 0};
  buffer.total_size = 3000;
  Pfc pfc;
  pfc.cap = 8;
  pfc.enabled_mask = 0x48;
  pfc.delay = 100;
  const std::vector<AppEntry> apps = {{5, 3, 26}, {1, 4, 0x8906}};

  NlMsgPtr msg = ieee_message(DCB_CMD_IEEE_SET, "lan3", [&](nl_msg* m) {
    put_ets(m, ets);
    put_maxrate(m, rate);
    put_pfc(m, pfc);
    put_buffer(m, buffer);
    put_app_table(m, apps);
  });
  // A request and an IEEE_GET reply share the layout below the family header.
  nlmsg_hdr(msg.get())->nlmsg_type = RTM_GETDCB;
  NlMessage reply(message_bytes(msg.get()));
  auto state = parse_ieee_get(reply);
  ASSERT_TRUE(state.ok()) << state.error().message;
  EXPECT_EQ(state->ets, ets);
  EXPECT_EQ(state->maxrate, rate);
  EXPECT_EQ(state->pfc, pfc);
  EXPECT_EQ(state->buffer, buffer);
  EXPECT_EQ(state->apps, apps);
  EXPECT_FALSE(state->dcbx.has_value());
}

TEST(DcbCodec, WireStructSizesMatchTheKernel) {
  EXPECT_EQ(sizeof(ieee_ets), 59u);
  EXPECT_EQ(sizeof(ieee_pfc), 136u);
  EXPECT_EQ(offsetof(ieee_pfc, delay), 4u);
  EXPECT_EQ(sizeof(dcbnl_buffer), 44u);
  EXPECT_EQ(sizeof(dcb_app), 4u);
}

TEST(DcbClient, StatusByteCarriesTheNegativeErrno) {
  EXPECT_EQ(errno_from_status(static_cast<uint8_t>(-EINVAL)), EINVAL);
  EXPECT_EQ(errno_from_status(static_cast<uint8_t>(-ENOMEM)), ENOMEM);
  EXPECT_EQ(errno_from_status(0), 0);

  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    return ieee_set_reply(req, DCB_CMD_IEEE_SET, -EINVAL);
  };
  System system = testing::fake_system(kernel);
  Ets ets;  // bandwidths sum to 0: mlx5 says -EINVAL, inside the reply, with a successful ACK
  auto set = DcbClient(system).set_ets("lan2", ets);
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().code, EINVAL);
  EXPECT_EQ(set.error().message.rfind("lan2: DCB set ETS", 0), 0u) << set.error().message;
}

TEST(DcbClient, DeviceWithoutDcbnlOpsIsReportedAsUnsupported) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    return std::vector<std::vector<uint8_t>>{Wire::error(req.nlmsg_seq, kPid, -EOPNOTSUPP)};
  };
  System system = testing::fake_system(kernel);
  auto state = DcbClient(system).get("lan2");
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.error().code, EOPNOTSUPP);
  EXPECT_TRUE(state.error().is_unsupported());
  EXPECT_EQ(state.error().message, "lan2: DCB is not supported by this device (EOPNOTSUPP)");
}

TEST(DcbClient, GetDcbxAndSetDcbxStatus) {
  FakeKernel kernel;
  kernel.respond = [&kernel](const nlmsghdr& req) {
    const auto& sent = kernel.sent.back();
    const uint8_t cmd = sent[NLMSG_HDRLEN + 1];
    Wire w;
    w.begin_message(cmd == DCB_CMD_GDCBX ? RTM_GETDCB : RTM_SETDCB, 0, req.nlmsg_seq, kPid);
    w.u8(AF_UNSPEC).u8(cmd).u16(0);
    if (cmd == DCB_CMD_GDCBX) {
      w.attr_u8(DCB_ATTR_DCBX, kDcbxHost | kDcbxVerIeee);
    } else {
      // mlx5e_dcbnl_setdcbx refuses LLD_MANAGED with 1
      nlattr* tb[DCB_ATTR_MAX + 1] = {};
      auto* header = reinterpret_cast<nlmsghdr*>(const_cast<uint8_t*>(sent.data()));
      nlmsg_parse(header, sizeof(dcbmsg), tb, DCB_ATTR_MAX, nullptr);
      w.attr_u8(DCB_ATTR_DCBX, (nla_get_u8(tb[DCB_ATTR_DCBX]) & kDcbxLldManaged) ? 1 : 0);
    }
    w.end_message();
    return std::vector<std::vector<uint8_t>>{
        concat({w.bytes, Wire::error(req.nlmsg_seq, kPid, 0)})};
  };
  System system = testing::fake_system(kernel);
  DcbClient client(system);
  auto mode = client.get_dcbx("lan2");
  ASSERT_TRUE(mode.ok()) << mode.error().message;
  EXPECT_EQ(*mode, kDcbxHost | kDcbxVerIeee);
  EXPECT_TRUE(client.set_dcbx("lan2", kDcbxHost | kDcbxVerIeee).ok());
  auto refused = client.set_dcbx("lan2", kDcbxLldManaged | kDcbxVerIeee);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, EINVAL);
}

TEST(DcbTypes, TrustAndDscpMapFollowTheAppTable) {
  EXPECT_EQ(trust_from_apps({}), Trust::Pcp);
  EXPECT_EQ(trust_from_apps({{1, 4, 0x8906}}), Trust::Pcp);
  EXPECT_EQ(trust_from_apps({{1, 4, 0x8906}, {5, 3, 26}}), Trust::Dscp);
  const auto map = dscp_map_from_apps({{5, 3, 26}, {5, 6, 48}, {1, 4, 0x8906}});
  EXPECT_EQ(map[26], 3);
  EXPECT_EQ(map[48], 6);
  EXPECT_EQ(map[0], 0);
  EXPECT_EQ(map[63], 0);
}

TEST(DcbTypes, Names) {
  EXPECT_EQ(tsa_name(Tsa::Strict), "strict");
  EXPECT_EQ(tsa_name(Tsa::Ets), "ets");
  EXPECT_EQ(tsa_name(Tsa::Vendor), "vendor");
  EXPECT_EQ(dcbx_mode_name(0), "firmware (auto)");
  EXPECT_EQ(dcbx_mode_name(kDcbxHost | kDcbxVerIeee), "host ieee");
  EXPECT_EQ(dcbx_mode_name(kDcbxVerCee | kDcbxVerIeee), "cee ieee");
}

}  // namespace
}  // namespace roced::dcb
