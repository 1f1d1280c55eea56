// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Prometheus text exposition format (0.0.4) as a bench reads it: one Sample per series line,
// comments (# HELP, # TYPE) skipped. Enough to count series and look values up by labels.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roced::bench {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct ParsedMetrics {
  std::vector<Sample> samples;
  std::vector<std::string> errors;  // lines that are not a series (with their line number)
};

ParsedMetrics parse_metrics_text(const std::string& text);

// The value of the first sample named `name` whose labels include every pair of `labels`.
std::optional<double> find_sample(const std::vector<Sample>& samples, const std::string& name,
                                  const std::map<std::string, std::string>& labels);

}  // namespace roced::bench
