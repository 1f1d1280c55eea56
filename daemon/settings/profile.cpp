// SPDX-License-Identifier: Apache-2.0
// The profile's defaults: the common recipe (docs/config.md).
#include "daemon/settings/profile.hpp"

namespace roced::settings {

uint16_t StallPreventionProfile::tunable_value() const {
  switch (mode) {
    case Mode::Off:
      return 0;
    case Mode::Auto:
      return 0xffff;
    case Mode::Manual:
      return timeout_ms;
  }
  return 0xffff;
}

Profile default_profile() {
  Profile profile;
  // The firmware's own map, d >> 3: RoCE's DSCP 26 -> 3 and the CNPs' DSCP 48 -> 6.
  for (int dscp = 0; dscp < 64; ++dscp) {
    profile.dscp_map[dscp] = static_cast<uint8_t>(dscp >> 3);
  }
  // One TC per priority; RoCE's TC3 gets half the link under load, CNPs (TC6) go strict so they
  // are never queued behind the data they throttle.
  profile.ets.prio_tc = {0, 1, 2, 3, 4, 5, 6, 7};
  profile.ets.tsa.fill(dcb::Tsa::Ets);
  profile.ets.tsa[6] = dcb::Tsa::Strict;
  profile.ets.bandwidth = {10, 10, 10, 50, 10, 5, 0, 5};
  return profile;
}

}  // namespace roced::settings
