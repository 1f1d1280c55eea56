// SPDX-License-Identifier: Apache-2.0
#pragma once
// Strict, typed reading of the sim's YAML files (node description, scenario): unknown keys (with a
// "did you mean"), duplicate keys, wrong types and out-of-range values become a FileError that
// points at the offending line and column. Internal to the model library.

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/file_error.hpp"

namespace roce_sim::yaml_reader {

// The closest candidate to `word` if it is a plausible typo (small edit distance), else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

std::string child_path(const std::string& parent, std::string_view key);  // "a.b"
std::string index_path(const std::string& parent, size_t index);          // "a[3]"

// One value found in a map (or a list element): the value, the node to point errors at (the key
// when the value is empty, since yaml-cpp marks an empty value after the line), and its field path.
struct Field {
  YAML::Node value;
  YAML::Mark mark;
  std::string path;
};

// One YAML file being read: parses it and turns a bad value into a FileError naming the file,
// line, column and field.
class YamlFile {
 public:
  explicit YamlFile(std::string file_name) : file_(std::move(file_name)) {}
  const std::string& file() const { return file_; }

  // Parses text; a syntax error becomes a FileError. An empty document is an empty map.
  YAML::Node parse(const std::string& text) const;

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& path,
                         const std::string& message) const;
  [[noreturn]] void fail(const Field& field, const std::string& message) const {
    fail(field.mark, field.path, message);
  }

  // A map with only `known` keys (any keys when `known` is empty), no duplicates.
  class Map {
   public:
    std::optional<Field> get(std::string_view key) const;
    Field require(std::string_view key) const;  // FileError "missing (required)"
    const Field& self() const { return self_; }

   private:
    friend class YamlFile;
    const YamlFile* reader_ = nullptr;
    Field self_;
    std::vector<std::pair<std::string, Field>> entries_;
  };
  Map map(const Field& field, const std::vector<std::string>& known) const;
  std::vector<Field> list(const Field& field) const;  // a sequence (elements' paths are "x[i]")

  std::string string(const Field& field) const;  // a non-empty scalar
  bool boolean(const Field& field) const;        // true | false
  int64_t integer(const Field& field, int64_t min, int64_t max) const;
  uint64_t unsigned_integer(const Field& field, uint64_t min, uint64_t max) const;
  double number(const Field& field, double min, double max) const;
  // "500ms", "2s", "250us", "1.5s", "2m", "1h"; "0" alone is allowed.
  std::chrono::microseconds duration(const Field& field) const;
  // A rate in bit/s: "80G", "400G", "1.5G", "800M", "10k", optionally followed by "bps" or "bit".
  uint64_t rate_bps(const Field& field) const;
  // One of `choices`, with a "did you mean" when close.
  std::string choice(const Field& field, const std::vector<std::string>& choices) const;

 private:
  std::string file_;
};

// "192.168.2.10/24" or "fd00::2/64" (not link-local: that one comes from the MAC). Sets the
// address without prefix; returns whether it is IPv6.
bool parse_cidr(const YamlFile& reader, const Field& field, std::string& address_out);

// For error messages: "2s", "500ms", "12.5s".
std::string format_duration(std::chrono::microseconds d);
// "80G", "1.5G", "800M".
std::string format_rate(uint64_t bps);

}  // namespace roce_sim::yaml_reader
