// SPDX-License-Identifier: Apache-2.0
#pragma once
// The structured fields of the log line being made on this thread: which port and which
// settings it is about. log::port() sets them around one spdlog call; the journal sink reads
// them (spdlog's synchronous loggers run every sink on the calling thread, so a thread-local is
// exact; an async logger would lose them).

#include <string>
#include <vector>

namespace roced::log {

struct PortFields {
  std::string netdev;                 // journal PORT=
  std::vector<std::string> settings;  // journal SETTING=, one field per setting
  std::string finding;                // journal FINDING=, the finding's id
};

// The fields of the current thread's line, or nullptr when it is not about a port.
const PortFields* current_fields();

// Sets the current thread's fields for its lifetime (restores the previous ones after).
class ScopedPortFields {
 public:
  explicit ScopedPortFields(PortFields fields);
  ~ScopedPortFields();
  ScopedPortFields(const ScopedPortFields&) = delete;
  ScopedPortFields& operator=(const ScopedPortFields&) = delete;

 private:
  PortFields fields_;
  const PortFields* previous_;
};

}  // namespace roced::log
