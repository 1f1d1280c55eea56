// SPDX-License-Identifier: Apache-2.0
#include "telemetry/runbook.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

using roced::telemetry::runbook;
using roced::telemetry::runbook_alerts;
using roced::telemetry::runbook_section;

TEST(Runbook, ASectionRunsFromItsHeadingToTheNext) {
  const auto section = runbook_section("RoceLinkDown");
  ASSERT_TRUE(section.has_value());
  EXPECT_EQ(section->rfind("## RoceLinkDown\n", 0), 0u) << *section;
  EXPECT_NE(section->find("What to do:"), std::string_view::npos) << *section;
  EXPECT_EQ(section->find("\n## "), std::string_view::npos) << *section;
  EXPECT_NE(runbook().find(*section), std::string_view::npos);
}

TEST(Runbook, OnlyWholeAlertNamesHaveASection) {
  EXPECT_FALSE(runbook_section("RoceLink").has_value());
  EXPECT_FALSE(runbook_section("").has_value());
  EXPECT_FALSE(runbook_section("roced alert runbook").has_value());  // the title is no section
  EXPECT_FALSE(runbook_section("RoceLinkDown/../RocedNoPorts").has_value());
}

// The last section ends with the document.
TEST(Runbook, EveryListedAlertHasItsSection) {
  const auto alerts = runbook_alerts();
  ASSERT_GE(alerts.size(), 20u);
  EXPECT_NE(std::find(alerts.begin(), alerts.end(), "RocePfcStormActive"), alerts.end());
  for (const std::string_view alert : alerts) {
    const auto section = runbook_section(alert);
    ASSERT_TRUE(section.has_value()) << alert;
    EXPECT_EQ(section->rfind("## " + std::string(alert) + "\n", 0), 0u) << alert;
  }
  const auto last = runbook_section(alerts.back());
  EXPECT_EQ(last->data() + last->size(), runbook().data() + runbook().size());
}
