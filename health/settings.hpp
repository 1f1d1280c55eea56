// SPDX-License-Identifier: Apache-2.0
#pragma once
// The health checks' settings as the config file gives them (`health:`), with their range
// checks; the YAML loader (daemon/config) reads the keys and reports validate()'s problems at the
// key they are about.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace roced::health {

// One bad setting: `field` is the key as written under `health:`.
struct HealthProblem {
  std::string field;
  std::string message;
  bool operator==(const HealthProblem&) const = default;
};

struct HealthSettings {
  bool enabled = true;
  // How often each managed uplink's PCIe link, PHY counters and FEC are read and judged. A link
  // retrained down stays so until a reset: 10 s finds it well before a job's throughput graph
  // does, at four small sysfs reads per port, the FEC's mode and counters (four firmware commands
  // a port on mlx5) and, while the storm watchdog reads the counters anyway, one statistics read
  // per interval on a port whose RoCE moves (to pair the priorities' bytes with the RDMA counter
  // of the same moment).
  std::chrono::milliseconds interval{std::chrono::seconds(10)};
  // NVIDIA NVSentinel's NIC health monitor defaults (its chart's values.yaml): symbol errors
  // above 10 a second are a degraded link, above 120 in an hour a fatal one.
  uint64_t symbol_errors_per_second = 10;
  uint64_t symbol_errors_per_hour = 120;
  // Link-down events roced did not cause within 10 minutes: NVSentinel raises on more than 2
  // carrier changes at a 1 s poll; at 10 s readings the count runs over 10 minutes instead.
  uint64_t link_flaps_per_10m = 2;
  // How often each port's optical module is read (three half pages of its memory, five for a
  // CMIS module). On mlx5 that is some twenty to thirty firmware commands and the module's slow
  // I2C bus per port, and an optic's
  // readings move over minutes. Read at the first health reading at or after it is due.
  std::chrono::milliseconds optics_interval{std::chrono::seconds(60)};

  // Every problem, in field order; empty when the settings are usable.
  std::vector<HealthProblem> validate() const;
  bool operator==(const HealthSettings&) const = default;
};

inline constexpr std::chrono::milliseconds kMinHealthInterval{std::chrono::seconds(1)};
inline constexpr std::chrono::milliseconds kMaxHealthInterval{std::chrono::minutes(10)};
inline constexpr std::chrono::milliseconds kMinOpticsInterval{std::chrono::seconds(1)};
inline constexpr std::chrono::milliseconds kMaxOpticsInterval{std::chrono::hours(1)};

}  // namespace roced::health
