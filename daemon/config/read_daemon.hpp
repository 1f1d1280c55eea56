// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `daemon:` section: how the service keeps the ports right (drift policy, drift-check
// interval, log level). rocectl's one-shot commands read it but ignore it.

#include <chrono>
#include <optional>
#include <string>

#include "daemon/config/reader.hpp"

namespace roced::config::detail {

// The drift-check interval's bounds: below 100 ms a check of every port would run back to back
// (netlink events already trigger one at once); above a day drift would go unseen for too long.
inline constexpr std::chrono::milliseconds kMinDriftCheckInterval{100};
inline constexpr std::chrono::milliseconds kMaxDriftCheckInterval{std::chrono::hours(24)};

// "30s", "500ms", "5m", "1h", or a plain integer (seconds); nullopt when it is none of those.
std::optional<std::chrono::milliseconds> parse_duration(const std::string& text);

// Applies the keys of the mapping `node` (at `where`) to `settings`.
void read_daemon(Reader& reader, const YAML::Node& node, Location where, DaemonSettings& settings);

}  // namespace roced::config::detail
