// SPDX-License-Identifier: Apache-2.0
// The apply result as people read it: per port its outcome, one aligned line per change with how
// it went, the undo lines of a rollback, unsupported settings and warnings; a summary last.
#include <algorithm>
#include <map>
#include <sstream>

#include "daemon/apply/applier.hpp"

namespace roced::apply {

namespace {

constexpr size_t kMinNameWidth = 16;

std::string port_header(const PortResult& port) {
  using Outcome = PortResult::Outcome;
  const std::string head = port.netdev + ": ";
  switch (port.outcome) {
    case Outcome::InSync:
      return head + "in sync";
    case Outcome::Applied:
      return head + "applied " + std::to_string(port.steps.size()) +
             (port.steps.size() == 1 ? " change" : " changes") +
             (port.unread.empty() ? "" : "; not read, left as it is: " + port.unread);
    case Outcome::RolledBack:
      return head + "rolled back (" + port.error + ")";
    case Outcome::RollbackFailed:
      return head + "ROLLBACK FAILED, the port needs a look (" + port.error + ")";
    case Outcome::Unreadable:
      return head + "not applied, cannot read it (" + port.error + ")";
    case Outcome::Held:
      return head + "not applied, held (" + port.error + ")";
  }
  return head + outcome_name(port.outcome);
}

// "ok", "ok, 3 tries", "FAILED", "FAILED, 5 tries": the first column of a change line.
std::string status_of(const StepResult& step) {
  std::string out = step.ok ? "ok" : "FAILED";
  if (step.attempts > 1) out += ", " + std::to_string(step.attempts) + " tries";
  return out;
}

size_t name_width(const PortResult& port) {
  size_t width = kMinNameWidth;
  for (const auto* steps : {&port.steps, &port.rollback}) {
    for (const auto& s : *steps) {
      width = std::max(width, plan::setting_name(s.change.setting, s.change.key).size());
    }
  }
  for (const auto& u : port.unsupported) {
    width = std::max(width, plan::setting_name(u.setting, u.key).size());
  }
  return width;
}

size_t status_width(const PortResult& port) {
  size_t width = 0;
  for (const auto* steps : {&port.steps, &port.rollback}) {
    for (const auto& s : *steps) width = std::max(width, status_of(s).size());
  }
  return width;
}

std::string padded(const std::string& text, size_t width) {
  return text + std::string(width + 2 - std::min(width, text.size()), ' ');
}

void write_port(std::ostringstream& out, const PortResult& port) {
  out << port_header(port) << "\n";
  const size_t width = name_width(port);
  const size_t status = status_width(port);
  auto step_line = [&](const StepResult& s) {
    out << "  " << padded(status_of(s), status)
        << padded(plan::setting_name(s.change.setting, s.change.key), width) << s.change.now
        << " -> " << s.change.wanted << "\n";
    if (!s.error.empty()) out << "  " << std::string(status + 2, ' ') << s.error << "\n";
  };
  for (const auto& s : port.steps) step_line(s);
  if (!port.rollback.empty()) {
    out << "  undone, in reverse order:\n";
    for (const auto& s : port.rollback) step_line(s);
  }
  // Unsupported settings line up with the changes' names.
  const std::string indent = status == 0 ? "  " : std::string(status + 4, ' ');
  for (const auto& u : port.unsupported) {
    if (u.kind == settings::Lacking::RoceLag) continue;
    out << indent << padded(plan::setting_name(u.setting, u.key), width)
        << "unsupported: " << u.reason << "\n";
  }
  for (const auto& [names, reason] : plan::elsewhere_by_reason(port.unsupported)) {
    out << "  elsewhere: " << names << ": " << reason << "\n";
  }
  if (!port.carrier.empty()) out << "  carrier: " << port.carrier << "\n";
  if (!port.headroom.empty()) out << "  headroom: " << port.headroom << "\n";
  for (const auto& found : port.findings) out << "  " << finding::headline(found) << "\n";
}

}  // namespace

std::string format_apply_text(const ApplyResult& result) {
  std::ostringstream out;
  std::map<PortResult::Outcome, int> counts;
  for (const auto& port : result.ports) {
    write_port(out, port);
    ++counts[port.outcome];
  }
  if (result.ports.empty()) return out.str();
  out << result.ports.size() << (result.ports.size() == 1 ? " port" : " ports") << ":";
  bool first = true;
  for (const auto& [outcome, count] : counts) {
    std::string name = outcome_name(outcome);
    std::replace(name.begin(), name.end(), '-', ' ');
    out << (first ? " " : ", ") << count << " " << name;
    first = false;
  }
  out << "\n";
  return out.str();
}

}  // namespace roced::apply
