// SPDX-License-Identifier: Apache-2.0
#pragma once
// roced_finding: one series per finding, whoever found it (the reconciler's plan, the switch
// comparison, later checks), so alerts select on the finding's stable id alone.

#include <string_view>
#include <vector>

#include "finding/finding.hpp"
#include "telemetry/exposition.hpp"

namespace roced::telemetry {

extern const FamilySpec kFindingFamily;

// One series per finding of `netdev`: a label set bounded by the catalogue's ids and the
// port's settings.
void add_findings(ExpositionWriter& out, std::string_view netdev,
                  const std::vector<finding::Finding>& findings);

}  // namespace roced::telemetry
