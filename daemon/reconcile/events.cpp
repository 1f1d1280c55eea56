// SPDX-License-Identifier: Apache-2.0
// The names the daemon shows for port conditions and events (status line, D-Bus, logs).
#include "daemon/reconcile/reconciler.hpp"

namespace roced::reconcile {

std::string condition_name(PortCondition condition) {
  return std::string(kConditionNames.name(condition));
}

std::string event_kind_name(PortEvent::Kind kind) {
  return std::string(kEventKindNames.name(kind));
}

}  // namespace roced::reconcile
