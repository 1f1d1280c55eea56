// SPDX-License-Identifier: Apache-2.0
#include "health/firmware.hpp"

namespace roced::health {

std::optional<finding::Finding> judge_firmware_fatal(const std::string& netdev,
                                                     const CounterWindow& errors, bool healthy) {
  const uint64_t fatal = errors.total();
  if (fatal == 0 && healthy) return std::nullopt;
  std::string text = fatal == 0
                         ? "the firmware's fatal error reporter is in error"
                         : std::to_string(fatal) + " fatal firmware error(s) in the last hour";
  text += healthy ? "; the driver recovered the device" : "; the device has not recovered";
  return finding::make(kFirmwareFatal, netdev, text, "healthy", healthy ? "recovered" : "error");
}

std::optional<finding::Finding> judge_firmware_errors(const std::string& netdev,
                                                      const CounterWindow& errors) {
  const uint64_t count = errors.total();
  if (count == 0) return std::nullopt;
  return finding::make(kFirmwareErrors, netdev,
                       std::to_string(count) + " firmware error(s) in the last hour", "none",
                       "reported");
}

}  // namespace roced::health
