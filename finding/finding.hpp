// SPDX-License-Identifier: Apache-2.0
#pragma once
// One type for "this is not as it should be". A Kind is a row of the finding catalogue: a stable
// id (a metric label, an alert's matcher, a line a script can match), its severity, where it
// comes from, a one-line meaning and what to do. The room that finds it defines its Kinds beside
// the code that makes them; docs/findings.md lists them all, and a test holds the two together.
// A Finding is one occurrence: which kind, on what, the two values it compares, and a sentence.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "util/enum_names.hpp"

namespace roced::finding {

// critical: RoCE is, or will be, lossy or down because of it. warning: roced could not do or
// tell what it should, or something will bite later. info: expected on some ports (a VF has no
// DCB), or worth knowing.
enum class Severity : uint8_t { Critical, Warning, Info };
inline constexpr auto kSeverityNames = enum_names<Severity>(
    {{Severity::Critical, "critical"}, {Severity::Warning, "warning"}, {Severity::Info, "info"}});
static_assert(kSeverityNames.covers<Severity::Info>(), "name every Severity");

// Whether the thing is known to differ, or could not be read to know: roced never guesses.
enum class Verdict : uint8_t { Differs, CannotTell, Holds };
inline constexpr auto kVerdictNames = enum_names<Verdict>({{Verdict::Differs, "differs"},
                                                           {Verdict::CannotTell, "cannot_tell"},
                                                           {Verdict::Holds, "holds"}});
static_assert(kVerdictNames.covers<Verdict::Holds>(), "name every Verdict");

// A row of the catalogue. constexpr, defined once where it is found.
struct Kind {
  std::string_view id;  // "rocev2_gid_index_moved": lower case, digits and '_'
  Severity severity;
  std::string_view source;   // "plan", "apply", "settings", "switch", "watchdog", "qualify"
  std::string_view meaning;  // one line: what it says about the port
  std::string_view runbook;  // what to do about it
};

struct Finding {
  std::string id;
  Severity severity = Severity::Warning;
  std::string source;
  std::string subject;  // the port or device: "lan3", "mlx5_2"
  std::string about;    // the setting, counter or check within it, when the id alone does not say
  Verdict verdict = Verdict::Differs;
  std::string wanted;  // what roced wants or assumes, as a value: "3"
  std::string found;   // what it found: "5"; empty when it cannot tell
  std::string text;    // one sentence for a person, with both values

  bool operator==(const Finding&) const = default;
};

// A finding of `kind` on `subject`.
Finding make(const Kind& kind, std::string subject, std::string text, std::string wanted = {},
             std::string found = {});
// The same, for what could not be read: `why` says what stopped it.
Finding cannot_tell(const Kind& kind, std::string subject, std::string why);

// "rocev2_gid_index_moved: RoCE v2 GID index is 5, jobs use 3": the id first, so a script greps
// it and a person reads the rest.
std::string line(const Finding& finding);
// "critical: rocev2_gid_index_moved: RoCE v2 GID index is 5, ...": the severity leads, as the
// plan's and status's other lines lead with what they are.
std::string headline(const Finding& finding);
// The finding's sentences, for the documents that keep their free-text "warnings" key.
std::vector<std::string> texts(const std::vector<Finding>& findings);

// {id, severity, source, subject, about, verdict, wanted, found, text}; and back, for rocectl
// reading roced's documents. A key missing from the document is left at its default.
nlohmann::ordered_json to_json(const Finding& finding);
nlohmann::ordered_json to_json(const std::vector<Finding>& findings);
Finding from_json(const nlohmann::json& document);
std::vector<Finding> list_from_json(const nlohmann::json& document);

// Whether an id is well formed for a label value and a grep: [a-z][a-z0-9_]*.
bool valid_id(std::string_view id);

}  // namespace roced::finding
