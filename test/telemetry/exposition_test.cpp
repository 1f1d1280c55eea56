// SPDX-License-Identifier: Apache-2.0
// The text exposition writer and the endpoint's encoding: what Prometheus's parser needs of each
// line (escapes, numbers, HELP/TYPE once per family), the family filter, and gzip that inflates
// back to the same text.
#include "telemetry/exposition.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <limits>

#include "telemetry/metrics_http.hpp"

namespace roced::telemetry {
namespace {

constexpr FamilySpec kFrames{"roce_test_frames_total", MetricType::counter,
                             "Frames, with a \\ backslash\nand a newline."};
constexpr FamilySpec kLevel{"roce_test_level", MetricType::gauge, "A level."};
constexpr FamilySpec kLatency{"roce_test_latency_seconds", MetricType::histogram, "Latency."};

std::string value_text(double value) {
  std::string out;
  append_value(out, value);
  return out;
}

TEST(Exposition, NumbersAreWhatPrometheusReadsBack) {
  EXPECT_EQ(value_text(0), "0");
  EXPECT_EQ(value_text(1234567890123), "1234567890123");
  EXPECT_EQ(value_text(-3), "-3");
  EXPECT_EQ(value_text(0.0015), "0.0015");
  EXPECT_EQ(value_text(2.5), "2.5");
  EXPECT_EQ(value_text(1e300), "1e+300");
  EXPECT_EQ(value_text(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(value_text(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(value_text(std::numeric_limits<double>::quiet_NaN()), "NaN");
  // Past 2^53 a double is not an exact integer: the shortest form that reads back the same.
  EXPECT_EQ(std::stod(value_text(18446744073709551615.0)), 18446744073709551615.0);
}

TEST(Exposition, FamiliesGroupTheirSamplesUnderOneHelpAndType) {
  ExpositionWriter out;
  const LabelSet port = {{"netdev", "lan3"}};
  out.add(kFrames, port.with({{"priority", "3"}}), 7);
  out.add(kLevel, {}, 1);
  out.add(kFrames, LabelSet{{"netdev", "lan4"}}.with({{"priority", "3"}}), 8);
  EXPECT_EQ(out.family_names(), (std::vector<std::string_view>{kFrames.name, kLevel.name}));
  EXPECT_EQ(out.take(),
            "# HELP roce_test_frames_total Frames, with a \\\\ backslash\\nand a newline.\n"
            "# TYPE roce_test_frames_total counter\n"
            "roce_test_frames_total{netdev=\"lan3\",priority=\"3\"} 7\n"
            "roce_test_frames_total{netdev=\"lan4\",priority=\"3\"} 8\n"
            "# HELP roce_test_level A level.\n"
            "# TYPE roce_test_level gauge\n"
            "roce_test_level 1\n");
}

TEST(Exposition, LabelValuesAreEscaped) {
  ExpositionWriter out;
  out.add(kLevel, {{"firmware", "28.39 \"x\" \\ y\nz"}}, 1);
  const std::string text = out.take();
  EXPECT_NE(text.find("roce_test_level{firmware=\"28.39 \\\"x\\\" \\\\ y\\nz\"} 1\n"),
            std::string::npos)
      << text;
}

TEST(Exposition, HistogramsAreCumulativeBucketsCountAndSum) {
  ExpositionWriter out;
  const std::array<double, 2> bounds = {0.05, 1};
  const std::array<uint64_t, 2> cumulative = {1, 2};
  out.add(kLatency, {{"netdev", "lan3"}}, HistogramSample{bounds, cumulative, 3, 2.25});
  EXPECT_EQ(out.take(),
            "# HELP roce_test_latency_seconds Latency.\n"
            "# TYPE roce_test_latency_seconds histogram\n"
            "roce_test_latency_seconds_bucket{netdev=\"lan3\",le=\"0.05\"} 1\n"
            "roce_test_latency_seconds_bucket{netdev=\"lan3\",le=\"1\"} 2\n"
            "roce_test_latency_seconds_bucket{netdev=\"lan3\",le=\"+Inf\"} 3\n"
            "roce_test_latency_seconds_count{netdev=\"lan3\"} 3\n"
            "roce_test_latency_seconds_sum{netdev=\"lan3\"} 2.25\n");
}

TEST(Exposition, AFilteredFamilyIsLeftOutWhole) {
  int asked = 0;
  ExpositionWriter out([&](std::string_view family) {
    ++asked;
    return family != kFrames.name;
  });
  out.add(kFrames, {}, 1);
  out.add(kFrames, {{"netdev", "lan4"}}, 2);
  out.add(kLevel, {}, 3);
  EXPECT_EQ(asked, 2);  // once per family, not per series
  EXPECT_EQ(out.family_names(), (std::vector<std::string_view>{kLevel.name}));
  EXPECT_EQ(out.take(),
            "# HELP roce_test_level A level.\n# TYPE roce_test_level gauge\n"
            "roce_test_level 3\n");
}

std::string gunzip(const std::string& data) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

TEST(MetricsHttpEncoding, GzipInflatesBackToTheSameText) {
  ExpositionWriter out;
  for (int port = 0; port < 200; ++port) {
    out.add(kFrames, {{"netdev", "lan" + std::to_string(port)}}, port);
  }
  const std::string text = out.take();
  const std::string compressed = gzip(text);
  ASSERT_GE(compressed.size(), 18u);
  EXPECT_EQ(static_cast<unsigned char>(compressed[0]), 0x1f);  // the gzip magic
  EXPECT_EQ(static_cast<unsigned char>(compressed[1]), 0x8b);
  EXPECT_LT(compressed.size(), text.size() / 4);
  EXPECT_EQ(gunzip(compressed), text);
  EXPECT_EQ(gunzip(gzip("")), "");
}

TEST(MetricsHttpEncoding, GzipOnlyWhenTheClientAcceptsIt) {
  EXPECT_TRUE(accepts_gzip("gzip"));
  EXPECT_TRUE(accepts_gzip("deflate, gzip;q=1.0, *;q=0.5"));  // Prometheus
  EXPECT_TRUE(accepts_gzip("br, *"));
  EXPECT_FALSE(accepts_gzip(nullptr));
  EXPECT_FALSE(accepts_gzip(""));
  EXPECT_FALSE(accepts_gzip("identity"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("gzip; q=0.000"));
  EXPECT_FALSE(accepts_gzip("xgzip"));
}

}  // namespace
}  // namespace roced::telemetry
