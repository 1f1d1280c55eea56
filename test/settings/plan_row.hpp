// SPDX-License-Identifier: Apache-2.0
#pragma once
// One setting's row of the table planned alone: what it would change, or lacks, on `have`.
#include "daemon/settings/spec.hpp"

namespace roced::test {

inline settings::Planned plan_row(settings::Setting setting, const config::Profile& want,
                                  const PortStatus& have) {
  settings::Planned found;
  settings::row(setting).plan(have.port, want, have, found);
  return found;
}

}  // namespace roced::test
