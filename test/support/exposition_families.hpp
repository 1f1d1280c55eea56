// SPDX-License-Identifier: Apache-2.0
#pragma once
// An exposition text read back family by family, as a scraper sees it, for tests of metric
// families: every series line must parse and belong to the family above it.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/metrics_text.hpp"

namespace roced::test {

using Label = std::pair<std::string, std::string>;

// The exposition read back: what a scraper sees, family by family.
struct Series {
  std::vector<Label> label;  // in the order written
  double value = 0;
};
struct Family {
  std::string name, help, type;
  std::vector<Series> metric;
};

// Splits `text` into its families by the HELP and TYPE lines; every series line must parse and
// belong to the family above it (histograms: NAME_bucket, _count and _sum).
inline std::vector<Family> read_back(const std::string& text) {
  std::vector<Family> families;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# HELP ", 0) == 0) {
      const size_t space = line.find(' ', 7);
      families.push_back({line.substr(7, space - 7), line.substr(space + 1), "", {}});
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      EXPECT_FALSE(families.empty()) << line;
      if (!families.empty()) families.back().type = line.substr(line.rfind(' ') + 1);
      continue;
    }
    const auto parsed = bench::parse_metrics_text(line);
    EXPECT_TRUE(parsed.errors.empty() && parsed.samples.size() == 1) << line;
    if (families.empty() || parsed.samples.size() != 1) continue;
    const bench::Sample& sample = parsed.samples.front();
    const std::string& family = families.back().name;
    EXPECT_TRUE(sample.name == family || sample.name == family + "_bucket" ||
                sample.name == family + "_count" || sample.name == family + "_sum")
        << line << " under " << family;
    Series series{{}, sample.value};
    // The written order, which the parser's map does not keep.
    const size_t open = line.find('{');
    const size_t close = line.rfind('}');
    if (open != std::string::npos && close != std::string::npos) {
      std::regex pair(R"re(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)")re");
      const std::string labels = line.substr(open + 1, close - open - 1);
      for (auto it = std::sregex_iterator(labels.begin(), labels.end(), pair);
           it != std::sregex_iterator(); ++it) {
        series.label.emplace_back((*it)[1], sample.labels.at((*it)[1]));
      }
    }
    if (sample.name == family) families.back().metric.push_back(std::move(series));
  }
  return families;
}

inline const Family* find(const std::vector<Family>& families, const std::string& name) {
  for (const auto& family : families) {
    if (family.name == name) return &family;
  }
  return nullptr;
}

// The value of the one series of `name` whose labels include every one of `labels`.
inline std::optional<double> value(const std::vector<Family>& families, const std::string& name,
                                   const std::vector<Label>& labels) {
  const Family* family = find(families, name);
  if (family == nullptr) return std::nullopt;
  std::optional<double> found;
  for (const auto& metric : family->metric) {
    bool all = true;
    for (const auto& label : labels) {
      all = all && std::find(metric.label.begin(), metric.label.end(), label) != metric.label.end();
    }
    if (!all) continue;
    EXPECT_FALSE(found) << name << ": more than one series matches";
    found = metric.value;
  }
  return found;
}

// The family names docs/metrics.md's tables list (each in backticks).
inline std::set<std::string> documented_families(const std::string& doc_path) {
  std::ifstream doc(doc_path);
  EXPECT_TRUE(doc) << doc_path;
  std::stringstream text;
  text << doc.rdbuf();
  std::set<std::string> documented;
  const std::string all = text.str();
  const std::regex backticked(R"(`((?:roced?|process)_[a-z0-9_]+)`)");
  for (auto it = std::sregex_iterator(all.begin(), all.end(), backticked);
       it != std::sregex_iterator(); ++it) {
    documented.insert((*it)[1]);
  }
  return documented;
}

}  // namespace roced::test
