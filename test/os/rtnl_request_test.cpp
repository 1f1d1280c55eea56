// SPDX-License-Identifier: Apache-2.0
// rtnl_request against an in-process fake kernel: framing, sequence matching, errors, timeouts.
#include "os/rtnl_request.hpp"

#include <gtest/gtest.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <functional>

#include "link/link.hpp"
#include "test/support/wire.hpp"

namespace roced {
namespace {

using testing::concat;
using testing::FakeKernel;
using testing::FakeNetlinkSocket;
using testing::Wire;

constexpr uint32_t kPid = FakeKernel::kPortId;

std::vector<uint8_t> link_message(uint32_t seq, int ifindex, const std::string& name, uint32_t mtu,
                                  uint16_t flags = NLM_F_MULTI) {
  Wire w;
  ifinfomsg info{};
  info.ifi_index = ifindex;
  info.ifi_flags = IFF_UP | IFF_LOWER_UP;
  w.begin_message(RTM_NEWLINK, flags, seq, kPid).raw(&info, sizeof(info));
  w.attr_str(IFLA_IFNAME, name).attr_u32(IFLA_MTU, mtu);
  return w.end_message().bytes;
}

NlMsgPtr getlink_dump() {
  ifinfomsg header{};
  return new_request(RTM_GETLINK, NLM_F_DUMP, &header, sizeof(header));
}

NlMsgPtr getlink_one() {
  ifinfomsg header{};
  NlMsgPtr msg = new_request(RTM_GETLINK, 0, &header, sizeof(header));
  nla_put_string(msg.get(), IFLA_IFNAME, "lan2");
  return msg;
}

TEST(RtnlRequest, DumpWithSeveralMessagesAndDoneInOneDatagram) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    return std::vector<std::vector<uint8_t>>{
        concat({link_message(req.nlmsg_seq, 1, "lo", 65536),
                link_message(req.nlmsg_seq, 7, "lan2", 1500), Wire::done(req.nlmsg_seq, kPid)})};
  };
  FakeNetlinkSocket socket(kernel);
  NlMsgPtr request = getlink_dump();
  auto replies = rtnl_request(socket, request.get(), "dump");
  ASSERT_TRUE(replies.ok()) << replies.error().message;
  ASSERT_EQ(replies->size(), 2u);
  EXPECT_EQ(replies->at(0).type(), RTM_NEWLINK);
  EXPECT_EQ(reinterpret_cast<const ifinfomsg*>(NLMSG_DATA(replies->at(1).header()))->ifi_index, 7);
  // A dump asks for no ACK; the request carries this socket's port id.
  const auto* sent = reinterpret_cast<const nlmsghdr*>(kernel.sent.at(0).data());
  EXPECT_EQ(sent->nlmsg_flags & NLM_F_ACK, 0);
  EXPECT_EQ(sent->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
  EXPECT_EQ(sent->nlmsg_pid, kPid);
}

TEST(RtnlRequest, DumpSpreadOverDatagrams) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    return std::vector<std::vector<uint8_t>>{
        link_message(req.nlmsg_seq, 1, "lo", 65536),
        concat({link_message(req.nlmsg_seq, 2, "lan2", 1500), Wire::done(req.nlmsg_seq, kPid)})};
  };
  FakeNetlinkSocket socket(kernel);
  NlMsgPtr request = getlink_dump();
  auto replies = rtnl_request(socket, request.get(), "dump");
  ASSERT_TRUE(replies.ok()) << replies.error().message;
  EXPECT_EQ(replies->size(), 2u);
}

TEST(RtnlRequest, StaleAckOfAnEarlierRequestIsSkipped) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    // What dcb(8) leaves behind: the ACK of an earlier GET, then our answer.
    return std::vector<std::vector<uint8_t>>{
        Wire::error(req.nlmsg_seq - 1, kPid, 0),
        concat({link_message(req.nlmsg_seq - 1, 9, "stale", 1),
                link_message(req.nlmsg_seq, 7, "lan2", 1500, 0),
                Wire::error(req.nlmsg_seq, kPid, 0)})};
  };
  FakeNetlinkSocket socket(kernel);
  NlMsgPtr request = getlink_one();
  auto replies = rtnl_request(socket, request.get(), "get");
  ASSERT_TRUE(replies.ok()) << replies.error().message;
  ASSERT_EQ(replies->size(), 1u);
  EXPECT_EQ(reinterpret_cast<const ifinfomsg*>(NLMSG_DATA(replies->at(0).header()))->ifi_index, 7);
  const auto* sent = reinterpret_cast<const nlmsghdr*>(kernel.sent.at(0).data());
  EXPECT_EQ(sent->nlmsg_flags & NLM_F_ACK, NLM_F_ACK) << "a do-request is always acknowledged";
  EXPECT_TRUE(kernel.pending.empty()) << "the ACK was consumed, nothing left for the next request";
}

TEST(RtnlRequest, NlmsgErrorBecomesErrno) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    return std::vector<std::vector<uint8_t>>{Wire::error(req.nlmsg_seq, kPid, -EBUSY)};
  };
  FakeNetlinkSocket socket(kernel);
  NlMsgPtr request = getlink_one();
  auto replies = rtnl_request(socket, request.get(), "lan2: RTM_GETLINK");
  ASSERT_FALSE(replies.ok());
  EXPECT_EQ(replies.error().code, EBUSY);
  EXPECT_EQ(replies.error().message, "lan2: RTM_GETLINK: " + std::string(std::strerror(EBUSY)));
}

// getlink_one() sent as "lan2: set MTU" to a kernel whose one answer `answer` writes, given the
// request's sequence number.
auto request_answered_by(const std::function<void(Wire&, uint32_t seq)>& answer) {
  FakeKernel kernel;
  kernel.respond = [&](const nlmsghdr& req) {
    Wire w;
    answer(w, req.nlmsg_seq);
    return std::vector<std::vector<uint8_t>>{w.bytes};
  };
  FakeNetlinkSocket socket(kernel);
  NlMsgPtr request = getlink_one();
  return rtnl_request(socket, request.get(), "lan2: set MTU");
}

TEST(RtnlRequest, ExtendedAckMessageIsAppended) {
  auto replies = request_answered_by([](Wire& w, uint32_t seq) {
    w.begin_message(NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, seq, kPid).i32(-EINVAL);
    w.u32(16).u16(RTM_NEWLINK).u16(0).u32(seq).u32(kPid);
    w.attr_str(NLMSGERR_ATTR_MSG, "MTU greater than device maximum").end_message();
  });
  ASSERT_FALSE(replies.ok());
  EXPECT_EQ(replies.error().code, EINVAL);
  EXPECT_NE(replies.error().message.find(": MTU greater than device maximum"), std::string::npos)
      << replies.error().message;
}

// A reply that sets NLM_F_ACK_TLVS but ends after the error code has no echoed request to read:
// reading one ran past the datagram (ASan: heap-buffer-overflow in extack_message).
TEST(RtnlRequest, AnExtendedAckFlagOnATruncatedErrorReadsNothingBeyondIt) {
  for (uint16_t flags : {uint16_t{NLM_F_ACK_TLVS}, uint16_t{NLM_F_ACK_TLVS | NLM_F_CAPPED}}) {
    auto replies = request_answered_by([flags](Wire& w, uint32_t seq) {
      w.begin_message(NLMSG_ERROR, flags, seq, kPid).i32(-EINVAL).end_message();
    });
    ASSERT_FALSE(replies.ok());
    EXPECT_EQ(replies.error().code, EINVAL);
    EXPECT_EQ(replies.error().message, "lan2: set MTU: " + std::string(std::strerror(EINVAL)));
  }
}

// An uncapped error whose echoed header claims less than a header is malformed: no reason.
TEST(RtnlRequest, AnEchoShorterThanAHeaderYieldsNoReason) {
  auto replies = request_answered_by([](Wire& w, uint32_t seq) {
    w.begin_message(NLMSG_ERROR, NLM_F_ACK_TLVS, seq, kPid).i32(-EINVAL);
    w.u32(4).u16(RTM_NEWLINK).u16(0).u32(seq).u32(kPid);
    w.attr_str(NLMSGERR_ATTR_MSG, "never read").end_message();
  });
  ASSERT_FALSE(replies.ok());
  EXPECT_EQ(replies.error().message, "lan2: set MTU: " + std::string(std::strerror(EINVAL)));
}

TEST(RtnlRequest, NoAnswerIsATimeout) {
  FakeKernel kernel;  // answers nothing
  FakeNetlinkSocket socket(kernel);
  NlMsgPtr request = getlink_one();
  auto replies =
      rtnl_request(socket, request.get(), "lan2: RTM_GETLINK", std::chrono::milliseconds(50));
  ASSERT_FALSE(replies.ok());
  EXPECT_EQ(replies.error().code, ETIMEDOUT);
}

TEST(RtnlRequest, ReplyWithoutAckWaitsForTheAck) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    return std::vector<std::vector<uint8_t>>{link_message(req.nlmsg_seq, 7, "lan2", 1500, 0)};
  };
  FakeNetlinkSocket socket(kernel);
  NlMsgPtr request = getlink_one();
  auto replies = rtnl_request(socket, request.get(), "get", std::chrono::milliseconds(50));
  ASSERT_FALSE(replies.ok());
  EXPECT_EQ(replies.error().code, ETIMEDOUT);
}

TEST(RtnlRequest, InterruptedDumpIsRetriedWithAFreshSequence) {
  FakeKernel kernel;
  int calls = 0;
  kernel.respond = [&calls](const nlmsghdr& req) {
    const uint16_t flags = ++calls == 1 ? NLM_F_MULTI | NLM_F_DUMP_INTR : NLM_F_MULTI;
    return std::vector<std::vector<uint8_t>>{concat(
        {link_message(req.nlmsg_seq, 7, "lan2", 1500, flags), Wire::done(req.nlmsg_seq, kPid)})};
  };
  FakeNetlinkSocket socket(kernel);
  NlMsgPtr request = getlink_dump();
  auto replies = rtnl_request(socket, request.get(), "dump");
  ASSERT_TRUE(replies.ok()) << replies.error().message;
  EXPECT_EQ(replies->size(), 1u);
  ASSERT_EQ(kernel.sent.size(), 2u);
  const auto* first = reinterpret_cast<const nlmsghdr*>(kernel.sent[0].data());
  const auto* second = reinterpret_cast<const nlmsghdr*>(kernel.sent[1].data());
  EXPECT_NE(first->nlmsg_seq, second->nlmsg_seq);
}

TEST(RtnlRequest, DoneCarryingAnErrorFailsTheDump) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    Wire w;
    w.begin_message(NLMSG_DONE, NLM_F_MULTI, req.nlmsg_seq, kPid).i32(-EMSGSIZE).end_message();
    return std::vector<std::vector<uint8_t>>{w.bytes};
  };
  FakeNetlinkSocket socket(kernel);
  NlMsgPtr request = getlink_dump();
  auto replies = rtnl_request(socket, request.get(), "dump");
  ASSERT_FALSE(replies.ok());
  EXPECT_EQ(replies.error().code, EMSGSIZE);
}

// Found by fuzz/link_fuzz and fuzz/dcb_fuzz: an error field no kernel sends (INT_MIN overflowed
// when negated; a positive one became a negative errno) is a malformed reply, EPROTO.
TEST(RtnlRequest, ErrorFieldOutsideTheErrnoRangeIsAProtocolError) {
  for (const int32_t bad : {INT32_MIN, -4096, 5}) {
    for (const bool dump : {false, true}) {
      FakeKernel kernel;
      kernel.respond = [&](const nlmsghdr& req) {
        Wire w;
        w.begin_message(dump ? NLMSG_DONE : NLMSG_ERROR, 0, req.nlmsg_seq, kPid).i32(bad);
        return std::vector<std::vector<uint8_t>>{w.end_message().bytes};
      };
      FakeNetlinkSocket socket(kernel);
      NlMsgPtr request = dump ? getlink_dump() : getlink_one();
      auto replies = rtnl_request(socket, request.get(), "lan2");
      if (dump && bad > 0) {  // NLMSG_DONE with a non-negative value ends a dump
        EXPECT_TRUE(replies.ok());
        continue;
      }
      ASSERT_FALSE(replies.ok()) << bad;
      EXPECT_EQ(replies.error().code, EPROTO) << bad << (dump ? " in NLMSG_DONE" : "");
    }
  }
}

// ---- LinkClient over the same fake ----

TEST(LinkClient, ParsesEveryFieldOfAnRtmNewlink) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    Wire w;
    ifinfomsg info{};
    info.ifi_index = 7;
    info.ifi_flags = IFF_UP | IFF_RUNNING | IFF_LOWER_UP;
    const uint8_t mac[6] = {0x0c, 0x42, 0xa1, 0x00, 0x00, 0x02};
    w.begin_message(RTM_NEWLINK, NLM_F_MULTI, req.nlmsg_seq, kPid).raw(&info, sizeof(info));
    w.attr_str(IFLA_IFNAME, "lan2").attr_u32(IFLA_MTU, 9000).attr_u32(IFLA_MIN_MTU, 68);
    w.attr_u32(IFLA_MAX_MTU, 9978).attr_u8(IFLA_OPERSTATE, IF_OPER_UP).attr(IFLA_ADDRESS, mac, 6);
    w.begin_attr(IFLA_LINKINFO).attr_str(IFLA_INFO_KIND, "veth").end_attr();
    w.end_message();
    return std::vector<std::vector<uint8_t>>{concat({w.bytes, Wire::done(req.nlmsg_seq, kPid)})};
  };
  System system = testing::fake_system(kernel);
  auto links = LinkClient(system).list();
  ASSERT_TRUE(links.ok()) << links.error().message;
  ASSERT_EQ(links->size(), 1u);
  const LinkInfo& link = links->front();
  EXPECT_EQ(link.ifindex, 7);
  EXPECT_EQ(link.name, "lan2");
  EXPECT_EQ(link.mtu, 9000u);
  EXPECT_EQ(link.min_mtu, 68u);
  EXPECT_EQ(link.max_mtu, 9978u);
  EXPECT_TRUE(link.admin_up);
  EXPECT_TRUE(link.carrier);
  EXPECT_EQ(operstate_name(link.operstate), "up");
  EXPECT_EQ(link.mac, "0c:42:a1:00:00:02");
  EXPECT_EQ(link.kind, "veth");
}

TEST(LinkClient, SetMtuSendsNewlinkByIndexWithAck) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    if (req.nlmsg_type == RTM_GETLINK) {
      return std::vector<std::vector<uint8_t>>{concat(
          {link_message(req.nlmsg_seq, 7, "lan2", 1500, 0), Wire::error(req.nlmsg_seq, kPid, 0)})};
    }
    return std::vector<std::vector<uint8_t>>{Wire::error(req.nlmsg_seq, kPid, 0)};
  };
  System system = testing::fake_system(kernel);
  auto set = LinkClient(system).set_mtu("lan2", 4200);
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_EQ(kernel.sent.size(), 2u);
  auto& newlink = kernel.sent[1];
  auto* header = reinterpret_cast<nlmsghdr*>(newlink.data());
  EXPECT_EQ(header->nlmsg_type, RTM_NEWLINK);
  EXPECT_EQ(header->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
  EXPECT_EQ(static_cast<ifinfomsg*>(nlmsg_data(header))->ifi_index, 7);
  nlattr* tb[IFLA_MAX + 1] = {};
  ASSERT_EQ(nlmsg_parse(header, sizeof(ifinfomsg), tb, IFLA_MAX, nullptr), 0);
  ASSERT_NE(tb[IFLA_MTU], nullptr);
  EXPECT_EQ(nla_get_u32(tb[IFLA_MTU]), 4200u);
}

TEST(LinkClient, SetAdminDownChangesOnlyIffUp) {
  FakeKernel kernel;
  kernel.respond = [](const nlmsghdr& req) {
    if (req.nlmsg_type == RTM_GETLINK) {
      return std::vector<std::vector<uint8_t>>{concat(
          {link_message(req.nlmsg_seq, 7, "lan2", 1500, 0), Wire::error(req.nlmsg_seq, kPid, 0)})};
    }
    return std::vector<std::vector<uint8_t>>{Wire::error(req.nlmsg_seq, kPid, 0)};
  };
  System system = testing::fake_system(kernel);
  ASSERT_TRUE(LinkClient(system).set_admin_up("lan2", false).ok());
  auto* header = reinterpret_cast<nlmsghdr*>(kernel.sent.at(1).data());
  const auto* info = static_cast<const ifinfomsg*>(nlmsg_data(header));
  EXPECT_EQ(info->ifi_flags, 0u);
  EXPECT_EQ(info->ifi_change, static_cast<unsigned>(IFF_UP));
}

TEST(LinkClient, OperstateNames) {
  EXPECT_EQ(operstate_name(IF_OPER_DOWN), "down");
  EXPECT_EQ(operstate_name(IF_OPER_LOWERLAYERDOWN), "lowerlayerdown");
  EXPECT_EQ(operstate_name(IF_OPER_UNKNOWN), "unknown");
  EXPECT_EQ(operstate_name(42), "operstate 42");
}

}  // namespace
}  // namespace roced
