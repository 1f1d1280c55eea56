// SPDX-License-Identifier: Apache-2.0
#pragma once
// The NIC's firmware as the driver reports it through devlink health (mlx5 health.c): a fatal
// error ("fw_fatal": the firmware stopped; the driver reloads the device, and every port on it
// loses its link and its RDMA queue pairs, so the jobs on it fail), and the firmware's non-fatal
// syndromes ("fw"). Counts from before roced's first reading are the card's history.
#include <optional>
#include <string>

#include "finding/finding.hpp"
#include "health/counter_window.hpp"

namespace roced::health {

// A reporter's error count over the last hour (the kernel's counter is 64-bit).
inline CounterWindow firmware_error_window() {
  return CounterWindow(std::chrono::hours(1), CounterWidth::bits64);
}

// A fatal error within the hour, or a fw_fatal reporter still in error (the recovery failed, or
// was not tried: devlink does not recover twice within the grace period): critical.
std::optional<finding::Finding> judge_firmware_fatal(const std::string& netdev,
                                                     const CounterWindow& errors, bool healthy);
// Non-fatal syndromes within the hour: a warning.
std::optional<finding::Finding> judge_firmware_errors(const std::string& netdev,
                                                      const CounterWindow& errors);

inline constexpr finding::Kind kFirmwareFatal{
    "nic_firmware_fatal", finding::Severity::Critical, "health",
    "The NIC's firmware hit a fatal error (mlx5's fw_fatal devlink health reporter): the driver "
    "reset the device, so every port on it lost its link and its RDMA connections, and the jobs "
    "using it failed; a reporter still in error means the device did not come back.",
    "`devlink health show pci/<address> reporter fw_fatal` for the state and counts, `devlink "
    "health dump show ... reporter fw_fatal` and the kernel log for the syndrome. Drain the node; "
    "a second fatal error within 20 minutes is not recovered (power-cycle or reload the driver). "
    "Report the syndrome to NVIDIA with the firmware version (`ethtool -i <netdev>`)."};
inline constexpr finding::Kind kFirmwareErrors{
    "nic_firmware_errors", finding::Severity::Warning, "health",
    "The NIC's firmware reported errors that were not fatal within the last hour (mlx5's fw "
    "devlink health reporter: health syndromes): often the forerunner of a fatal one.",
    "`devlink health diagnose pci/<address> reporter fw` and the kernel log name the syndrome. "
    "Check that the firmware is current (`ethtool -i <netdev>`); drain the node if they recur."};

}  // namespace roced::health
