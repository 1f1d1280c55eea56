// SPDX-License-Identifier: Apache-2.0
#pragma once
// The devlink health reporters' notifications: the kernel multicasts
// DEVLINK_CMD_HEALTH_REPORTER_RECOVER to devlink's "config" group whenever a reporter's state
// changes: on each report (devlink_health_report) and each recovery
// (devlink_health_reporter_recover, devlink_health_reporter_state_update), through
// devlink_recover_notify with the reporter as devlink_nl_health_reporter_fill writes it. A
// notification says when to read; the reading itself stays HealthReporterReader's.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "os/netlink_message.hpp"
#include "os/system.hpp"

namespace roced {

// Which reporter changed: its instance (bus and device name) and its name.
struct HealthReporterEvent {
  std::string bus;
  std::string device;
  std::string reporter;
  bool operator==(const HealthReporterEvent&) const = default;
};

// One message of the group: a reporter's change, or none for any other message (the group also
// carries ports, parameters, regions and the rest).
std::optional<HealthReporterEvent> parse_health_event(const nlmsghdr* header, uint16_t family);

class HealthReporterEvents {
 public:
  explicit HealthReporterEvents(const System& system) : system_(system) {}

  // Joins the group; ENOENT on a kernel without devlink.
  Result<void> open();
  void close() { socket_.reset(); }
  int fd() const { return socket_ ? socket_->fd() : -1; }
  // What arrived, without waiting. A socket that fails (its buffer overran: ENOBUFS) is closed,
  // and what was lost is said by `lost()` once; the caller reads every reporter then.
  std::vector<HealthReporterEvent> drain();
  bool lost();

 private:
  const System& system_;
  std::unique_ptr<NetlinkSocket> socket_;
  uint16_t family_ = 0;
  bool lost_ = false;
};

}  // namespace roced
