// SPDX-License-Identifier: Apache-2.0
// EnumNames: one table per enum gives the name, the parse and the list of names. Most of its
// promises are compile-time ones (a duplicate does not build, covers<> proves a dense enum is
// named in full); these tests pin the run-time half and the fallbacks.
#include "util/enum_names.hpp"

#include <gtest/gtest.h>

namespace roced {
namespace {

enum class Colour { Red, Green, Blue };
inline constexpr auto kColourNames =
    enum_names<Colour>({{Colour::Red, "red"}, {Colour::Green, "green"}, {Colour::Blue, "blue"}});
static_assert(kColourNames.covers<Colour::Blue>(), "every Colour is named");
static_assert(kColourNames.size() == 3);
static_assert(kColourNames.name(Colour::Green) == "green");
static_assert(kColourNames.parse("blue") == Colour::Blue);

// A sparse enum, like dcb::Tsa (0, 1, 2, 255): names are unique, but covers<> cannot hold.
enum class Sparse : uint8_t { Low = 0, High = 255 };
inline constexpr auto kSparseNames =
    enum_names<Sparse>({{Sparse::Low, "low"}, {Sparse::High, "high"}});
static_assert(!kSparseNames.covers<Sparse::High>());

// A table that misses the last value does not cover the enum.
inline constexpr auto kPartialNames =
    enum_names<Colour>({{Colour::Red, "red"}, {Colour::Green, "green"}});
static_assert(!kPartialNames.covers<Colour::Blue>());

TEST(EnumNames, NamesEveryValue) {
  EXPECT_EQ(kColourNames.name(Colour::Red), "red");
  EXPECT_EQ(kColourNames.name(Colour::Blue), "blue");
  EXPECT_EQ(kSparseNames.name(Sparse::High), "high");
}

TEST(EnumNames, AnUnnamedValueGetsTheFallback) {
  EXPECT_EQ(kPartialNames.name(Colour::Blue), "unknown");
  EXPECT_EQ(kPartialNames.name(Colour::Blue, "colour 2"), "colour 2");
  EXPECT_EQ(kSparseNames.name(static_cast<Sparse>(7)), "unknown");
  EXPECT_FALSE(kPartialNames.names(Colour::Blue));
  EXPECT_TRUE(kPartialNames.names(Colour::Red));
}

TEST(EnumNames, ParsesEveryNameAndNothingElse) {
  for (const auto& entry : kColourNames) {
    EXPECT_EQ(kColourNames.parse(entry.name), entry.value) << entry.name;
  }
  EXPECT_EQ(kColourNames.parse("Red"), std::nullopt);  // exact: no case folding
  EXPECT_EQ(kColourNames.parse(""), std::nullopt);
  EXPECT_EQ(kColourNames.parse("purple"), std::nullopt);
}

TEST(EnumNames, ListsTheNamesInTableOrder) {
  EXPECT_EQ(kColourNames.all_names(), (std::vector<std::string>{"red", "green", "blue"}));
}

}  // namespace
}  // namespace roced
