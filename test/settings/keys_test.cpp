// SPDX-License-Identifier: Apache-2.0
// Every row's key is a key roced.yaml's reader takes under `profile:`: the row's example value,
// written at the row's key, loads without a diagnostic, and the same value one letter off is
// refused. This ties the settings table's keys (the names in plans, logs, D-Bus and metrics) to
// the config reader without a second parser.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "daemon/config/config.hpp"
#include "daemon/settings/setting.hpp"
#include "test/config/expect.hpp"

namespace roced::settings {
namespace {

// "pfc.priorities" + "[3]" -> "profile:\n  pfc:\n    priorities: [3]\n".
std::string yaml_at(std::string_view key, std::string_view value) {
  std::string out = "profile:\n";
  std::string indent = "  ";
  for (std::size_t dot; (dot = key.find('.')) != std::string_view::npos;
       key.remove_prefix(dot + 1)) {
    out += indent + std::string(key.substr(0, dot)) + ":\n";
    indent += "  ";
  }
  return out + indent + std::string(key) + ": " + std::string(value) + "\n";
}

std::string diagnostics(const config::LoadResult& loaded) {
  std::string out;
  for (const auto& d : loaded.diagnostics) out += d.to_string() + "\n";
  return out;
}

TEST(SettingKeys, EveryKeyLoadsItsExample) {
  for (const SettingInfo& row : kSettings) {
    ASSERT_FALSE(row.example.empty()) << row.key;
    const std::string text = yaml_at(row.key, row.example);
    const config::LoadResult loaded =
        config::load_string(config::test::naming_ports(text), "roced.yaml");
    EXPECT_TRUE(loaded.ok()) << text << diagnostics(loaded);
    EXPECT_TRUE(loaded.diagnostics.empty()) << text << diagnostics(loaded);
  }
}

TEST(SettingKeys, AKeyOneLetterOffIsRefused) {
  for (const SettingInfo& row : kSettings) {
    const std::string key = std::string(row.key) + "s";
    const config::LoadResult loaded = config::load_string(yaml_at(key, row.example), "roced.yaml");
    EXPECT_FALSE(loaded.ok()) << key;
  }
}

}  // namespace
}  // namespace roced::settings
