// SPDX-License-Identifier: Apache-2.0
#include "daemon/log/journal_sink.hpp"

#include <sys/uio.h>
#include <syslog.h>
#include <systemd/sd-journal.h>

namespace roced::log {

namespace {

int send_to_journal(const std::vector<std::string>& fields) {
  std::vector<iovec> parts;
  parts.reserve(fields.size());
  for (const auto& field : fields) {
    parts.push_back({const_cast<char*>(field.data()), field.size()});
  }
  return sd_journal_sendv(parts.data(), static_cast<int>(parts.size()));
}

}  // namespace

int syslog_priority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug:
      return LOG_DEBUG;
    case spdlog::level::info:
      return LOG_INFO;
    case spdlog::level::warn:
      return LOG_WARNING;
    case spdlog::level::err:
      return LOG_ERR;
    case spdlog::level::critical:
      return LOG_CRIT;
    default:
      return LOG_INFO;
  }
}

std::vector<std::string> journal_fields(const spdlog::details::log_msg& message,
                                        const PortFields* port, const std::string& identifier) {
  // A field value may hold any bytes, newlines included, when sent with sd_journal_sendv.
  std::vector<std::string> fields;
  fields.push_back("MESSAGE=" + std::string(message.payload.data(), message.payload.size()));
  fields.push_back("PRIORITY=" + std::to_string(syslog_priority(message.level)));
  fields.push_back("SYSLOG_IDENTIFIER=" + identifier);
  if (!message.source.empty()) {
    fields.push_back(std::string("CODE_FILE=") + message.source.filename);
    fields.push_back("CODE_LINE=" + std::to_string(message.source.line));
    fields.push_back(std::string("CODE_FUNC=") + message.source.funcname);
  }
  if (port != nullptr) {
    if (!port->netdev.empty()) fields.push_back("PORT=" + port->netdev);
    for (const auto& setting : port->settings) fields.push_back("SETTING=" + setting);
    if (!port->finding.empty()) fields.push_back("FINDING=" + port->finding);
  }
  return fields;
}

JournalSink::JournalSink(std::string identifier, Sender send)
    : identifier_(std::move(identifier)), send_(send ? std::move(send) : Sender(send_to_journal)) {}

void JournalSink::sink_it_(const spdlog::details::log_msg& message) {
  // A failed send has nowhere better to go; the journal may be restarting.
  (void)send_(journal_fields(message, current_fields(), identifier_));
}

}  // namespace roced::log
