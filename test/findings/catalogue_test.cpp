// SPDX-License-Identifier: Apache-2.0
// The finding catalogue: ids that a metric label, an alert and a script can rely on, each with a
// meaning and what to do, and docs/findings.md listing exactly them.
#include "daemon/findings/catalogue.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace roced::findings {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Catalogue, IdsAreUniqueWellFormedAndExplained) {
  std::set<std::string_view> ids;
  const std::set<std::string_view> sources = {"settings", "plan",    "apply", "watchdog",
                                              "switch",   "qualify", "health",  "probe"};
  ASSERT_FALSE(catalogue().empty());
  for (const finding::Kind* kind : catalogue()) {
    EXPECT_TRUE(ids.insert(kind->id).second) << kind->id << " twice";
    EXPECT_TRUE(finding::valid_id(kind->id)) << kind->id;
    EXPECT_TRUE(sources.contains(kind->source)) << kind->id << ": " << kind->source;
    EXPECT_FALSE(kind->meaning.empty()) << kind->id;
    EXPECT_FALSE(kind->runbook.empty()) << kind->id;
    // A table cell: one line, no column separator.
    for (const std::string_view text : {kind->meaning, kind->runbook}) {
      EXPECT_EQ(text.find('\n'), std::string_view::npos) << kind->id;
      EXPECT_EQ(text.find('|'), std::string_view::npos) << kind->id;
    }
    EXPECT_EQ(find_kind(kind->id), kind);
  }
  EXPECT_EQ(find_kind("no_such_finding"), nullptr);
}

// The doc's table is the catalogue's, row for row: a kind added, renamed or reworded in the code
// fails here until docs/findings.md says the same.
TEST(Catalogue, TheDocListsEveryKindAsTheCodeHasIt) {
  const std::string doc = read_file(std::string(ROCED_SOURCE_DIR) + "/docs/findings.md");
  ASSERT_FALSE(doc.empty());
  const std::string table = markdown_table();
  EXPECT_NE(doc.find(table), std::string::npos)
      << "docs/findings.md must hold this table exactly:\n"
      << table;
}

TEST(Catalogue, DescribeGivesMeaningAndWhatToDo) {
  const finding::Kind* moved = find_kind("rocev2_gid_index_moved");
  ASSERT_NE(moved, nullptr);
  const std::string text = describe(*moved);
  EXPECT_EQ(text.rfind("rocev2_gid_index_moved (critical, from plan)\n", 0), 0u) << text;
  EXPECT_NE(text.find("\nWhat to do: "), std::string::npos) << text;
}

}  // namespace
}  // namespace roced::findings
