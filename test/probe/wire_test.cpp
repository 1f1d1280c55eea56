// SPDX-License-Identifier: Apache-2.0
#include "probe/wire.hpp"

#include <gtest/gtest.h>

namespace roced::probe {
namespace {

TEST(ProbeWire, AMessageReadsBackAsWritten) {
  const ProbeMessage second{MessageKind::SecondAnswer, 0x0102030405060708ULL, 11, 22, 33};
  const MessageBytes bytes = encode(second);
  EXPECT_EQ(bytes[0], 'R');
  EXPECT_EQ(bytes[8], 0x01);  // network byte order
  EXPECT_EQ(bytes[15], 0x08);
  EXPECT_EQ(decode(bytes), second);
}

TEST(ProbeWire, WhatIsNotOursIsRefusedWithItsReason) {
  const MessageBytes good = encode({MessageKind::Probe, 7, 100, 0, 0});
  DecodeError error;
  EXPECT_FALSE(decode(std::span(good).first(kMessageBytes - 1), &error));
  EXPECT_EQ(error.reason, "short");

  MessageBytes bytes = good;
  bytes[0] = 'X';
  EXPECT_FALSE(decode(bytes, &error));
  EXPECT_EQ(error.reason, "magic");

  bytes = good;
  bytes[4] = 2;
  EXPECT_FALSE(decode(bytes, &error));
  EXPECT_EQ(error.reason, "version");

  bytes = good;
  bytes[5] = 9;
  EXPECT_FALSE(decode(bytes, &error));
  EXPECT_EQ(error.reason, "kind");

  bytes = good;
  bytes[7] = 1;
  EXPECT_FALSE(decode(bytes, &error));
  EXPECT_EQ(error.reason, "reserved");

  EXPECT_FALSE(decode(encode({MessageKind::Probe, 7, 100, 5, 0}), &error));
  EXPECT_EQ(error.reason, "probe with answer times");
  EXPECT_FALSE(decode(encode({MessageKind::SecondAnswer, 7, 100, 50, 40}), &error));
  EXPECT_EQ(error.reason, "answered before received");
}

TEST(ProbeWire, TrailingBytesAreIgnored) {
  std::vector<uint8_t> padded(64, 0xff);
  const MessageBytes bytes = encode({MessageKind::FirstAnswer, 3, 4, 5, 0});
  std::copy(bytes.begin(), bytes.end(), padded.begin());
  ASSERT_TRUE(decode(padded));
  EXPECT_EQ(decode(padded)->sequence, 3u);
}

}  // namespace
}  // namespace roced::probe
