// SPDX-License-Identifier: Apache-2.0
#include "daemon/yaml/suggest.hpp"

#include <gtest/gtest.h>

namespace roced::yaml {
namespace {

const std::vector<std::string> kKeys = {"priorities", "cable_length", "prio_tc", "tos", "mtu"};

TEST(ConfigSuggest, TyposFindTheirKey) {
  EXPECT_EQ(closest_match("priorites", kKeys), "priorities");
  EXPECT_EQ(closest_match("proirities", kKeys), "priorities");  // transposition: one edit
  EXPECT_EQ(closest_match("cable-length", kKeys), "cable_length");
  EXPECT_EQ(closest_match("Cable_Length", kKeys), "cable_length");
  EXPECT_EQ(closest_match("tso", kKeys), "tos");
  EXPECT_EQ(did_you_mean("mtuu", kKeys), " (did you mean 'mtu'?)");
}

TEST(ConfigSuggest, FarOffWordsGetNoSuggestion) {
  EXPECT_EQ(closest_match("colour", kKeys), std::nullopt);
  EXPECT_EQ(closest_match("pri", kKeys), std::nullopt);
  EXPECT_EQ(did_you_mean("bandwidth", kKeys), "");
}

}  // namespace
}  // namespace roced::yaml
