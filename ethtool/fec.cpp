// SPDX-License-Identifier: Apache-2.0
#include "ethtool/fec.hpp"

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <cerrno>
#include <cstring>

#include "os/netlink_message.hpp"
#include "os/rtnl_request.hpp"

namespace roced {

namespace {

void add_fec_request(nl_msg* message, const std::string& netdev) {
  nlattr* header = nla_nest_start(message, ETHTOOL_A_FEC_HEADER);
  nla_put_string(message, ETHTOOL_A_HEADER_DEV_NAME, netdev.c_str());
  nla_put_u32(message, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS);
  nla_nest_end(message, header);
}

// fec_put_stats: nla_put_64bit of the total and then each lane (fec_stats_recalc), or nothing
// at all, an empty attribute, when the driver set neither.
bool parse_counter(const nlattr* attribute, FecCounter& counter) {
  if (attribute == nullptr) return true;
  const int length = nla_len(attribute);
  if (length % static_cast<int>(sizeof(uint64_t)) != 0) return false;
  const auto count = static_cast<size_t>(length) / sizeof(uint64_t);
  const auto* bytes = static_cast<const unsigned char*>(nla_data(attribute));
  for (size_t i = 0; i < count; ++i) {
    uint64_t value = 0;
    std::memcpy(&value, bytes + i * sizeof value, sizeof value);  // 4-byte aligned only
    if (i == 0) {
      counter.total = value;
    } else {
      counter.lanes.push_back(value);
    }
  }
  return true;
}

}  // namespace

const char* fec_mode_name(uint32_t link_mode_bit) {
  switch (link_mode_bit) {
    case ETHTOOL_LINK_MODE_FEC_NONE_BIT:
      return "off";
    case ETHTOOL_LINK_MODE_FEC_RS_BIT:
      return "rs";
    case ETHTOOL_LINK_MODE_FEC_BASER_BIT:
      return "baser";
    case ETHTOOL_LINK_MODE_FEC_LLRS_BIT:
      return "llrs";
    default:
      return "";
  }
}

Result<FecState> parse_fec_reply(const void* attributes, int length, const std::string& netdev) {
  const Error malformed{EBADMSG, netdev + ": malformed FEC answer"};
  nlattr* table[ETHTOOL_A_FEC_MAX + 1];
  // nla_parse wants a non-const head; it only reads through it.
  auto* head = static_cast<nlattr*>(const_cast<void*>(attributes));
  if (nla_parse(table, ETHTOOL_A_FEC_MAX, head, length, nullptr) != 0) return malformed;
  FecState state;
  if (table[ETHTOOL_A_FEC_ACTIVE] != nullptr) {
    uint32_t mode = 0;
    if (!attr_u32(table[ETHTOOL_A_FEC_ACTIVE], mode)) return malformed;
    state.active_mode = mode;
  }
  if (table[ETHTOOL_A_FEC_STATS] != nullptr) {
    nlattr* stats[ETHTOOL_A_FEC_STAT_MAX + 1];
    if (nla_parse_nested(stats, ETHTOOL_A_FEC_STAT_MAX, table[ETHTOOL_A_FEC_STATS], nullptr) != 0 ||
        !parse_counter(stats[ETHTOOL_A_FEC_STAT_CORRECTED], state.corrected_blocks) ||
        !parse_counter(stats[ETHTOOL_A_FEC_STAT_UNCORR], state.uncorrectable_blocks) ||
        !parse_counter(stats[ETHTOOL_A_FEC_STAT_CORR_BITS], state.corrected_bits)) {
      return malformed;
    }
  }
  return state;
}

std::vector<Result<FecState>> FecReader::read(std::span<const std::string> netdevs,
                                              std::chrono::milliseconds timeout) {
  std::vector<NlMsgPtr> requests;
  std::vector<std::string> contexts;
  for (const std::string& netdev : netdevs) {
    auto message = genl_.request(ETHTOOL_MSG_FEC_GET);
    if (!message) return std::vector<Result<FecState>>(netdevs.size(), message.error());
    add_fec_request(message->get(), netdev);
    requests.push_back(std::move(*message));
    contexts.push_back("FEC of " + netdev);
  }
  auto answers = genl_.exchange(requests, contexts, timeout);
  std::vector<Result<FecState>> results;
  results.reserve(netdevs.size());
  for (size_t i = 0; i < netdevs.size(); ++i) {
    if (!answers[i]) {
      results.push_back(answers[i].error());
      continue;
    }
    nlmsghdr* header = answers[i]->header();
    results.push_back(parse_fec_reply(nlmsg_attrdata(header, GENL_HDRLEN),
                                      nlmsg_attrlen(header, GENL_HDRLEN), netdevs[i]));
  }
  return results;
}

}  // namespace roced
