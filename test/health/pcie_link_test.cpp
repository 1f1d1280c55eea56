// SPDX-License-Identifier: Apache-2.0
// The PCIe link attributes as drivers/pci/pci-sysfs.c prints them, and the judgement of a link
// trained below what the NIC takes.
#include "health/pcie_link.hpp"

#include <gtest/gtest.h>

namespace roced::health {
namespace {

TEST(PcieSpeed, ReadsWhatPciSpeedStringPrints) {
  EXPECT_EQ(parse_speed("2.5 GT/s PCIe\n"), 25u);
  EXPECT_EQ(parse_speed("16.0 GT/s PCIe\n"), 160u);
  EXPECT_EQ(parse_speed("32.0 GT/s PCIe\n"), 320u);
  EXPECT_EQ(parse_speed("64.0 GT/s PCIe"), 640u);
  EXPECT_EQ(parse_speed("16 GT/s\n"), 160u);  // kernels before 5.7
  EXPECT_EQ(parse_speed("2.5 GT/s\n"), 25u);
}

TEST(PcieSpeed, UnknownOrMalformedIsNoSpeed) {
  for (const char* text :
       {"Unknown\n", "", "\n", "GT/s PCIe\n", "Unknown speed\n", "16.00 GT/s PCIe\n",
        "-1.0 GT/s PCIe\n", "16.0 Gb/s\n", "99999999999.0 GT/s\n"}) {
    EXPECT_FALSE(parse_speed(text).has_value()) << text;
  }
}

TEST(PcieWidth, ReadsLanesAndRefusesNoLink) {
  EXPECT_EQ(parse_width("16\n"), 16u);
  EXPECT_EQ(parse_width("8"), 8u);
  for (const char* text : {"0\n", "255\n", "", "x16\n", "16 \n", "64\n", "-8\n"}) {
    EXPECT_FALSE(parse_width(text).has_value()) << text;
  }
}

PcieLink link(uint32_t speed, uint32_t width, uint32_t max_speed, uint32_t max_width) {
  return PcieLink{speed, width, max_speed, max_width, {}, true};
}

TEST(PcieJudge, AsBuiltIsNoFinding) {
  EXPECT_FALSE(judge("lan2", link(320, 16, 320, 16)).has_value());
}

TEST(PcieJudge, FewerLanesDiffer) {
  const auto found = judge("lan2", link(320, 8, 320, 16));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, "pcie_link_degraded");
  EXPECT_EQ(found->verdict, finding::Verdict::Differs);
  EXPECT_EQ(found->subject, "lan2");
  EXPECT_EQ(found->wanted, "32.0 GT/s x16");
  EXPECT_EQ(found->found, "32.0 GT/s x8");
}

TEST(PcieJudge, ALowerSpeedDiffers) {
  const auto found = judge("lan3", link(160, 16, 320, 16));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->found, "16.0 GT/s x16");
}

TEST(PcieJudge, NoPcieLinkIsNoFinding) {
  PcieLink none;
  none.pcie = false;
  EXPECT_FALSE(judge("lan5", none).has_value());
}

TEST(PcieJudge, AnUnreadAttributeCannotTell) {
  PcieLink unread = link(320, 16, 320, 16);
  unread.width.reset();
  unread.unread = "current_link_width: Permission denied";
  const auto found = judge("lan4", unread);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->verdict, finding::Verdict::CannotTell);
  EXPECT_NE(found->text.find("Permission denied"), std::string::npos) << found->text;
}

}  // namespace
}  // namespace roced::health
