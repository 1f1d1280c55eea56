// SPDX-License-Identifier: Apache-2.0
#include "ethtool/mac_control.hpp"

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "os/netlink_message.hpp"
#include "os/rtnl_request.hpp"

namespace roced {

namespace {

constexpr auto kFamilyLookupTimeout = std::chrono::milliseconds(1000);

NlMsgPtr new_genl_request(uint16_t family, uint8_t cmd, uint8_t version) {
  genlmsghdr header{};
  header.cmd = cmd;
  header.version = version;
  return new_request(family, 0, &header, sizeof header);
}

int reply_errno(int error) { return error < 0 && error >= -4095 ? -error : EPROTO; }

// The error an NLMSG_ERROR carries (0: an acknowledgement).
int error_of(const nlmsghdr* header) {
  int error = -EBADMSG;
  if (header->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
    std::memcpy(&error, NLMSG_DATA(header), sizeof error);
  }
  return error;
}

template <size_t N>
bool parse_genl(nlmsghdr* header, nlattr* (&table)[N]) {
  std::memset(table, 0, sizeof table);
  return nlmsg_parse(header, GENL_HDRLEN, table, N - 1, nullptr) == 0;
}

// ctrl_getfamily's answer: the family's id.
Result<uint16_t> family_id(const std::vector<NlMessage>& messages) {
  for (const NlMessage& message : messages) {
    if (message.type() != GENL_ID_CTRL) continue;
    nlattr* table[CTRL_ATTR_MAX + 1];
    NlMessage copy = message;
    if (!parse_genl(copy.header(), table) || table[CTRL_ATTR_FAMILY_ID] == nullptr) continue;
    return nla_get_u16(table[CTRL_ATTR_FAMILY_ID]);
  }
  return Error{EBADMSG, "generic netlink: no family id in the controller's answer"};
}

// ETHTOOL_MSG_STATS_GET for `netdev` asking for the eth-ctrl group only, as a compact bitset
// without a mask (net/ethtool/bitset.c ethnl_update_bitset).
NlMsgPtr stats_request(uint16_t family, const std::string& netdev) {
  NlMsgPtr message = new_genl_request(family, ETHTOOL_MSG_STATS_GET, ETHTOOL_GENL_VERSION);
  nlattr* header = nla_nest_start(message.get(), ETHTOOL_A_STATS_HEADER);
  nla_put_string(message.get(), ETHTOOL_A_HEADER_DEV_NAME, netdev.c_str());
  nla_nest_end(message.get(), header);
  nlattr* groups = nla_nest_start(message.get(), ETHTOOL_A_STATS_GROUPS);
  nla_put_flag(message.get(), ETHTOOL_A_BITSET_NOMASK);
  nla_put_u32(message.get(), ETHTOOL_A_BITSET_SIZE, __ETHTOOL_STATS_CNT);
  const uint32_t bits = 1u << ETHTOOL_STATS_ETH_CTRL;
  nla_put(message.get(), ETHTOOL_A_BITSET_VALUE, sizeof bits, &bits);
  nla_nest_end(message.get(), groups);
  return message;
}

// stats_fill_reply: a group nest per group asked for, each counter in an ETHTOOL_A_STATS_GRP_STAT
// nest whose one attribute's type is the counter's index in the group (stat_put). A counter the
// driver did not set is left out.
Result<MacControlFrames> parse_stats(nlmsghdr* header, const std::string& netdev) {
  nlattr* table[ETHTOOL_A_STATS_MAX + 1];
  if (!parse_genl(header, table)) return Error{EBADMSG, netdev + ": malformed statistics answer"};
  std::optional<uint64_t> transmitted, received;
  nlattr* group = nullptr;
  int remaining = 0;
  nla_for_each_attr(group, nlmsg_attrdata(header, GENL_HDRLEN), nlmsg_attrlen(header, GENL_HDRLEN),
                    remaining) {
    if (nla_type(group) != ETHTOOL_A_STATS_GRP) continue;
    nlattr* fields[ETHTOOL_A_STATS_GRP_MAX + 1];
    if (nla_parse_nested(fields, ETHTOOL_A_STATS_GRP_MAX, group, nullptr) != 0) continue;
    uint32_t id = 0;
    if (!attr_u32(fields[ETHTOOL_A_STATS_GRP_ID], id) || id != ETHTOOL_STATS_ETH_CTRL) continue;
    nlattr* stat = nullptr;
    int left = 0;
    nla_for_each_nested(stat, group, left) {
      if (nla_type(stat) != ETHTOOL_A_STATS_GRP_STAT) continue;
      nlattr* value = static_cast<nlattr*>(nla_data(stat));
      uint64_t count = 0;
      if (nla_len(stat) < static_cast<int>(NLA_HDRLEN) || !attr_u64(value, count)) continue;
      if (nla_type(value) == ETHTOOL_A_STATS_ETH_CTRL_3_TX) transmitted = count;
      if (nla_type(value) == ETHTOOL_A_STATS_ETH_CTRL_4_RX) received = count;
    }
  }
  if (!transmitted || !received) {
    return Error{EOPNOTSUPP, netdev + ": the driver reports no MAC control frame counts"};
  }
  return MacControlFrames{*transmitted, *received};
}

}  // namespace

Result<void> MacControlReader::connect() {
  if (socket_) return ok();
  if (!system_.open_genl) return Error{EOPNOTSUPP, "no generic netlink socket"};
  auto socket = system_.open_genl();
  if (!socket) return socket.error();
  NlMsgPtr lookup = new_genl_request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 2);
  nla_put_string(lookup.get(), CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
  auto answer = rtnl_request(**socket, lookup.get(), "generic netlink: find family ethtool",
                             kFamilyLookupTimeout);
  if (!answer) {
    if (answer.error().code == ENOENT) unavailable_ = true;  // no ethtool netlink in this kernel
    return answer.error();
  }
  auto id = family_id(*answer);
  if (!id) return id.error();
  family_ = *id;
  socket_ = std::move(*socket);
  return ok();
}

std::vector<Result<MacControlFrames>> MacControlReader::read(std::span<const std::string> netdevs,
                                                             std::chrono::milliseconds timeout) {
  std::vector<std::optional<Result<MacControlFrames>>> answers(netdevs.size());
  std::map<uint32_t, size_t> pending;  // sequence number -> port
  if (auto connected = connect(); !connected) {
    return std::vector<Result<MacControlFrames>>(netdevs.size(), connected.error());
  }
  for (size_t i = 0; i < netdevs.size(); ++i) {
    NlMsgPtr message = stats_request(family_, netdevs[i]);
    nlmsghdr* header = nlmsg_hdr(message.get());
    header->nlmsg_seq = next_sequence_number();
    header->nlmsg_pid = socket_->port_id();
    if (auto sent = socket_->send(message_bytes(message.get())); !sent) {
      answers[i] = sent.error();
      continue;
    }
    pending.emplace(header->nlmsg_seq, i);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pending.empty()) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto datagram = socket_->receive(left);
    if (!datagram || datagram->empty()) break;
    int remaining = static_cast<int>(datagram->size());
    auto* header = reinterpret_cast<nlmsghdr*>(datagram->data());
    for (; nlmsg_ok(header, remaining); header = nlmsg_next(header, &remaining)) {
      const auto it = pending.find(header->nlmsg_seq);
      if (it == pending.end()) continue;  // stale: an answer a timed-out read left behind
      const size_t i = it->second;
      if (header->nlmsg_type == NLMSG_ERROR) {
        answers[i] = Error::from_errno(reply_errno(error_of(header)),
                                       "ethtool netlink: statistics of " + netdevs[i]);
      } else if (header->nlmsg_type == family_) {
        answers[i] = parse_stats(header, netdevs[i]);
      } else {
        continue;
      }
      pending.erase(it);
    }
  }
  if (!pending.empty()) socket_.reset();  // a broken or slow socket: a fresh one next time
  std::vector<Result<MacControlFrames>> results;
  results.reserve(netdevs.size());
  for (size_t i = 0; i < netdevs.size(); ++i) {
    if (answers[i]) {
      results.push_back(std::move(*answers[i]));
    } else {
      results.push_back(Error{ETIMEDOUT, "ethtool netlink: no answer for " + netdevs[i]});
    }
  }
  return results;
}

}  // namespace roced
