// SPDX-License-Identifier: Apache-2.0
// The settings' identity table: every name the daemon prints reads back as the setting (and the
// knob) it came from, and the names are the ones docs/config.md, the plan JSON and the metrics
// labels have always used.
#include "daemon/settings/setting.hpp"

#include <gtest/gtest.h>

namespace roced::settings {
namespace {

TEST(SettingTable, EveryNameReadsBack) {
  for (const SettingInfo& row : kSettings) {
    const std::string instance = row.keyed ? "rp_ai_rate" : "";
    const std::string name = setting_name(row.id, instance);
    const auto parsed = parse_setting_name(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(parsed->first, row.id) << name;
    EXPECT_EQ(parsed->second, instance) << name;
  }
}

TEST(SettingTable, NamesAreTheConfigKeys) {
  EXPECT_EQ(setting_name(Setting::Dcbx), "dcbx");
  EXPECT_EQ(setting_name(Setting::PfcPriorities), "pfc.priorities");
  EXPECT_EQ(setting_name(Setting::CableLength), "pfc.cable_length");
  EXPECT_EQ(setting_name(Setting::StallPrevention), "stall_prevention");
  EXPECT_EQ(setting_name(Setting::Dcqcn, "rp_ai_rate"), "ecn.dcqcn.rp_ai_rate");
  EXPECT_EQ(setting_name(Setting::Dcqcn), "ecn.dcqcn");
  EXPECT_EQ(setting_name(Setting::RdmaCmTos), "roce.tos");
  // An instance means nothing to a setting that is not keyed.
  EXPECT_EQ(setting_name(Setting::Mtu, "ignored"), "mtu");
}

TEST(SettingTable, UnknownNamesAreRefused) {
  EXPECT_FALSE(parse_setting_name("").has_value());
  EXPECT_FALSE(parse_setting_name("pfc").has_value());
  EXPECT_FALSE(parse_setting_name("pfc.priorities.3").has_value());  // not keyed
  EXPECT_FALSE(parse_setting_name("ecn.dcqcn.").has_value());
  EXPECT_FALSE(parse_setting_name("ecn.dcqcnx").has_value());
}

TEST(SettingTable, KeyOfIsTheMetricsGroup) {
  EXPECT_EQ(key_of(Setting::Dcqcn), "ecn.dcqcn");
  EXPECT_EQ(key_of(Setting::EcnPriorities), "ecn.priorities");
}

TEST(SettingTable, FeaturesGroupTheSharedWrites) {
  EXPECT_EQ(info(Setting::Trust).feature, info(Setting::DscpMap).feature);
  EXPECT_EQ(info(Setting::PfcPriorities).feature, info(Setting::CableLength).feature);
  EXPECT_NE(info(Setting::Ets).feature, info(Setting::PfcPriorities).feature);
  EXPECT_EQ(kFeatureNames.name(info(Setting::PfcPriorities).feature), "setpfc");
}

}  // namespace
}  // namespace roced::settings
