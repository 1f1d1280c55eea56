// SPDX-License-Identifier: Apache-2.0
#pragma once
// A PortPlan as lines, so one EXPECT_EQ compares every change or unsupported setting.
#include <string>
#include <vector>

#include "daemon/plan/plan.hpp"

namespace roced::test {

using Lines = std::vector<std::string>;

// "setting: now -> wanted" per change, "!" appended when disruptive.
inline Lines changes_of(const plan::PortPlan& plan) {
  Lines out;
  for (const auto& c : plan.changes) {
    out.push_back(plan::setting_name(c.setting, c.key) + ": " + c.now + " -> " + c.wanted +
                  (c.disruptive ? " !" : ""));
  }
  return out;
}

// "setting: reason" per unsupported setting.
inline Lines unsupported_of(const plan::PortPlan& plan) {
  Lines out;
  for (const auto& u : plan.unsupported) {
    out.push_back(plan::setting_name(u.setting, u.key) + ": " + u.reason);
  }
  return out;
}

}  // namespace roced::test
