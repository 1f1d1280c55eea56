// SPDX-License-Identifier: Apache-2.0
#pragma once
// Finding a diagnostic in a LoadResult, for the config tests.
#include <gtest/gtest.h>

#include <string>

#include "daemon/config/config.hpp"

namespace roced::config::test {

// `yaml` with `ports: {netdevs: ["*"]}` appended when it is a block mapping without a ports
// section, for the tests of other sections: no "roced manages no port" warning in their way,
// every line where it was. Anything else (a list, a flow mapping, two documents) is left as is.
inline std::string naming_ports(const std::string& yaml) {
  const size_t first = yaml.find_first_not_of(" \n");
  const bool block_mapping =
      first != std::string::npos && std::string("-[{#").find(yaml[first]) == std::string::npos;
  if (!block_mapping || yaml.find("---") != std::string::npos || yaml.rfind("ports:", 0) == 0 ||
      yaml.find("\nports:") != std::string::npos) {
    return yaml;
  }
  return yaml + (yaml.back() == '\n' ? "" : "\n") + "ports: {netdevs: [\"*\"]}\n";
}

inline LoadResult load(const std::string& yaml) {
  return load_string(naming_ports(yaml), "t.yaml");
}

// The one diagnostic of `severity` on `field`; fails the test when there is none or more.
inline Diagnostic only_on(const LoadResult& result, const std::string& field,
                          Diagnostic::Severity severity) {
  const Diagnostic* found = nullptr;
  int count = 0;
  for (const auto& d : result.diagnostics) {
    if (d.field == field && d.severity == severity) {
      found = &d;
      ++count;
    }
  }
  std::string all;
  for (const auto& d : result.diagnostics) all += d.to_string() + "\n";
  EXPECT_EQ(count, 1) << "diagnostics on " << field << " in:\n" << all;
  return found ? *found : Diagnostic{};
}

inline bool mentions(const LoadResult& result, const std::string& field) {
  for (const auto& d : result.diagnostics) {
    if (d.field == field) return true;
  }
  return false;
}

inline std::string all_text(const LoadResult& result) {
  std::string all;
  for (const auto& d : result.diagnostics) all += d.to_string() + "\n";
  return all;
}

}  // namespace roced::config::test

// An error at line:column on field whose message holds `text`; the load failed.
#define EXPECT_CONFIG_ERROR(result, line_, column_, field_, text)                             \
  do {                                                                                        \
    const auto& r_ = (result);                                                                \
    EXPECT_FALSE(r_.ok()) << roced::config::test::all_text(r_);                               \
    const auto d_ =                                                                           \
        roced::config::test::only_on(r_, field_, roced::config::Diagnostic::Severity::Error); \
    EXPECT_EQ(d_.line, line_) << d_.to_string();                                              \
    EXPECT_EQ(d_.column, column_) << d_.to_string();                                          \
    EXPECT_NE(d_.message.find(text), std::string::npos) << d_.to_string();                    \
  } while (0)

// A warning at line:column on field; the load succeeded.
#define EXPECT_CONFIG_WARNING(result, line_, column_, field_, text)                             \
  do {                                                                                          \
    const auto& r_ = (result);                                                                  \
    EXPECT_TRUE(r_.ok()) << roced::config::test::all_text(r_);                                  \
    const auto d_ =                                                                             \
        roced::config::test::only_on(r_, field_, roced::config::Diagnostic::Severity::Warning); \
    EXPECT_EQ(d_.line, line_) << d_.to_string();                                                \
    EXPECT_EQ(d_.column, column_) << d_.to_string();                                            \
    EXPECT_NE(d_.message.find(text), std::string::npos) << d_.to_string();                      \
  } while (0)
