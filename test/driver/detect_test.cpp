// SPDX-License-Identifier: Apache-2.0
// Telling a port's mlx5 driver from ethtool -i, the kernel's strings and OFED's sysfs, and what
// each rate cap encoding programs.
#include "driver/detect.hpp"

#include <gtest/gtest.h>

namespace roced::driver {
namespace {

HostFacts inbox(const std::string& release, const std::string& package) {
  return HostFacts{"mlx5_core", release, release,
                   "Linux version " + release +
                       " (debian-kernel@lists.debian.org) #1 SMP "
                       "PREEMPT_DYNAMIC Debian " +
                       package + " (2025-01-01)",
                   false};
}

TEST(Detect, BookwormsKernelIsDebian61AndItsMaxrateWrapsBefore6_1_159) {
  const Detected old = detect(inbox("6.1.0-27-amd64", "6.1.115-1"));
  EXPECT_EQ(old.flavour, Flavour::Debian61);
  EXPECT_EQ(old.version, "6.1.115");
  EXPECT_EQ(old.traits.maxrate, Maxrate::U8Wrapping);
  EXPECT_EQ(old.traits.buffer_recompute, BufferRecompute::ManualFlag);
  EXPECT_EQ(old.traits.cable_length, CableLength::Driver);
  const Detected now = detect(inbox("6.1.0-41-amd64", "6.1.192-3"));
  EXPECT_EQ(now.flavour, Flavour::Debian61);
  EXPECT_EQ(now.traits.maxrate, Maxrate::U8Checked);
  ASSERT_FALSE(now.evidence.empty());
  EXPECT_EQ(now.evidence.back(), "/proc/version: Debian 6.1.192");
}

TEST(Detect, TrixiesKernelAsksTheFirmwareWhoOwnsTheBuffersFrom6_12_44) {
  const Detected now = detect(inbox("6.12.57+deb13-amd64", "6.12.117-1"));
  EXPECT_EQ(now.flavour, Flavour::Debian612);
  EXPECT_EQ(now.traits.buffer_recompute, BufferRecompute::FirmwareOwnership);
  EXPECT_EQ(now.traits.maxrate, Maxrate::U8Checked);
  const Detected early = detect(inbox("6.12.27-amd64", "6.12.27-1"));
  EXPECT_EQ(early.flavour, Flavour::Debian612);
  EXPECT_EQ(early.traits.buffer_recompute, BufferRecompute::ManualFlag);
  EXPECT_EQ(early.traits.maxrate, Maxrate::U8Wrapping);
}

// /proc/version as Debian's kernels write it: the compiler's own Debian package comes first.
TEST(Detect, TheKernelsPackageIsTheLastDebianVersionInTheBanner) {
  HostFacts bookworm = inbox("6.1.0-41-amd64", "");
  bookworm.kernel_version =
      "Linux version 6.1.0-41-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian "
      "12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC "
      "Debian 6.1.192-3 (2026-11-20)";
  EXPECT_EQ(detect(bookworm).flavour, Flavour::Debian61);
  EXPECT_EQ(detect(bookworm).version, "6.1.192");
  HostFacts trixie = inbox("6.12.118+deb13-amd64", "");
  trixie.kernel_version =
      "Linux version 6.12.118+deb13-amd64 (debian-kernel@lists.debian.org) "
      "(x86_64-linux-gnu-gcc-14 (Debian 14.2.0-19) 14.2.0, GNU ld (GNU Binutils for Debian) 2.44) "
      "#1 SMP PREEMPT_DYNAMIC Debian 6.12.118-1 (2026-11-25)";
  EXPECT_EQ(detect(trixie).flavour, Flavour::Debian612);
  EXPECT_EQ(detect(trixie).version, "6.12.118");
}

TEST(Detect, OfedIsToldByItsSysfsOrItsOwnVersion) {
  HostFacts facts{"mlx5_core", "24.10-1.1.4", "6.1.0-27-amd64", "Debian 6.1.115-1", true};
  Detected d = detect(facts);
  EXPECT_EQ(d.flavour, Flavour::MlnxOfed);
  EXPECT_EQ(d.traits.maxrate, Maxrate::U8Wrapping);
  EXPECT_EQ(d.traits.ecn_knobs, EcnKnobs::OfedSysfs);
  EXPECT_EQ(d.traits.cnp_priority_mode, CnpPriorityMode::NotWritten);
  EXPECT_EQ(d.version, "24.10-1.1.4");
  facts.ofed_sysfs = false;  // a VF: no ecn/ there
  EXPECT_EQ(detect(facts).flavour, Flavour::MlnxOfed);
  facts.driver_version = "5.8-1.0.1.1";  // an OFED roced has not read
  d = detect(facts);
  EXPECT_EQ(d.flavour, Flavour::Unknown);
  EXPECT_EQ(d.traits, Traits{});
  EXPECT_NE(d.evidence.back().find("not a version roced has read"), std::string::npos);
}

TEST(Detect, WhatRocedHasNotReadIsUnknownWithEveryTraitUnknown) {
  // Another distribution's kernel, another driver, no driver info at all.
  for (const HostFacts& facts :
       {HostFacts{"mlx5_core", "6.8.0-45-generic", "6.8.0-45-generic",
                  "Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP", false},
        inbox("6.6.0-1-amd64", "6.6.3-1"), HostFacts{"bnxt_en", "", "6.1.0-27-amd64", "", false},
        HostFacts{}}) {
    const Detected d = detect(facts);
    EXPECT_EQ(d.flavour, Flavour::Unknown) << facts.driver_version;
    EXPECT_EQ(d.traits, Traits{});
    EXPECT_FALSE(d.evidence.empty());
  }
}

TEST(Flavours, EveryFlavourIsNamedOnceAndFoundByItsName) {
  for (const FlavourRow& row : flavours()) {
    EXPECT_EQ(flavour_named(row.name), row.flavour) << row.name;
    EXPECT_EQ(&flavour_row(row.flavour), &row);
  }
  EXPECT_EQ(flavour_named("inbox"), std::nullopt);
}

TEST(Maxrate, EachEncodingSaysWhatItWouldNotProgramAsAsked) {
  constexpr uint64_t kGbps = 1'000'000;
  // OFED's wrapping u8: 300 Gbit/s would be 44, 25.6 Gbit/s 0.1.
  EXPECT_TRUE(maxrate_problem(Maxrate::U8Wrapping, 300 * kGbps));
  EXPECT_TRUE(maxrate_problem(Maxrate::U8Wrapping, 25'600'000));
  EXPECT_FALSE(maxrate_problem(Maxrate::U8Wrapping, 25'500'000));
  EXPECT_FALSE(maxrate_problem(Maxrate::U8Wrapping, 255 * kGbps));
  EXPECT_TRUE(maxrate_problem(Maxrate::U8Checked, 256 * kGbps));
  EXPECT_FALSE(maxrate_problem(Maxrate::U8Checked, 25'600'000));  // taken as 25 Gbit/s units
  EXPECT_FALSE(maxrate_problem(Maxrate::U16, 400 * kGbps));
  EXPECT_TRUE(maxrate_problem(Maxrate::Unknown, 300 * kGbps));
  EXPECT_TRUE(maxrate_problem(Maxrate::Unknown, 25'600'000));
  EXPECT_FALSE(maxrate_problem(Maxrate::Unknown, 100 * kGbps));
  EXPECT_FALSE(maxrate_problem(Maxrate::U8Wrapping, 0));  // no cap
  EXPECT_EQ(*maxrate_problem(Maxrate::U8Checked, 300 * kGbps),
            "300 Gbit/s is above the 255 Gbit/s this driver takes "
            "(mlx5e_dcbnl_ieee_setmaxrate refuses it)");
}

}  // namespace
}  // namespace roced::driver
