// SPDX-License-Identifier: Apache-2.0
// The names the daemon shows for port conditions and events (status line, D-Bus, logs).
#include "daemon/reconcile/reconciler.hpp"

namespace roced::reconcile {

std::string condition_name(PortCondition condition) {
  switch (condition) {
    case PortCondition::Pending:
      return "pending";
    case PortCondition::InSync:
      return "in-sync";
    case PortCondition::Drifted:
      return "drifted";
    case PortCondition::Applying:
      return "applying";
    case PortCondition::Failed:
      return "failed";
    case PortCondition::Vanished:
      return "vanished";
  }
  return "unknown";
}

std::string event_kind_name(PortEvent::Kind kind) {
  switch (kind) {
    case PortEvent::Kind::Appeared:
      return "appeared";
    case PortEvent::Kind::Vanished:
      return "vanished";
    case PortEvent::Kind::Drifted:
      return "drifted";
    case PortEvent::Kind::Corrected:
      return "corrected";
    case PortEvent::Kind::ApplyFailed:
      return "apply-failed";
  }
  return "unknown";
}

}  // namespace roced::reconcile
