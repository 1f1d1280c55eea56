// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Prometheus text exposition format (0.0.4), written straight into one buffer: each family's
// samples under its HELP and TYPE, in the order the families were first used. A scrape of a
// 16-port node is about 3000 series; this writer exists because prometheus-cpp's (a ClientMetric
// per series, an ostream per value) cost more per scrape than reading the NICs
// (bench/README.md, scrape_bench).

#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace roced::telemetry {

enum class MetricType { counter, gauge, histogram };

struct FamilySpec {
  std::string_view name;
  MetricType type;
  std::string_view help;
};

// Label pairs rendered once, escaped: `netdev="lan3",device="mlx5_1"`. A port's labels are
// built once per scrape and extended per series.
class LabelSet {
 public:
  using Pairs = std::initializer_list<std::pair<std::string_view, std::string_view>>;
  LabelSet() = default;
  LabelSet(Pairs pairs) { append(pairs); }  // NOLINT(google-explicit-constructor): {{"a", "b"}}
  LabelSet with(Pairs pairs) const {
    LabelSet more = *this;
    more.append(pairs);
    return more;
  }
  const std::string& text() const { return text_; }

 private:
  void append(Pairs pairs);
  std::string text_;
};

// One histogram's cumulative buckets (upper bound, observations at or below it), without +Inf.
struct HistogramSample {
  std::span<const double> bounds;
  std::span<const uint64_t> cumulative;
  uint64_t count = 0;
  double sum = 0;
};

class ExpositionWriter {
 public:
  // Whether a family is served (metrics.include/exclude); asked once per family and scrape.
  using Filter = std::function<bool(std::string_view family)>;
  explicit ExpositionWriter(Filter serves = {}) : serves_(std::move(serves)) {}

  // `spec` is one of the catalogue's constants: the writer keeps a pointer to it.
  void add(const FamilySpec& spec, const LabelSet& labels, double value);
  void add(const FamilySpec& spec, const LabelSet& labels, const HistogramSample& histogram);

  // The names of the families with samples, in order (for tests and the catalogue check).
  std::vector<std::string_view> family_names() const;
  // The whole text into `out` (replacing what it held, keeping its capacity); the writer is spent.
  void take(std::string& out);
  std::string take() {
    std::string out;
    take(out);
    return out;
  }
  ~ExpositionWriter();
  ExpositionWriter(const ExpositionWriter&) = delete;
  ExpositionWriter& operator=(const ExpositionWriter&) = delete;

 private:
  struct Family {
    const FamilySpec* spec;
    bool served;
    std::string samples;
  };
  Family* family(const FamilySpec& spec);
  void recycle();

  Filter serves_;
  std::unordered_map<std::string_view, size_t> index_;
  std::vector<Family> families_;
};

// A sample value as Prometheus parses it: integers exactly, others in the shortest form that
// reads back the same double, +Inf, -Inf and NaN.
void append_value(std::string& out, double value);

}  // namespace roced::telemetry
