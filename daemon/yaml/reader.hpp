// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading a YAML file's nodes as typed values (roced.yaml, its profiles). Every check reports a
// Diagnostic at the node's line and column and returns nullopt/false, so the loader carries on and
// reports every problem.

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/enum_names.hpp"

namespace roced::yaml {

// One problem found in the file: "roced.yaml:12:9: profile.pfc.priorities: 9 is not a priority
// (0-7)". line and column are 1-based; 0 when the problem is not at one place.
struct Diagnostic {
  enum class Severity { Error, Warning } severity = Severity::Error;
  std::string file;
  int line = 0;
  int column = 0;
  std::string field;  // dotted path: "profile.pfc.priorities", "ports.overrides.lan3.mtu"
  std::string message;
  std::string to_string() const;
};
inline constexpr auto kSeverityNames = enum_names<Diagnostic::Severity>(
    {{Diagnostic::Severity::Error, "error"}, {Diagnostic::Severity::Warning, "warning"}});
static_assert(kSeverityNames.covers<Diagnostic::Severity::Warning>());

struct Location {
  int line = 0;  // 1-based; 0 = not at one place
  int column = 0;
};
Location location_of(const YAML::Node& node);

class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}
  void error(Location where, std::string field, std::string message);
  void warning(Location where, std::string field, std::string message);
  int errors() const { return errors_; }
  // The fields with an error under `prefix` ("profile"), relative to it ("pfc.priorities");
  // "" when `prefix` itself had one.
  std::vector<std::string> error_fields_under(const std::string& prefix) const;
  // In file order; problems that are not at one place come last.
  std::vector<Diagnostic> sorted() const;

 private:
  std::string file_;
  std::vector<Diagnostic> list_;
  int errors_ = 0;
};

// A key of a mapping and its value, with where each is.
struct Entry {
  std::string key;
  Location key_at;
  YAML::Node value;
  Location value_at;  // the key's place when the value is empty
};

class Reader {
 public:
  explicit Reader(Diagnostics& out) : out_(out) {}
  Diagnostics& diagnostics() { return out_; }

  // Calls `each` for every entry of the mapping `node`, in file order. Reports a node that is not
  // a mapping, non-scalar keys, duplicate keys and (when `known` is not empty) unknown keys, with a
  // suggestion; `each` sees none of those. An empty node is an empty mapping.
  void entries(const YAML::Node& node, Location where, const std::string& field,
               const std::vector<std::string>& known,
               const std::function<void(const Entry&)>& each);

  // An integer (decimal or 0x hex) in [min, max]; `what` names it: "a priority (0-7)".
  std::optional<int64_t> integer(const YAML::Node& node, Location where, const std::string& field,
                                 int64_t min, int64_t max, const std::string& what);
  // One of `choices` (reported with a suggestion otherwise).
  std::optional<std::string> choice(const YAML::Node& node, Location where,
                                    const std::string& field,
                                    const std::vector<std::string>& choices);
  // The same, from an enum's name table: the value named.
  template <class E, std::size_t N>
  std::optional<E> choice(const YAML::Node& node, Location where, const std::string& field,
                          const EnumNames<E, N>& names) {
    const auto name = choice(node, where, field, names.all_names());
    return name ? names.parse(*name) : std::nullopt;
  }
  std::optional<std::string> string(const YAML::Node& node, Location where,
                                    const std::string& field, const std::string& what);
  // A list; `each` reads one item. False when `node` is not a list.
  bool list(const YAML::Node& node, Location where, const std::string& field,
            const std::string& what, const std::function<void(const YAML::Node&, Location)>& each);
  // A list of distinct priorities as a bit mask (bit p = priority p).
  std::optional<uint8_t> priority_mask(const YAML::Node& node, Location where,
                                       const std::string& field);
  // A list of exactly 8 integers in [min, max].
  std::optional<std::array<int64_t, 8>> eight_integers(const YAML::Node& node, Location where,
                                                       const std::string& field, int64_t min,
                                                       int64_t max, const std::string& what);

 private:
  Diagnostics& out_;
};

}  // namespace roced::yaml
