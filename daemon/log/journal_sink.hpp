// SPDX-License-Identifier: Apache-2.0
#pragma once
// An spdlog sink that writes to the systemd journal with structured fields: MESSAGE, PRIORITY,
// SYSLOG_IDENTIFIER, and PORT= / SETTING= when the line is about a port (log::port), so
// `journalctl -u roced PORT=lan3` shows one port's history. spdlog's own systemd_sink sends only
// the first three.

#include <spdlog/sinks/base_sink.h>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/log/fields.hpp"

namespace roced::log {

// The journal fields of one line, "NAME=value" each, in the order they are sent.
std::vector<std::string> journal_fields(const spdlog::details::log_msg& message,
                                        const PortFields* port, const std::string& identifier);

// syslog priority (journal PRIORITY=) of an spdlog level.
int syslog_priority(spdlog::level::level_enum level);

class JournalSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // Sends one entry's fields; returns 0 or a negative errno (sd_journal_sendv's contract).
  using Sender = std::function<int(const std::vector<std::string>& fields)>;

  // `send` defaults to sd_journal_sendv; tests pass their own to see the fields.
  explicit JournalSink(std::string identifier, Sender send = {});

 protected:
  void sink_it_(const spdlog::details::log_msg& message) override;
  void flush_() override {}

 private:
  std::string identifier_;
  Sender send_;
};

}  // namespace roced::log
