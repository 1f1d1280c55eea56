// SPDX-License-Identifier: Apache-2.0
#include "telemetry/finding_family.hpp"

namespace roced::telemetry {

const FamilySpec kFindingFamily{
    "roced_finding", MetricType::gauge,
    "1 for each thing roced finds not as it should be on the port, by its stable id "
    "(docs/findings.md), with what it concerns and both values."};

void add_findings(ExpositionWriter& out, std::string_view netdev,
                  const std::vector<finding::Finding>& findings) {
  for (const auto& found : findings) {
    out.add(kFindingFamily,
            {{"netdev", netdev},
             {"id", found.id},
             {"severity", finding::kSeverityNames.name(found.severity)},
             {"source", found.source},
             {"about", found.about},
             {"wanted", found.wanted},
             {"found", found.found}},
            1);
  }
}

}  // namespace roced::telemetry
