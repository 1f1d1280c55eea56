// SPDX-License-Identifier: Apache-2.0
#include "devlink/health_reporter.hpp"

#include <linux/genetlink.h>

#include <cerrno>

#include "os/netlink_message.hpp"

namespace roced {

namespace {

void add_query(nl_msg* message, const HealthReporterQuery& query) {
  nla_put_string(message, DEVLINK_ATTR_BUS_NAME, query.bus.c_str());
  nla_put_string(message, DEVLINK_ATTR_DEV_NAME, query.device.c_str());
  nla_put_string(message, DEVLINK_ATTR_HEALTH_REPORTER_NAME, query.name.c_str());
}

std::string describe(const HealthReporterQuery& query) {
  return "health reporter " + query.name + " of " + query.bus + "/" + query.device;
}

// devlink_nl_health_reporter_fill: the reporter's nest with its state (u8) and counts (u64).
Result<HealthReporterState> parse_reporter(nlmsghdr* header, const HealthReporterQuery& query) {
  nlattr* table[DEVLINK_ATTR_MAX + 1];
  if (nlmsg_parse(header, GENL_HDRLEN, table, DEVLINK_ATTR_MAX, nullptr) != 0 ||
      table[DEVLINK_ATTR_HEALTH_REPORTER] == nullptr) {
    return Error{EBADMSG, describe(query) + ": malformed answer"};
  }
  nlattr* fields[DEVLINK_ATTR_MAX + 1];
  if (nla_parse_nested(fields, DEVLINK_ATTR_MAX, table[DEVLINK_ATTR_HEALTH_REPORTER], nullptr) !=
      0) {
    return Error{EBADMSG, describe(query) + ": malformed reporter"};
  }
  uint8_t state = 0;
  HealthReporterState out;
  if (!attr_u8(fields[DEVLINK_ATTR_HEALTH_REPORTER_STATE], state) ||
      !attr_u64(fields[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT], out.errors) ||
      !attr_u64(fields[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT], out.recoveries)) {
    return Error{EBADMSG, describe(query) + ": the answer lacks its state or counts"};
  }
  out.healthy = state == 0;  // DEVLINK_HEALTH_REPORTER_STATE_HEALTHY (include/net/devlink.h)
  return out;
}

}  // namespace

std::vector<Result<HealthReporterState>> HealthReporterReader::read(
    std::span<const HealthReporterQuery> reporters, std::chrono::milliseconds timeout) {
  std::vector<NlMsgPtr> requests;
  std::vector<std::string> contexts;
  for (const HealthReporterQuery& query : reporters) {
    auto message = genl_.request(DEVLINK_CMD_HEALTH_REPORTER_GET);
    if (!message)
      return std::vector<Result<HealthReporterState>>(reporters.size(), message.error());
    add_query(message->get(), query);
    requests.push_back(std::move(*message));
    contexts.push_back(describe(query));
  }
  auto answers = genl_.exchange(requests, contexts, timeout);
  std::vector<Result<HealthReporterState>> results;
  results.reserve(reporters.size());
  for (size_t i = 0; i < reporters.size(); ++i) {
    if (!answers[i]) {
      results.push_back(answers[i].error());
    } else {
      results.push_back(parse_reporter(answers[i]->header(), reporters[i]));
    }
  }
  return results;
}

}  // namespace roced
