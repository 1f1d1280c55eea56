// SPDX-License-Identifier: Apache-2.0
#pragma once
// A finding's identity and both values, as tests state them: EXPECT_EQ(seen(f), (Seen{...})).

#include <ostream>
#include <string>

#include "finding/finding.hpp"

namespace roced::test {

struct Seen {
  std::string id;
  finding::Severity severity = finding::Severity::Warning;
  std::string wanted;
  std::string found;
  bool operator==(const Seen&) const = default;
};

inline Seen seen(const finding::Finding& f) { return {f.id, f.severity, f.wanted, f.found}; }

inline std::ostream& operator<<(std::ostream& out, const Seen& s) {
  return out << s.id << " (" << finding::kSeverityNames.name(s.severity) << "): wanted " << s.wanted
             << ", found " << s.found;
}

}  // namespace roced::test
