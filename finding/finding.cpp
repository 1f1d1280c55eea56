// SPDX-License-Identifier: Apache-2.0
#include "finding/finding.hpp"

#include <utility>

namespace roced::finding {

Finding make(const Kind& kind, std::string subject, std::string text, std::string wanted,
             std::string found) {
  Finding out;
  out.id = std::string(kind.id);
  out.severity = kind.severity;
  out.source = std::string(kind.source);
  out.subject = std::move(subject);
  out.wanted = std::move(wanted);
  out.found = std::move(found);
  out.text = std::move(text);
  return out;
}

Finding cannot_tell(const Kind& kind, std::string subject, std::string why) {
  Finding out = make(kind, std::move(subject), std::move(why));
  out.verdict = Verdict::CannotTell;
  return out;
}

std::string line(const Finding& finding) { return finding.id + ": " + finding.text; }

std::string headline(const Finding& finding) {
  return std::string(kSeverityNames.name(finding.severity)) + ": " + line(finding);
}

std::vector<std::string> texts(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  out.reserve(findings.size());
  for (const auto& finding : findings) out.push_back(finding.text);
  return out;
}

nlohmann::ordered_json to_json(const Finding& finding) {
  return {{"id", finding.id},         {"severity", kSeverityNames.name(finding.severity)},
          {"source", finding.source}, {"subject", finding.subject},
          {"about", finding.about},   {"verdict", kVerdictNames.name(finding.verdict)},
          {"wanted", finding.wanted}, {"found", finding.found},
          {"text", finding.text}};
}

nlohmann::ordered_json to_json(const std::vector<Finding>& findings) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& finding : findings) out.push_back(to_json(finding));
  return out;
}

namespace {
std::string text_of(const nlohmann::json& document, const char* key) {
  const auto it = document.find(key);
  return it != document.end() && it->is_string() ? it->get<std::string>() : std::string();
}
}  // namespace

Finding from_json(const nlohmann::json& document) {
  Finding out;
  if (!document.is_object()) return out;
  out.id = text_of(document, "id");
  out.severity = kSeverityNames.parse(text_of(document, "severity")).value_or(Severity::Warning);
  out.source = text_of(document, "source");
  out.subject = text_of(document, "subject");
  out.about = text_of(document, "about");
  out.verdict = kVerdictNames.parse(text_of(document, "verdict")).value_or(Verdict::Differs);
  out.wanted = text_of(document, "wanted");
  out.found = text_of(document, "found");
  out.text = text_of(document, "text");
  return out;
}

std::vector<Finding> list_from_json(const nlohmann::json& document) {
  std::vector<Finding> out;
  if (!document.is_array()) return out;
  for (const auto& item : document) out.push_back(from_json(item));
  return out;
}

bool valid_id(std::string_view id) {
  if (id.empty() || id.front() < 'a' || id.front() > 'z') return false;
  for (const char c : id) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace roced::finding
