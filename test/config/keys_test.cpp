// SPDX-License-Identifier: Apache-2.0
// Every row's key is a key roced.yaml's reader takes under `profile:`: the row's example value,
// written at the row's key, loads without a diagnostic, and the same value one letter off is
// refused. This ties the settings table's keys (the names in plans, logs, D-Bus and metrics) to
// the config reader without a second parser.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/config/config.hpp"
#include "daemon/settings/profile_reader.hpp"
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

// Each key's reader sets its own field and no other: its example, loaded over the defaults,
// leaves every other key's value as it was (ProfileKey::same, which the LAG check uses), and a
// value other than the default is seen by the key's own comparison.
TEST(SettingKeys, EachKeySetsOnlyItsOwnField) {
  const Profile defaults = default_profile();
  for (const SettingInfo& row : kSettings) {
    const config::LoadResult loaded = config::load_string(
        config::test::naming_ports(yaml_at(row.key, row.example)), "roced.yaml");
    ASSERT_TRUE(loaded.ok()) << row.key << diagnostics(loaded);
    for (const ProfileKey& other : profile_keys()) {
      if (other.key == row.key) continue;
      EXPECT_TRUE(other.same(loaded.config->profile, defaults))
          << "reading " << row.key << " changed " << other.key;
    }
  }
  // A key whose example differs from the default: its own comparison sees it.
  const config::LoadResult mtu =
      config::load_string(config::test::naming_ports(yaml_at("mtu", "4200")), "roced.yaml");
  ASSERT_TRUE(mtu.ok()) << diagnostics(mtu);
  EXPECT_FALSE(find_profile_key("mtu")->same(mtu.config->profile, defaults));
}

// The profile's keys are the table's, plus the two that choose the jobs' GID and are not written;
// the sections (pfc, ecn, roce) come from the dotted keys.
TEST(SettingKeys, TheReaderTakesTheTablesKeys) {
  EXPECT_EQ(profile_keys().size(), kSettings.size() + 2);
  EXPECT_NE(find_profile_key("roce.gid_index"), nullptr);
  const std::vector<std::string> pfc = profile_keys_under("pfc");
  EXPECT_EQ(pfc, (std::vector<std::string>{"priorities", "cable_length"}));
  const std::vector<std::string> top = profile_keys_under("");
  EXPECT_NE(std::find(top.begin(), top.end(), "ecn"), top.end());
  EXPECT_EQ(std::find(top.begin(), top.end(), "ecn.dcqcn"), top.end());
}

}  // namespace
}  // namespace roced::settings
