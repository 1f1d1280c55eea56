// SPDX-License-Identifier: Apache-2.0
#include "util/decimal.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace roced {
namespace {

TEST(ParseDecimal, DigitsThatFit) {
  EXPECT_EQ(parse_decimal<int>("0"), 0);
  EXPECT_EQ(parse_decimal<int>("255"), 255);
  EXPECT_EQ(parse_decimal<uint64_t>("18446744073709551615"), UINT64_MAX);
}

TEST(ParseDecimal, AnythingElseIsNothing) {
  EXPECT_EQ(parse_decimal<int>(""), std::nullopt);
  EXPECT_EQ(parse_decimal<int>("99999999999"), std::nullopt);  // beyond int
  EXPECT_EQ(parse_decimal<int>("-1"), std::nullopt);
  EXPECT_EQ(parse_decimal<int>("+1"), std::nullopt);
  EXPECT_EQ(parse_decimal<int>(" 1"), std::nullopt);
  EXPECT_EQ(parse_decimal<int>("1 "), std::nullopt);
  EXPECT_EQ(parse_decimal<int>("0x10"), std::nullopt);
  EXPECT_EQ(parse_decimal<uint64_t>("18446744073709551616"), std::nullopt);
}

}  // namespace
}  // namespace roced
