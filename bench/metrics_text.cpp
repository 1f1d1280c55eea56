// SPDX-License-Identifier: Apache-2.0
#include "bench/metrics_text.hpp"

#include <cstdlib>
#include <sstream>

namespace roced::bench {

namespace {

// One series line: name, optional {labels}, value, optional timestamp. False when malformed.
bool parse_line(const std::string& line, Sample& sample) {
  size_t at = 0;
  while (at < line.size() && line[at] != '{' && line[at] != ' ' && line[at] != '\t') ++at;
  sample.name = line.substr(0, at);
  if (sample.name.empty()) return false;
  if (at < line.size() && line[at] == '{') {
    ++at;
    for (;;) {
      while (at < line.size() && (line[at] == ' ' || line[at] == ',')) ++at;
      if (at >= line.size()) return false;
      if (line[at] == '}') {
        ++at;
        break;
      }
      const size_t equals = line.find('=', at);
      if (equals == std::string::npos || equals + 1 >= line.size() || line[equals + 1] != '"')
        return false;
      const std::string key = line.substr(at, equals - at);
      std::string value;
      at = equals + 2;
      while (at < line.size() && line[at] != '"') {
        if (line[at] == '\\' && at + 1 < line.size()) {
          ++at;
          value += line[at] == 'n' ? '\n' : line[at];
        } else {
          value += line[at];
        }
        ++at;
      }
      if (at >= line.size()) return false;
      ++at;  // closing quote
      sample.labels[key] = value;
    }
  }
  const std::string rest = line.substr(at);
  const char* begin = rest.c_str();
  while (*begin == ' ' || *begin == '\t') ++begin;
  char* end = nullptr;
  sample.value = std::strtod(begin, &end);  // also NaN, +Inf, -Inf
  return end != begin;
}

}  // namespace

ParsedMetrics parse_metrics_text(const std::string& text) {
  ParsedMetrics parsed;
  std::istringstream lines(text);
  size_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    Sample sample;
    if (parse_line(line, sample)) {
      parsed.samples.push_back(std::move(sample));
    } else {
      parsed.errors.push_back(std::to_string(number) + ": " + line);
    }
  }
  return parsed;
}

std::optional<double> find_sample(const std::vector<Sample>& samples, const std::string& name,
                                  const std::map<std::string, std::string>& labels) {
  for (const Sample& sample : samples) {
    if (sample.name != name) continue;
    bool match = true;
    for (const auto& [key, value] : labels) {
      const auto it = sample.labels.find(key);
      if (it == sample.labels.end() || it->second != value) match = false;
    }
    if (match) return sample.value;
  }
  return std::nullopt;
}

}  // namespace roced::bench
