// SPDX-License-Identifier: Apache-2.0
// A FEC_GET reply's attributes as net/ethtool/fec.c fec_fill_reply puts them: the active mode,
// each statistic a u64 array (total, then lanes), or empty when the driver set none.
#include "ethtool/fec.hpp"

#include <gtest/gtest.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <cerrno>
#include <cstdint>
#include <vector>

namespace roced {
namespace {

class FecReply : public testing::Test {
 protected:
  void SetUp() override { message_ = nlmsg_alloc(); }
  void TearDown() override { nlmsg_free(message_); }
  void put_stat(nl_msg* message, int type, const std::vector<uint64_t>& values) {
    nla_put(message, type, static_cast<int>(values.size() * sizeof(uint64_t)), values.data());
  }
  Result<FecState> parse() {
    nlmsghdr* header = nlmsg_hdr(message_);
    return parse_fec_reply(nlmsg_data(header), nlmsg_datalen(header), "lan2");
  }
  nl_msg* message_ = nullptr;
};

TEST_F(FecReply, TotalsAndLanesAreTakenApart) {
  nla_put_u8(message_, ETHTOOL_A_FEC_AUTO, 0);
  nla_put_u32(message_, ETHTOOL_A_FEC_ACTIVE, ETHTOOL_LINK_MODE_FEC_BASER_BIT);
  nlattr* stats = nla_nest_start(message_, ETHTOOL_A_FEC_STATS);
  put_stat(message_, ETHTOOL_A_FEC_STAT_CORRECTED, {30, 10, 20});
  put_stat(message_, ETHTOOL_A_FEC_STAT_UNCORR, {3, 1, 2});
  put_stat(message_, ETHTOOL_A_FEC_STAT_CORR_BITS, {uint64_t{1} << 40});
  nla_nest_end(message_, stats);
  const auto state = parse();
  ASSERT_TRUE(state) << state.error().message;
  EXPECT_EQ(state->active_mode, ETHTOOL_LINK_MODE_FEC_BASER_BIT);
  EXPECT_STREQ(fec_mode_name(*state->active_mode), "baser");
  EXPECT_EQ(state->corrected_blocks, (FecCounter{30, {10, 20}}));
  EXPECT_EQ(state->uncorrectable_blocks, (FecCounter{3, {1, 2}}));
  EXPECT_EQ(state->corrected_bits, (FecCounter{uint64_t{1} << 40, {}}));
}

// fec_stats_recalc leaves cnt 0 when the driver set nothing (mlx5 without the PPCNT statistical
// group): the attribute is there and empty, which is no count, not a zero.
TEST_F(FecReply, AnEmptyStatisticIsNoCountAndNoActiveModeIsNone) {
  nlattr* stats = nla_nest_start(message_, ETHTOOL_A_FEC_STATS);
  put_stat(message_, ETHTOOL_A_FEC_STAT_CORRECTED, {});
  put_stat(message_, ETHTOOL_A_FEC_STAT_UNCORR, {});
  put_stat(message_, ETHTOOL_A_FEC_STAT_CORR_BITS, {});
  nla_nest_end(message_, stats);
  const auto state = parse();
  ASSERT_TRUE(state) << state.error().message;
  EXPECT_EQ(*state, FecState{});
}

TEST_F(FecReply, AStatisticOfPartWordsIsMalformed) {
  nlattr* stats = nla_nest_start(message_, ETHTOOL_A_FEC_STATS);
  const uint32_t half = 7;
  nla_put(message_, ETHTOOL_A_FEC_STAT_UNCORR, sizeof half, &half);
  nla_nest_end(message_, stats);
  const auto state = parse();
  ASSERT_FALSE(state);
  EXPECT_EQ(state.error().code, EBADMSG);
  EXPECT_NE(state.error().message.find("lan2"), std::string::npos);
}

TEST(FecMode, OnlyFecLinkModesHaveNames) {
  EXPECT_STREQ(fec_mode_name(ETHTOOL_LINK_MODE_FEC_RS_BIT), "rs");
  EXPECT_STREQ(fec_mode_name(ETHTOOL_LINK_MODE_FEC_NONE_BIT), "off");
  EXPECT_STREQ(fec_mode_name(ETHTOOL_LINK_MODE_FEC_LLRS_BIT), "llrs");
  EXPECT_STREQ(fec_mode_name(ETHTOOL_LINK_MODE_100000baseSR4_Full_BIT), "");
}

}  // namespace
}  // namespace roced
