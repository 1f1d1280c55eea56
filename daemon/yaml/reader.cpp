// SPDX-License-Identifier: Apache-2.0
// Typed reads of YAML nodes with file:line:column diagnostics.
#include "daemon/yaml/reader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "daemon/yaml/suggest.hpp"

namespace roced::yaml {

std::string Diagnostic::to_string() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  out += ": ";
  if (severity == Severity::Warning) out += "warning: ";
  if (!field.empty()) out += field + ": ";
  return out + message;
}

Location location_of(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {};
  return {mark.line + 1, mark.column + 1};
}

void Diagnostics::error(Location where, std::string field, std::string message) {
  list_.push_back({Diagnostic::Severity::Error, file_, where.line, where.column, std::move(field),
                   std::move(message)});
  ++errors_;
}

void Diagnostics::warning(Location where, std::string field, std::string message) {
  list_.push_back({Diagnostic::Severity::Warning, file_, where.line, where.column, std::move(field),
                   std::move(message)});
}

std::vector<std::string> Diagnostics::error_fields_under(const std::string& prefix) const {
  std::vector<std::string> out;
  for (const auto& d : list_) {
    if (d.severity != Diagnostic::Severity::Error) continue;
    if (d.field == prefix || d.field.empty()) {
      out.emplace_back();
    } else if (d.field.rfind(prefix + ".", 0) == 0) {
      out.push_back(d.field.substr(prefix.size() + 1));
    }
  }
  return out;
}

std::vector<Diagnostic> Diagnostics::sorted() const {
  std::vector<Diagnostic> out = list_;
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    const auto key = [](const Diagnostic& d) {
      return std::pair{d.line == 0 ? INT32_MAX : d.line, d.column};
    };
    return key(a) < key(b);
  });
  return out;
}

namespace {

std::string describe_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "'" + node.Scalar() + "'";
  }
}

// Decimal or 0x hex, with an optional sign; nullopt for anything else (floats, words, overflow).
std::optional<int64_t> parse_integer(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t start = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  int base = 10;
  if (text.size() > start + 2 && text[start] == '0' && (text[start + 1] == 'x')) {
    base = 16;
    start += 2;
  }
  if (start >= text.size()) return std::nullopt;
  for (size_t i = start; i < text.size(); ++i) {
    if (base == 10 ? !std::isdigit(static_cast<unsigned char>(text[i]))
                   : !std::isxdigit(static_cast<unsigned char>(text[i]))) {
      return std::nullopt;
    }
  }
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, base == 16 ? 16 : 10);
  if (errno == ERANGE) return std::nullopt;
  return value;
}

}  // namespace

void Reader::entries(const YAML::Node& node, Location where, const std::string& field,
                     const std::vector<std::string>& known,
                     const std::function<void(const Entry&)>& each) {
  if (node.IsNull()) return;
  if (!node.IsMap()) {
    out_.error(where, field, "expected a mapping (key: value), got " + describe_kind(node));
    return;
  }
  std::map<std::string, int> first_line;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const Location key_at = location_of(it->first);
    if (!it->first.IsScalar()) {
      out_.error(key_at, field, "a key must be a plain name, not " + describe_kind(it->first));
      continue;
    }
    const std::string key = it->first.Scalar();
    const std::string key_field = field.empty() ? key : field + "." + key;
    if (auto [seen, fresh] = first_line.emplace(key, key_at.line); !fresh) {
      out_.error(key_at, key_field,
                 "duplicate key '" + key + "' (first at line " + std::to_string(seen->second) +
                     "); YAML keeps only one, remove the other");
      continue;
    }
    if (!known.empty() && std::find(known.begin(), known.end(), key) == known.end()) {
      std::string where_text = field.empty() ? "at the top level" : "in " + field;
      out_.error(key_at, key_field,
                 "unknown key '" + key + "' " + where_text + did_you_mean(key, known));
      continue;
    }
    const YAML::Node value = it->second;
    const Location value_at = value.IsNull() ? key_at : location_of(value);
    each(Entry{key, key_at, value, value_at.line == 0 ? key_at : value_at});
  }
}

std::optional<int64_t> Reader::integer(const YAML::Node& node, Location where,
                                       const std::string& field, int64_t min, int64_t max,
                                       const std::string& what) {
  if (!node.IsScalar()) {
    out_.error(where, field, "expected " + what + ", got " + describe_kind(node));
    return std::nullopt;
  }
  const auto value = parse_integer(node.Scalar());
  if (!value) {
    out_.error(where, field, "'" + node.Scalar() + "' is not an integer; expected " + what);
    return std::nullopt;
  }
  if (*value < min || *value > max) {
    out_.error(where, field, node.Scalar() + " is not " + what);
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> Reader::choice(const YAML::Node& node, Location where,
                                          const std::string& field,
                                          const std::vector<std::string>& choices) {
  std::string names;
  for (const auto& choice : choices) names += (names.empty() ? "" : " | ") + choice;
  if (!node.IsScalar()) {
    out_.error(where, field, "expected one of " + names + ", got " + describe_kind(node));
    return std::nullopt;
  }
  const std::string& text = node.Scalar();
  if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
    out_.error(where, field, "'" + text + "' is not one of " + names + did_you_mean(text, choices));
    return std::nullopt;
  }
  return text;
}

std::optional<std::string> Reader::string(const YAML::Node& node, Location where,
                                          const std::string& field, const std::string& what) {
  if (!node.IsScalar() || node.Scalar().empty()) {
    out_.error(where, field, "expected " + what + ", got " + describe_kind(node));
    return std::nullopt;
  }
  return node.Scalar();
}

bool Reader::list(const YAML::Node& node, Location where, const std::string& field,
                  const std::string& what,
                  const std::function<void(const YAML::Node&, Location)>& each) {
  if (!node.IsSequence()) {
    out_.error(where, field, "expected a list of " + what + " ([...]), got " + describe_kind(node));
    return false;
  }
  for (const auto& item : node) {
    const Location at = location_of(item);
    each(item, at.line == 0 ? where : at);
  }
  return true;
}

std::optional<uint8_t> Reader::priority_mask(const YAML::Node& node, Location where,
                                             const std::string& field) {
  uint8_t mask = 0;
  bool ok = true;
  const bool is_list =
      list(node, where, field, "priorities", [&](const YAML::Node& item, Location at) {
        const auto priority = integer(item, at, field, 0, 7, "a priority (0-7)");
        if (!priority) {
          ok = false;
          return;
        }
        const auto bit = static_cast<uint8_t>(1u << *priority);
        if (mask & bit) {
          out_.error(at, field, "priority " + std::to_string(*priority) + " is listed twice");
          ok = false;
        }
        mask = static_cast<uint8_t>(mask | bit);
      });
  if (!is_list || !ok) return std::nullopt;
  return mask;
}

std::optional<std::array<int64_t, 8>> Reader::eight_integers(const YAML::Node& node, Location where,
                                                             const std::string& field, int64_t min,
                                                             int64_t max, const std::string& what) {
  std::array<int64_t, 8> values{};
  size_t count = 0;
  bool ok = true;
  const bool is_list = list(node, where, field, what, [&](const YAML::Node& item, Location at) {
    const auto value = integer(item, at, field, min, max, what);
    if (!value) ok = false;
    if (count < values.size() && value) values[count] = *value;
    ++count;
  });
  if (!is_list) return std::nullopt;
  if (count != 8) {
    out_.error(where, field,
               "needs 8 entries (one per priority or buffer 0-7), got " + std::to_string(count));
    return std::nullopt;
  }
  if (!ok) return std::nullopt;
  return values;
}

}  // namespace roced::yaml
