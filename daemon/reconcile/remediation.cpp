// SPDX-License-Identifier: Apache-2.0
#include "daemon/reconcile/remediation.hpp"

namespace roced::reconcile {

config::Profile remediated(config::Profile profile, const Remediation& remediation) {
  profile.pfc_priorities = static_cast<uint8_t>(profile.pfc_priorities & ~remediation.pfc_off);
  if (remediation.stall_prevention_timeout) {
    profile.stall_prevention.mode = config::StallPrevention::Mode::Manual;
    profile.stall_prevention.timeout_ms =
        static_cast<uint16_t>(remediation.stall_prevention_timeout->count());
  }
  return profile;
}

bool remediation_setting(plan::Setting setting) {
  return setting == plan::Setting::PfcPriorities || setting == plan::Setting::StallPrevention;
}

std::string describe(const Remediation& remediation) {
  std::string text;
  if (remediation.pfc_off != 0) {
    std::string priorities;
    int count = 0;
    for (int p = 0; p < 8; ++p) {
      if (((remediation.pfc_off >> p) & 1u) == 0) continue;
      priorities += (priorities.empty() ? "" : ", ") + std::to_string(p);
      ++count;
    }
    text = "PFC off on priorit" + std::string(count == 1 ? "y " : "ies ") + priorities;
  }
  if (remediation.stall_prevention_timeout) {
    text += (text.empty() ? "" : "; ") + std::string("stall prevention ") +
            std::to_string(remediation.stall_prevention_timeout->count()) + " ms";
  }
  return text;
}

finding::Finding hold_finding(const std::string& netdev, const Remediation& remediation) {
  return finding::make(kPfcHeldByWatchdog, netdev,
                       "held by the storm watchdog until the storm ends: " + describe(remediation),
                       "as configured", describe(remediation));
}

}  // namespace roced::reconcile
