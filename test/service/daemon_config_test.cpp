// SPDX-License-Identifier: Apache-2.0
// The `daemon:` section of roced.yaml (daemon/config/read_daemon.cpp): defaults, every key, the
// duration forms, and each mistake reported at its line and column with the field's name.
#include <gtest/gtest.h>

#include "daemon/config/config.hpp"
#include "daemon/config/read_daemon.hpp"
#include "test/config/expect.hpp"
#include "test/support/build_paths.hpp"

namespace roced::config {
namespace {

using namespace std::chrono_literals;

using test::all_text;
using test::naming_ports;

TEST(DaemonSection, AbsentGivesTheDefaults) {
  const LoadResult result = load_string(naming_ports("profile: {mtu: 9000}\n"), "t.yaml");
  ASSERT_TRUE(result.ok()) << all_text(result);
  EXPECT_EQ(result.config->daemon, DaemonSettings{});
  EXPECT_EQ(result.config->daemon.drift_policy, DaemonSettings::DriftPolicy::Enforce);
  EXPECT_EQ(result.config->daemon.drift_check_interval, 30s);
  EXPECT_EQ(result.config->daemon.log_level, "info");
}

TEST(DaemonSection, EveryKeyLands) {
  const LoadResult result = load_string(naming_ports("daemon:\n"
                                                     "  drift_policy: report\n"
                                                     "  drift_check_interval: 500ms\n"
                                                     "  log_level: debug\n"),
                                        "t.yaml");
  ASSERT_TRUE(result.ok()) << all_text(result);
  EXPECT_TRUE(result.diagnostics.empty()) << all_text(result);
  EXPECT_EQ(result.config->daemon.drift_policy, DaemonSettings::DriftPolicy::Report);
  EXPECT_EQ(result.config->daemon.drift_check_interval, 500ms);
  EXPECT_EQ(result.config->daemon.log_level, "debug");
}

TEST(DaemonSection, DurationForms) {
  const std::vector<std::pair<std::string, std::chrono::milliseconds>> cases = {
      {"30s", 30s}, {"500ms", 500ms}, {"5m", 5min}, {"1h", 1h}, {"10", 10s}, {"\"45\"", 45s}};
  for (const auto& [text, expected] : cases) {
    const LoadResult result =
        load_string(naming_ports("daemon: {drift_check_interval: " + text + "}\n"), "t.yaml");
    ASSERT_TRUE(result.ok()) << text << ": " << all_text(result);
    EXPECT_EQ(result.config->daemon.drift_check_interval, expected) << text;
  }
  EXPECT_EQ(detail::parse_duration("1.5s"), std::nullopt);
  EXPECT_EQ(detail::parse_duration("s"), std::nullopt);
  EXPECT_EQ(detail::parse_duration("-5s"), std::nullopt);
  EXPECT_EQ(detail::parse_duration("5 s"), std::nullopt);
  EXPECT_EQ(detail::parse_duration("5d"), std::nullopt);
}

struct BadCase {
  std::string yaml;
  std::string expected;  // the whole first diagnostic
};

TEST(DaemonSection, MistakesNameFileLineColumnAndField) {
  const std::vector<BadCase> cases = {
      {"daemon:\n  drift_policy: enforced\n",
       "t.yaml:2:17: daemon.drift_policy: 'enforced' is not one of enforce | report (did you "
       "mean 'enforce'?)"},
      {"daemon:\n  drift_check_interval: 30x\n",
       "t.yaml:2:25: daemon.drift_check_interval: '30x' is not a duration: an integer with a "
       "unit ms, s, m or h (30s, 500ms, 5m), or plain seconds"},
      {"daemon:\n  drift_check_interval: 50ms\n",
       "t.yaml:2:25: daemon.drift_check_interval: 50ms is out of range (100ms to 24h)"},
      {"daemon:\n  drift_check_interval: 25h\n",
       "t.yaml:2:25: daemon.drift_check_interval: 25h is out of range (100ms to 24h)"},
      {"daemon:\n  drift_check_interval: [30s]\n",
       "t.yaml:2:25: daemon.drift_check_interval: expected a duration: an integer with a unit ms, "
       "s, m or h (30s, 500ms, 5m), or plain seconds"},
      {"daemon:\n  log_level: verbose\n",
       "t.yaml:2:14: daemon.log_level: 'verbose' is not one of trace | debug | info | warn | "
       "error | critical | off"},
      {"daemon:\n  log_level: debg\n",
       "t.yaml:2:14: daemon.log_level: 'debg' is not one of trace | debug | info | warn | "
       "error | critical | off (did you mean 'debug'?)"},
  };
  for (const auto& c : cases) {
    const LoadResult result = load_string(naming_ports(c.yaml), "t.yaml");
    EXPECT_FALSE(result.ok()) << c.yaml;
    ASSERT_FALSE(result.diagnostics.empty()) << c.yaml;
    EXPECT_EQ(result.diagnostics.front().to_string(), c.expected) << c.yaml;
  }
}

TEST(DaemonSection, UnknownKeysAreErrorsWithASuggestion) {
  const LoadResult result = load_string(naming_ports("daemon:\n  drift_polcy: report\n"), "t.yaml");
  EXPECT_FALSE(result.ok());
  ASSERT_EQ(result.diagnostics.size(), 1u) << all_text(result);
  EXPECT_EQ(result.diagnostics[0].line, 2);
  EXPECT_EQ(result.diagnostics[0].column, 3);
  EXPECT_NE(result.diagnostics[0].message.find("did you mean 'drift_policy'"), std::string::npos)
      << all_text(result);
  // And the section itself is a known top-level key, suggested when misspelt.
  const LoadResult top = load_string(naming_ports("deamon: {}\n"), "t.yaml");
  EXPECT_FALSE(top.ok());
  ASSERT_FALSE(top.diagnostics.empty());
  EXPECT_NE(top.diagnostics[0].message.find("did you mean 'daemon'"), std::string::npos)
      << all_text(top);
}

TEST(DaemonSection, ShippedExampleSpellsTheDefaults) {
  const LoadResult result = load_file(std::string(ROCED_SOURCE_DIR) + "/packaging/roced.yaml");
  ASSERT_TRUE(result.ok()) << all_text(result);
  EXPECT_EQ(result.config->daemon, DaemonSettings{});
}

}  // namespace
}  // namespace roced::config
