// SPDX-License-Identifier: Apache-2.0
#include "devlink/health_events.hpp"

#include <linux/devlink.h>
#include <linux/genetlink.h>

#include <chrono>

#include "os/genl_family.hpp"

namespace roced {

std::optional<HealthReporterEvent> parse_health_event(const nlmsghdr* header, uint16_t family) {
  if (header->nlmsg_type != family || header->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
    return std::nullopt;
  }
  const auto* genl = static_cast<const genlmsghdr*>(nlmsg_data(header));
  if (genl->cmd != DEVLINK_CMD_HEALTH_REPORTER_RECOVER) return std::nullopt;
  nlattr* table[DEVLINK_ATTR_MAX + 1];
  if (nlmsg_parse(const_cast<nlmsghdr*>(header), GENL_HDRLEN, table, DEVLINK_ATTR_MAX, nullptr) !=
          0 ||
      table[DEVLINK_ATTR_BUS_NAME] == nullptr || table[DEVLINK_ATTR_DEV_NAME] == nullptr ||
      table[DEVLINK_ATTR_HEALTH_REPORTER] == nullptr) {
    return std::nullopt;
  }
  nlattr* fields[DEVLINK_ATTR_MAX + 1];
  if (nla_parse_nested(fields, DEVLINK_ATTR_MAX, table[DEVLINK_ATTR_HEALTH_REPORTER], nullptr) !=
          0 ||
      fields[DEVLINK_ATTR_HEALTH_REPORTER_NAME] == nullptr) {
    return std::nullopt;
  }
  return HealthReporterEvent{attr_string(table[DEVLINK_ATTR_BUS_NAME]),
                             attr_string(table[DEVLINK_ATTR_DEV_NAME]),
                             attr_string(fields[DEVLINK_ATTR_HEALTH_REPORTER_NAME])};
}

Result<void> HealthReporterEvents::open() {
  auto group = open_genl_group(system_, DEVLINK_GENL_NAME, DEVLINK_GENL_MCGRP_CONFIG_NAME);
  if (!group) return group.error();
  socket_ = std::move(group->socket);
  family_ = group->family;
  return ok();
}

std::vector<HealthReporterEvent> HealthReporterEvents::drain() {
  std::vector<HealthReporterEvent> events;
  while (socket_) {
    auto datagram = socket_->receive(std::chrono::milliseconds(0));
    if (!datagram) {  // ENOBUFS: notifications were dropped; a fresh socket from the next open()
      socket_.reset();
      lost_ = true;
      break;
    }
    if (datagram->empty()) break;
    int remaining = static_cast<int>(datagram->size());
    auto* header = reinterpret_cast<nlmsghdr*>(datagram->data());
    for (; nlmsg_ok(header, remaining); header = nlmsg_next(header, &remaining)) {
      if (auto event = parse_health_event(header, family_)) events.push_back(std::move(*event));
    }
  }
  return events;
}

bool HealthReporterEvents::lost() {
  const bool was = lost_;
  lost_ = false;
  return was;
}

}  // namespace roced
