// SPDX-License-Identifier: Apache-2.0
#include "ethtool/standard_stats.hpp"

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <algorithm>
#include <cerrno>

#include "os/netlink_message.hpp"
#include "os/rtnl_request.hpp"

namespace roced {

namespace {

// ETHTOOL_MSG_STATS_GET for `netdev` asking for one group, as a compact bitset without a mask
// (net/ethtool/bitset.c ethnl_update_bitset).
void add_stats_request(nl_msg* message, const std::string& netdev, uint32_t group) {
  nlattr* header = nla_nest_start(message, ETHTOOL_A_STATS_HEADER);
  nla_put_string(message, ETHTOOL_A_HEADER_DEV_NAME, netdev.c_str());
  nla_nest_end(message, header);
  nlattr* groups = nla_nest_start(message, ETHTOOL_A_STATS_GROUPS);
  nla_put_flag(message, ETHTOOL_A_BITSET_NOMASK);
  nla_put_u32(message, ETHTOOL_A_BITSET_SIZE, __ETHTOOL_STATS_CNT);
  const uint32_t bits = 1u << group;
  nla_put(message, ETHTOOL_A_BITSET_VALUE, sizeof bits, &bits);
  nla_nest_end(message, groups);
}

// stats_fill_reply: a group nest per group asked for, each counter in an ETHTOOL_A_STATS_GRP_STAT
// nest whose one attribute's type is the counter's index in the group (stat_put). A counter the
// driver did not set is left out.
Result<StandardCounters> parse_stats(nlmsghdr* header, const std::string& netdev, uint32_t want) {
  nlattr* table[ETHTOOL_A_STATS_MAX + 1];
  if (nlmsg_parse(header, GENL_HDRLEN, table, ETHTOOL_A_STATS_MAX, nullptr) != 0) {
    return Error{EBADMSG, netdev + ": malformed statistics answer"};
  }
  StandardCounters counters;
  nlattr* group = nullptr;
  int remaining = 0;
  nla_for_each_attr(group, nlmsg_attrdata(header, GENL_HDRLEN), nlmsg_attrlen(header, GENL_HDRLEN),
                    remaining) {
    if (nla_type(group) != ETHTOOL_A_STATS_GRP) continue;
    nlattr* fields[ETHTOOL_A_STATS_GRP_MAX + 1];
    if (nla_parse_nested(fields, ETHTOOL_A_STATS_GRP_MAX, group, nullptr) != 0) continue;
    uint32_t id = 0;
    if (!attr_u32(fields[ETHTOOL_A_STATS_GRP_ID], id) || id != want) continue;
    nlattr* stat = nullptr;
    int left = 0;
    nla_for_each_nested(stat, group, left) {
      if (nla_type(stat) != ETHTOOL_A_STATS_GRP_STAT) continue;
      nlattr* value = static_cast<nlattr*>(nla_data(stat));
      uint64_t count = 0;
      if (!nla_ok(value, nla_len(stat)) || !attr_u64(value, count)) continue;
      counters[static_cast<uint16_t>(nla_type(value))] = count;
    }
  }
  return counters;
}

}  // namespace

Result<void> StandardStatsReader::prepare(std::span<const std::string> netdevs) {
  const bool reusable =
      genl_.connected() && genl_.connection() == connection_ &&
      std::equal(netdevs.begin(), netdevs.end(), netdevs_.begin(), netdevs_.end());
  if (reusable) return ok();
  requests_.clear();
  contexts_.clear();
  netdevs_.assign(netdevs.begin(), netdevs.end());
  for (const std::string& netdev : netdevs) {
    auto message = genl_.request(ETHTOOL_MSG_STATS_GET);
    if (!message) {
      netdevs_.clear();
      return message.error();
    }
    add_stats_request(message->get(), netdev, group_);
    requests_.push_back(std::move(*message));
    contexts_.push_back("statistics of " + netdev);
  }
  connection_ = genl_.connection();
  return ok();
}

std::vector<Result<StandardCounters>> StandardStatsReader::read(
    std::span<const std::string> netdevs, std::chrono::milliseconds timeout) {
  // The same ports are asked every poll: their requests are kept and sent again (the exchange
  // numbers them afresh), as long as the socket they were made for is.
  if (auto prepared = prepare(netdevs); !prepared) {
    return std::vector<Result<StandardCounters>>(netdevs.size(), prepared.error());
  }
  auto answers = genl_.exchange(requests_, contexts_, timeout);
  std::vector<Result<StandardCounters>> results;
  results.reserve(netdevs.size());
  for (size_t i = 0; i < netdevs.size(); ++i) {
    if (!answers[i]) {
      results.push_back(answers[i].error());
    } else {
      results.push_back(parse_stats(answers[i]->header(), netdevs[i], group_));
    }
  }
  return results;
}

}  // namespace roced
