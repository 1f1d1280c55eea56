// SPDX-License-Identifier: Apache-2.0
#include "daemon/log/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "daemon/log/journal_sink.hpp"

namespace roced::log {

namespace {

struct LevelName {
  const char* name;
  spdlog::level::level_enum level;
};
constexpr LevelName kLevels[] = {
    {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
    {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
    {"error", spdlog::level::err},   {"critical", spdlog::level::critical},
    {"off", spdlog::level::off},
};

}  // namespace

std::optional<spdlog::level::level_enum> parse_level(std::string_view name) {
  for (const auto& entry : kLevels) {
    if (name == entry.name) return entry.level;
  }
  return std::nullopt;
}

std::string level_name(spdlog::level::level_enum level) {
  for (const auto& entry : kLevels) {
    if (level == entry.level) return entry.name;
  }
  return "info";
}

bool stderr_is_journal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr) return false;
  unsigned long long device = 0;
  unsigned long long inode = 0;
  if (std::sscanf(stream, "%llu:%llu", &device, &inode) != 2) return false;
  struct stat info {};
  if (::fstat(STDERR_FILENO, &info) != 0) return false;
  return info.st_dev == device && info.st_ino == inode;
}

void setup(Target target, spdlog::level::level_enum level) {
  spdlog::sink_ptr sink;
  if (target == Target::Journal) {
    sink = std::make_shared<JournalSink>("roced");
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    sink->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");
  }
  auto logger = std::make_shared<spdlog::logger>("roced", std::move(sink));
  logger->set_level(level);
  // Every line is flushed: a daemon's last words before a crash or a kill matter most.
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(std::move(logger));
}

void set_level(spdlog::level::level_enum level) { spdlog::set_level(level); }

void finding(const finding::Finding& found) {
  static constexpr spdlog::level::level_enum kLevels[] = {spdlog::level::err, spdlog::level::warn,
                                                          spdlog::level::info};
  const auto level = kLevels[static_cast<size_t>(found.severity)];
  if (!spdlog::should_log(level)) return;
  PortFields fields{found.subject, {}, found.id};
  if (!found.about.empty()) fields.settings.push_back(found.about);
  ScopedPortFields scoped(std::move(fields));
  const std::string line = finding::line(found);
  if (found.subject.empty()) {
    spdlog::log(level, "{}", line);
  } else {
    spdlog::log(level, "{}: {}", found.subject, line);
  }
}

}  // namespace roced::log
