// SPDX-License-Identifier: Apache-2.0
#include "daemon/findings/catalogue.hpp"

#include <span>

#include "daemon/apply/findings.hpp"
#include "daemon/plan/findings.hpp"
#include "daemon/reconcile/remediation.hpp"
#include "daemon/settings/findings.hpp"
#include "health/kinds.hpp"
#include "lldp/compare.hpp"
#include "probe/kinds.hpp"
#include "qualify/check_kinds.hpp"

namespace roced::findings {

namespace {

const finding::Kind* const kWatchdogKinds[] = {&reconcile::kPfcHeldByWatchdog};

std::vector<const finding::Kind*> gather() {
  std::vector<const finding::Kind*> out;
  for (const std::span<const finding::Kind* const> room :
       {settings::kinds(), plan::kinds(), apply::kinds(),
        std::span<const finding::Kind* const>(kWatchdogKinds), lldp::kinds(), health::kinds(), probe::kinds(),
        std::span<const finding::Kind* const>(qualify::kinds::kAll)}) {
    out.insert(out.end(), room.begin(), room.end());
  }
  return out;
}

}  // namespace

const std::vector<const finding::Kind*>& catalogue() {
  static const std::vector<const finding::Kind*> kinds = gather();
  return kinds;
}

const finding::Kind* find_kind(std::string_view id) {
  for (const finding::Kind* kind : catalogue()) {
    if (kind->id == id) return kind;
  }
  return nullptr;
}

std::string describe(const finding::Kind& kind) {
  return std::string(kind.id) + " (" + std::string(finding::kSeverityNames.name(kind.severity)) +
         ", from " + std::string(kind.source) + ")\n" + std::string(kind.meaning) +
         "\nWhat to do: " + std::string(kind.runbook) + "\n";
}

std::string markdown_table() {
  std::string out =
      "| id | severity | source | meaning | what to do |\n"
      "|---|---|---|---|---|\n";
  for (const finding::Kind* kind : catalogue()) {
    out += "| `" + std::string(kind->id) + "` | " +
           std::string(finding::kSeverityNames.name(kind->severity)) + " | " +
           std::string(kind->source) + " | " + std::string(kind->meaning) + " | " +
           std::string(kind->runbook) + " |\n";
  }
  return out;
}

}  // namespace roced::findings
