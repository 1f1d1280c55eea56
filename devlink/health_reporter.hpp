// SPDX-License-Identifier: Apache-2.0
#pragma once
// A PCI function's devlink health reporters through the devlink generic netlink family
// (net/core/devlink.c devlink_nl_cmd_health_reporter_get_doit): each reporter's state and its
// error and recovery counts, as `devlink health show` prints them. mlx5 registers "fw" (the
// firmware's syndromes) and "fw_fatal" (a fatal error, recovered by reloading the device) on
// each function's instance (health.c mlx5_fw_reporters_create). The kernel answers from its own
// state: no firmware command.
#include <linux/devlink.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "os/genl_family.hpp"
#include "os/system.hpp"

namespace roced {

struct HealthReporterQuery {
  std::string device;  // the instance's device name: a PCI address for bus "pci"
  std::string name;    // "fw", "fw_fatal"
  std::string bus = "pci";
};

struct HealthReporterState {
  bool healthy = true;  // DEVLINK_HEALTH_REPORTER_STATE_HEALTHY
  uint64_t errors = 0;
  uint64_t recoveries = 0;
  bool operator==(const HealthReporterState&) const = default;
};

class HealthReporterReader {
 public:
  explicit HealthReporterReader(const System& system)
      : genl_(system, DEVLINK_GENL_NAME, DEVLINK_GENL_VERSION) {}

  bool available() const { return genl_.available(); }
  // Each reporter's state, in order. An instance the kernel does not know is ENODEV, a reporter
  // it does not have EINVAL (devlink_health_reporter_get_from_info finds none).
  std::vector<Result<HealthReporterState>> read(std::span<const HealthReporterQuery> reporters,
                                                std::chrono::milliseconds timeout);

 private:
  GenlFamily genl_;
};

}  // namespace roced
