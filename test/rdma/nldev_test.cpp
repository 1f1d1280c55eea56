// SPDX-License-Identifier: Apache-2.0
// The RDMA netlink decoders on answers built here: what stat_get_doit_default_counter sends, and
// the malformed, foreign and failed answers a reader must refuse without reading past them.
#include "rdma/nldev.hpp"

#include <gtest/gtest.h>
#include <rdma/rdma_netlink.h>

#include <cstring>
#include <deque>
#include <functional>

#include "os/netlink_message.hpp"

namespace roced::rdma {
namespace {

constexpr uint16_t kStatGet = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);

// Answers each request with what `answer` builds from the request's sequence number.
class FakeRdmaSocket final : public NetlinkSocket {
 public:
  using Answer = std::function<std::vector<uint8_t>(uint32_t seq)>;
  explicit FakeRdmaSocket(Answer answer) : answer_(std::move(answer)) {}
  uint32_t port_id() const override { return 77; }
  Result<void> send(std::span<const uint8_t> datagram) override {
    nlmsghdr header{};
    std::memcpy(&header, datagram.data(), sizeof header);
    queue_.push_back(answer_(header.nlmsg_seq));
    return ok();
  }
  Result<std::vector<uint8_t>> receive(std::chrono::milliseconds) override {
    if (queue_.empty()) return std::vector<uint8_t>{};
    auto datagram = std::move(queue_.front());
    queue_.pop_front();
    return datagram;
  }
  Result<void> join_group(uint32_t) override { return ok(); }
  int fd() const override { return -1; }

 private:
  Answer answer_;
  std::deque<std::vector<uint8_t>> queue_;
};

std::vector<uint8_t> bytes_of(nl_msg* msg) {
  const auto span = message_bytes(msg);
  return {span.begin(), span.end()};
}

std::vector<uint8_t> ack(uint32_t seq, int error) {
  NlMsgPtr msg(nlmsg_alloc_simple(NLMSG_ERROR, 0));
  nlmsg_hdr(msg.get())->nlmsg_seq = seq;
  nlmsgerr err{};
  err.error = error;
  nlmsg_append(msg.get(), &err, sizeof err, NLMSG_ALIGNTO);
  return bytes_of(msg.get());
}

// One answer; `value_bytes` 8 as the kernel sends it, fewer for a malformed one.
std::vector<uint8_t> counters_answer(uint32_t seq, const std::string& device, int value_bytes = 8) {
  NlMsgPtr msg(nlmsg_alloc_simple(kStatGet, 0));
  nlmsg_hdr(msg.get())->nlmsg_seq = seq;
  nla_put_u32(msg.get(), RDMA_NLDEV_ATTR_DEV_INDEX, 0);
  nla_put_string(msg.get(), RDMA_NLDEV_ATTR_DEV_NAME, device.c_str());
  nla_put_u32(msg.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  nlattr* table = nla_nest_start(msg.get(), RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
  for (const auto& [name, value] :
       {std::pair{"np_cnp_sent", uint64_t{1} << 40}, std::pair{"rp_cnp_handled", uint64_t{7}}}) {
    nlattr* entry = nla_nest_start(msg.get(), RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
    nla_put_string(msg.get(), RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
    nla_put(msg.get(), RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, value_bytes, &value);
    nla_nest_end(msg.get(), entry);
  }
  nla_nest_end(msg.get(), table);
  auto out = bytes_of(msg.get());
  const auto acked = ack(seq, 0);
  out.insert(out.end(), acked.begin(), acked.end());
  return out;
}

Result<CounterValues> read_one(FakeRdmaSocket& socket, const std::string& device = "mlx5_0") {
  const std::vector<PortCountersRequest> requests = {{0, device, 1}};
  auto answers = read_port_counters(socket, requests, std::chrono::milliseconds(100));
  EXPECT_EQ(answers.size(), 1u);
  return std::move(answers.at(0));
}

TEST(Nldev, AnAnswerGivesEveryCounterAt64Bits) {
  FakeRdmaSocket socket([](uint32_t seq) { return counters_answer(seq, "mlx5_0"); });
  auto counters = read_one(socket);
  ASSERT_TRUE(counters) << counters.error().message;
  EXPECT_EQ(*counters, (CounterValues{{"np_cnp_sent", uint64_t{1} << 40}, {"rp_cnp_handled", 7}}));
}

TEST(Nldev, AShortValueIsAMalformedAnswer) {
  FakeRdmaSocket socket([](uint32_t seq) { return counters_answer(seq, "mlx5_0", 4); });
  auto counters = read_one(socket);
  ASSERT_FALSE(counters);
  EXPECT_EQ(counters.error().code, EBADMSG);
}

TEST(Nldev, AnAnswerForAnotherDeviceIsStale) {
  FakeRdmaSocket socket([](uint32_t seq) { return counters_answer(seq, "mlx5_3"); });
  auto counters = read_one(socket);
  ASSERT_FALSE(counters);
  EXPECT_EQ(counters.error().code, ESTALE);
  EXPECT_NE(counters.error().message.find("now names mlx5_3"), std::string::npos);
}

TEST(Nldev, TheKernelsErrorIsReturned) {
  FakeRdmaSocket socket([](uint32_t seq) { return ack(seq, -EINVAL); });
  auto counters = read_one(socket);
  ASSERT_FALSE(counters);
  EXPECT_EQ(counters.error().code, EINVAL);
}

TEST(Nldev, AnAnswerLongerThanItsDatagramIsNotRead) {
  FakeRdmaSocket socket([](uint32_t seq) {
    auto out = counters_answer(seq, "mlx5_0");
    out.resize(40);  // nlmsg_len still says the whole message
    return out;
  });
  auto counters = read_one(socket);
  ASSERT_FALSE(counters);
  EXPECT_EQ(counters.error().code, ETIMEDOUT);
}

}  // namespace
}  // namespace roced::rdma
