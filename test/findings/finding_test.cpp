// SPDX-License-Identifier: Apache-2.0
// A finding's forms: the line a script greps, and the JSON rocectl reads back from roced.
#include "finding/finding.hpp"

#include <gtest/gtest.h>

namespace roced::finding {
namespace {

constexpr Kind kExample{"example_moved", Severity::Critical, "plan", "An example.", "Nothing."};

TEST(Finding, TheLineLeadsWithTheId) {
  const Finding found = make(kExample, "lan3", "moved from 3 to 5", "3", "5");
  EXPECT_EQ(line(found), "example_moved: moved from 3 to 5");
  EXPECT_EQ(headline(found), "critical: example_moved: moved from 3 to 5");
  EXPECT_EQ(found.source, "plan");
  EXPECT_EQ(found.verdict, Verdict::Differs);
}

TEST(Finding, JsonRoundTripsEveryField) {
  Finding found = make(kExample, "lan3", "moved", "3", "5");
  found.about = "roce.gid_index";
  EXPECT_EQ(from_json(to_json(found)), found);
  const Finding unknown = cannot_tell(kExample, "lan4", "cannot read the GID table");
  EXPECT_EQ(from_json(to_json(unknown)), unknown);
  EXPECT_EQ(to_json(unknown)["verdict"], "cannot_tell");
}

TEST(Finding, OddJsonGivesDefaultsNotACrash) {
  EXPECT_EQ(from_json(nlohmann::json(42)), Finding{});
  const Finding odd = from_json(nlohmann::json{{"id", 7}, {"severity", "loud"}, {"text", "t"}});
  EXPECT_EQ(odd.id, "");
  EXPECT_EQ(odd.severity, Severity::Warning);
  EXPECT_EQ(odd.text, "t");
  EXPECT_TRUE(list_from_json(nlohmann::json("x")).empty());
}

TEST(Finding, IdsAreLowerCaseWordsJoinedByUnderscores) {
  EXPECT_TRUE(valid_id("rocev2_gid_index_moved"));
  EXPECT_FALSE(valid_id(""));
  EXPECT_FALSE(valid_id("2fast"));
  EXPECT_FALSE(valid_id("Gid"));
  EXPECT_FALSE(valid_id("gid-index"));
}

}  // namespace
}  // namespace roced::finding
