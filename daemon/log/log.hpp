// SPDX-License-Identifier: Apache-2.0
#pragma once
// roced's logging: spdlog's default logger, set up once by main. To the console (stderr)
// normally; to the systemd journal, with structured PORT= and SETTING= fields, under systemd.
// Anyone logs with spdlog::info(...) etc.; a line about a port goes through log::port() so the
// journal can filter on it (`journalctl -u roced PORT=lan3 SETTING=pfc`).

#include <spdlog/spdlog.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "daemon/log/fields.hpp"
#include "finding/finding.hpp"

namespace roced::log {

enum class Target { Console, Journal };

// spdlog's level names: trace debug info warn error critical off (daemon.log_level, --log-level).
std::optional<spdlog::level::level_enum> parse_level(std::string_view name);
std::string level_name(spdlog::level::level_enum level);

// True when stderr is connected to the journal: $JOURNAL_STREAM names stderr's device and inode
// (systemd.exec(5)), so a redirected stderr under systemd still goes to the console sink.
bool stderr_is_journal();

// Replaces spdlog's default logger with one writing to `target`, at `level`.
void setup(Target target, spdlog::level::level_enum level);
void set_level(spdlog::level::level_enum level);

// One line about `netdev` (and the settings it names, setting_name()s: "pfc", "mtu"), as
// "<netdev>: <message>", with the journal fields PORT= and SETTING=.
template <typename... Args>
void port(spdlog::level::level_enum level, const std::string& netdev,
          std::vector<std::string> settings, fmt::format_string<Args...> format, Args&&... args) {
  if (!spdlog::should_log(level)) return;
  ScopedPortFields fields({netdev, std::move(settings), {}});
  spdlog::log(level, "{}: {}", netdev, fmt::format(format, std::forward<Args>(args)...));
}

// A finding as one line, "<subject>: <id>: <text>", at its severity's level (critical: error,
// warning: warn, info: info), with the journal fields PORT=, SETTING= (what it is about) and
// FINDING= (its id), so `journalctl FINDING=rocev2_gid_index_moved` lists every occurrence.
void finding(const finding::Finding& found);

template <typename... Args>
void port(spdlog::level::level_enum level, const std::string& netdev, const std::string& setting,
          fmt::format_string<Args...> format, Args&&... args) {
  port(level, netdev, setting.empty() ? std::vector<std::string>{} : std::vector{setting}, format,
       std::forward<Args>(args)...);
}

}  // namespace roced::log
