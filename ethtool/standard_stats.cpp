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

Result<std::vector<nl_msg*>> StandardStatsReader::prepare(std::span<const std::string> netdevs,
                                                          std::vector<std::string>& contexts) {
  // Ports that went away leave their requests behind: forgotten once they outnumber the most
  // ever asked at once (a caller may ask a different few each round).
  largest_round_ = std::max(largest_round_, netdevs.size());
  const bool crowded = kept_.size() > 2 * largest_round_ + 16;
  if (!genl_.connected() || genl_.connection() != connection_ || crowded) {
    kept_.clear();
    if (!genl_.connected()) {
      if (auto connected = genl_.request(ETHTOOL_MSG_STATS_GET); !connected) {
        return connected.error();
      }
    }
    connection_ = genl_.connection();
  }
  std::vector<nl_msg*> requests;
  requests.reserve(netdevs.size());
  contexts.resize(netdevs.size());  // assigned in place: the strings keep their buffers
  for (size_t i = 0; i < netdevs.size(); ++i) {
    const std::string& netdev = netdevs[i];
    auto it = kept_.find(netdev);
    if (it == kept_.end()) {
      auto message = genl_.request(ETHTOOL_MSG_STATS_GET);
      if (!message) return message.error();
      add_stats_request(message->get(), netdev, group_);
      it = kept_.emplace(netdev, Kept{std::move(*message), "statistics of " + netdev}).first;
    }
    requests.push_back(it->second.request.get());
    contexts[i] = it->second.context;
  }
  return requests;
}

std::vector<Result<StandardCounters>> StandardStatsReader::read(
    std::span<const std::string> netdevs, std::chrono::milliseconds timeout) {
  // The same ports are asked poll after poll: each port's request is kept and sent again (the
  // exchange numbers it afresh), as long as the socket it was made for lasts.
  auto requests = prepare(netdevs, contexts_);
  if (!requests) return std::vector<Result<StandardCounters>>(netdevs.size(), requests.error());
  auto answers = genl_.exchange(*requests, contexts_, timeout);
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
