// SPDX-License-Identifier: Apache-2.0
#include "sim/model/yaml_reader.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace roce_sim::yaml_reader {
namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// Parses a decimal number (digits, optional fraction) at the start of text; returns the rest.
std::optional<std::pair<double, std::string_view>> leading_number(std::string_view text) {
  size_t end = 0;
  bool digits = false;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) {
    ++end;
    digits = true;
  }
  if (end < text.size() && text[end] == '.') {
    ++end;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) {
      ++end;
      digits = true;
    }
  }
  if (!digits) return std::nullopt;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, value);
  if (ec != std::errc{} || ptr != text.data() + end) return std::nullopt;
  return std::make_pair(value, text.substr(end));
}

std::string type_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "nothing";
    case YAML::NodeType::Scalar:
      return quoted(node.Scalar());
  }
  return "something else";
}

}  // namespace

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const auto& candidate : candidates) {
    const size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  // A typo, not a different word: at most a third of the letters wrong (and at least one allowed).
  const size_t allowed = std::max<size_t>(1, std::max(word.size(), best.size()) / 3);
  return best_distance <= allowed ? best : std::string{};
}

std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string index_path(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

YAML::Node YamlFile::parse(const std::string& text) const {
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsDefined() || root.IsNull()) return YAML::Node(YAML::NodeType::Map);
    return root;
  } catch (const YAML::ParserException& e) {
    throw FileError(file_, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
}

void YamlFile::fail(const YAML::Mark& mark, const std::string& path,
                    const std::string& message) const {
  if (mark.is_null()) throw FileError(file_, 0, 0, path, message);
  throw FileError(file_, mark.line + 1, mark.column + 1, path, message);
}

YamlFile::Map YamlFile::map(const Field& field, const std::vector<std::string>& known) const {
  if (!field.value.IsMap()) {
    fail(field, "expected a map of " +
                    (known.empty() ? std::string("keys")
                                   : "keys (" +
                                         [&] {
                                           std::string names;
                                           for (const auto& k : known)
                                             names += (names.empty() ? "" : ", ") + k;
                                           return names;
                                         }() +
                                         ")") +
                    ", got " + type_name(field.value));
  }
  Map result;
  result.reader_ = this;
  result.self_ = field;
  for (auto it = field.value.begin(); it != field.value.end(); ++it) {
    // A copy (a cheap handle): it->first lives in the iterator's temporary proxy, which is gone
    // by the next statement (AddressSanitizer: stack-use-after-scope).
    const YAML::Node key_node = it->first;
    if (!key_node.IsScalar()) fail(key_node.Mark(), field.path, "keys must be plain names");
    const std::string key = key_node.Scalar();
    const std::string path = child_path(field.path, key);
    if (!known.empty() && std::find(known.begin(), known.end(), key) == known.end()) {
      std::string message = "unknown key";
      if (const auto suggestion = closest_match(key, known); !suggestion.empty()) {
        message += " (did you mean '" + suggestion + "'?)";
      }
      fail(key_node.Mark(), path, message);
    }
    for (const auto& [existing, previous] : result.entries_) {
      if (existing == key) {
        fail(key_node.Mark(), path,
             "duplicate key (first given on line " + std::to_string(previous.mark.line + 1) + ")");
      }
    }
    const YAML::Node value = it->second;
    const YAML::Mark mark = value.IsNull() ? key_node.Mark() : value.Mark();
    result.entries_.push_back({key, Field{value, mark, path}});
  }
  return result;
}

std::optional<Field> YamlFile::Map::get(std::string_view key) const {
  for (const auto& [name, field] : entries_) {
    if (name == key) return field;
  }
  return std::nullopt;
}

Field YamlFile::Map::require(std::string_view key) const {
  if (auto field = get(key)) return *field;
  reader_->fail(self_.mark, child_path(self_.path, key), "missing (required)");
}

std::vector<Field> YamlFile::list(const Field& field) const {
  if (!field.value.IsSequence()) fail(field, "expected a list, got " + type_name(field.value));
  std::vector<Field> items;
  size_t index = 0;
  for (const auto& element : field.value) {
    const YAML::Mark mark = element.IsNull() ? field.mark : element.Mark();
    items.push_back(Field{element, mark, index_path(field.path, index++)});
  }
  return items;
}

std::string YamlFile::string(const Field& field) const {
  if (!field.value.IsScalar() || field.value.Scalar().empty()) {
    fail(field, "expected a text value, got " + type_name(field.value));
  }
  return field.value.Scalar();
}

bool YamlFile::boolean(const Field& field) const {
  if (field.value.IsScalar()) {
    const std::string& text = field.value.Scalar();
    if (text == "true") return true;
    if (text == "false") return false;
  }
  fail(field, "expected true or false, got " + type_name(field.value));
}

int64_t YamlFile::integer(const Field& field, int64_t min, int64_t max) const {
  if (!field.value.IsScalar())
    fail(field, "expected a whole number, got " + type_name(field.value));
  const std::string& text = field.value.Scalar();
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size()) {
    fail(field, quoted(text) + " is not a whole number");
  }
  if (value < min || value > max) {
    fail(field,
         text + " is out of range (" + std::to_string(min) + "-" + std::to_string(max) + ")");
  }
  return value;
}

uint64_t YamlFile::unsigned_integer(const Field& field, uint64_t min, uint64_t max) const {
  if (!field.value.IsScalar())
    fail(field, "expected a whole number, got " + type_name(field.value));
  const std::string& text = field.value.Scalar();
  const std::string range =
      " is out of range (" + std::to_string(min) + "-" + std::to_string(max) + ")";
  // A negative number is a whole number, just not in range; from_chars<uint64_t> refuses the sign.
  const bool negative = text.size() > 1 && text[0] == '-';
  const std::string_view digits = negative ? std::string_view(text).substr(1) : text;
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if ((ec != std::errc{} && ec != std::errc::result_out_of_range) ||
      ptr != digits.data() + digits.size()) {
    fail(field, quoted(text) + " is not a whole number");
  }
  if ((negative && value != 0) || ec == std::errc::result_out_of_range || value < min ||
      value > max) {
    fail(field, text + range);
  }
  return value;
}

double YamlFile::number(const Field& field, double min, double max) const {
  if (!field.value.IsScalar()) fail(field, "expected a number, got " + type_name(field.value));
  const std::string& text = field.value.Scalar();
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size() || !std::isfinite(value)) {
    fail(field, quoted(text) + " is not a number");
  }
  if (value < min || value > max) {
    char range[64];
    std::snprintf(range, sizeof range, "%g-%g", min, max);
    fail(field, text + " is out of range (" + range + ")");
  }
  return value;
}

std::chrono::microseconds YamlFile::duration(const Field& field) const {
  const auto bad = [&]() -> std::chrono::microseconds {
    fail(field, (field.value.IsScalar() ? quoted(field.value.Scalar()) : type_name(field.value)) +
                    " is not a duration (e.g. 500ms, 2s)");
  };
  if (!field.value.IsScalar()) bad();
  const std::string& text = field.value.Scalar();
  if (text == "0") return std::chrono::microseconds{0};
  const auto parsed = leading_number(text);
  if (!parsed) bad();
  const auto [value, unit] = *parsed;
  double us_per_unit = 0;
  if (unit == "us" || unit == "µs") {
    us_per_unit = 1;
  } else if (unit == "ms") {
    us_per_unit = 1e3;
  } else if (unit == "s") {
    us_per_unit = 1e6;
  } else if (unit == "m" || unit == "min") {
    us_per_unit = 60e6;
  } else if (unit == "h") {
    us_per_unit = 3600e6;
  } else {
    bad();
  }
  const double us = std::round(value * us_per_unit);
  if (us > 1e15) fail(field, quoted(text) + " is too long");
  return std::chrono::microseconds{static_cast<int64_t>(us)};
}

uint64_t YamlFile::rate_bps(const Field& field) const {
  const auto bad = [&]() -> uint64_t {
    fail(field, (field.value.IsScalar() ? quoted(field.value.Scalar()) : type_name(field.value)) +
                    " is not a rate (e.g. 80G, 800M)");
  };
  if (!field.value.IsScalar()) bad();
  const auto parsed = leading_number(field.value.Scalar());
  if (!parsed) bad();
  auto [value, unit] = *parsed;
  for (std::string_view suffix : {"bps", "bit", "b"}) {
    if (unit.size() >= suffix.size() && unit.substr(unit.size() - suffix.size()) == suffix) {
      unit.remove_suffix(suffix.size());
      break;
    }
  }
  double scale = 0;
  if (unit.empty()) {
    scale = 1;
  } else if (unit == "k" || unit == "K") {
    scale = 1e3;
  } else if (unit == "M") {
    scale = 1e6;
  } else if (unit == "G") {
    scale = 1e9;
  } else if (unit == "T") {
    scale = 1e12;
  } else {
    bad();
  }
  const double bps = std::round(value * scale);
  if (bps > 1.6e12) fail(field, quoted(field.value.Scalar()) + " is faster than any port (1.6T)");
  return static_cast<uint64_t>(bps);
}

std::string YamlFile::choice(const Field& field, const std::vector<std::string>& choices) const {
  std::string names;
  for (const auto& c : choices) names += (names.empty() ? "" : ", ") + c;
  if (!field.value.IsScalar())
    fail(field, "expected one of " + names + ", got " + type_name(field.value));
  const std::string& text = field.value.Scalar();
  if (std::find(choices.begin(), choices.end(), text) != choices.end()) return text;
  std::string message = quoted(text) + " is not one of " + names;
  if (const auto suggestion = closest_match(text, choices); !suggestion.empty()) {
    message += " (did you mean '" + suggestion + "'?)";
  }
  fail(field, message);
}

// "192.168.2.10/24" or "fd00::2/64"; returns whether it is IPv6.
bool parse_cidr(const YamlFile& reader, const Field& field, std::string& address_out) {
  const std::string text = reader.string(field);
  const auto slash = text.find('/');
  const std::string address = text.substr(0, slash);
  const bool ipv6 = address.find(':') != std::string::npos;
  unsigned char buffer[16];
  if (slash == std::string::npos) {
    reader.fail(field, "'" + text + "' needs a prefix length (e.g. 192.168.2.10/24)");
  }
  if (inet_pton(ipv6 ? AF_INET6 : AF_INET, address.c_str(), buffer) != 1) {
    reader.fail(field, "'" + text + "' is not an IP address with prefix (e.g. 192.168.2.10/24)");
  }
  const std::string prefix = text.substr(slash + 1);
  const int max_prefix = ipv6 ? 128 : 32;
  if (prefix.empty() || prefix.size() > 3 ||
      !std::all_of(prefix.begin(), prefix.end(), [](unsigned char c) { return std::isdigit(c); }) ||
      std::stoi(prefix) > max_prefix) {
    reader.fail(field, "'" + text + "': prefix length must be 0-" + std::to_string(max_prefix));
  }
  if (ipv6 && buffer[0] == 0xfe && (buffer[1] & 0xc0) == 0x80) {
    reader.fail(field, "'" + text + "': the link-local address comes from the MAC; leave it out");
  }
  address_out = address;
  return ipv6;
}

std::string format_duration(std::chrono::microseconds d) {
  const auto us = d.count();
  char text[48];
  if (us % 1000000 == 0) {
    std::snprintf(text, sizeof text, "%llds", static_cast<long long>(us / 1000000));
  } else if (us % 1000 == 0 && us < 1000000) {
    std::snprintf(text, sizeof text, "%lldms", static_cast<long long>(us / 1000));
  } else if (us < 1000) {
    std::snprintf(text, sizeof text, "%lldus", static_cast<long long>(us));
  } else {
    std::snprintf(text, sizeof text, "%gs", static_cast<double>(us) / 1e6);
  }
  return text;
}

std::string format_rate(uint64_t bps) {
  char text[48];
  const auto fmt = [&](double value, const char* unit) {
    std::snprintf(text, sizeof text, "%g%s", value, unit);
  };
  const auto value = static_cast<double>(bps);
  if (bps >= 1000000000000ULL) {
    fmt(value / 1e12, "T");
  } else if (bps >= 1000000000ULL) {
    fmt(value / 1e9, "G");
  } else if (bps >= 1000000ULL) {
    fmt(value / 1e6, "M");
  } else if (bps >= 1000ULL) {
    fmt(value / 1e3, "k");
  } else {
    fmt(value, "");
  }
  return text;
}

}  // namespace roce_sim::yaml_reader
