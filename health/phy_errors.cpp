// SPDX-License-Identifier: Apache-2.0
#include "health/phy_errors.hpp"

#include <cstdio>

#include "util/counter_step.hpp"

namespace roced::health {

namespace {

// A rate as a person reads it: one decimal ("11.0"); a threshold without trailing zeros ("10").
std::string one_decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}
std::string shortest(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

PhyCounters phy_counters(std::span<const std::string> names, std::span<const uint64_t> values) {
  PhyCounters out;
  std::optional<uint64_t> in_frames;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    const std::string& name = names[i];
    if (name == "rx_pcs_symbol_err_phy") {
      out.symbol_errors = values[i];
    } else if (name == "rx_symbol_err_phy") {
      in_frames = values[i];
    } else if (name == "rx_corrected_bits_phy") {
      out.corrected_bits = values[i];
    } else if (name == "link_down_events_phy") {
      out.link_down_events = values[i];
    }
  }
  if (!out.symbol_errors) out.symbol_errors = in_frames;
  return out;
}

void SymbolErrorWindow::add(TimePoint at, uint64_t counter) {
  if (!counter_) {
    first_at_ = at;
  } else if (at > last_at_) {
    const CounterStep step = counter_step(*counter_, counter, CounterWidth::bits64);
    steps_.push_back({at, step.delta, std::chrono::duration<double>(at - last_at_).count()});
  }
  counter_ = counter;
  last_at_ = at;
  while (!steps_.empty() && steps_.front().at <= at - kSpan) steps_.pop_front();
}

std::optional<double> SymbolErrorWindow::last_rate() const {
  if (steps_.empty() || steps_.back().at != last_at_ || steps_.back().seconds <= 0) {
    return std::nullopt;
  }
  return static_cast<double>(steps_.back().errors) / steps_.back().seconds;
}

uint64_t SymbolErrorWindow::last_hour() const {
  uint64_t total = 0;
  for (const Step& step : steps_) total += step.errors;
  return total;
}

std::chrono::seconds SymbolErrorWindow::covered() const {
  if (!counter_) return {};
  const auto since = std::min<std::chrono::steady_clock::duration>(last_at_ - first_at_, kSpan);
  return std::chrono::duration_cast<std::chrono::seconds>(since);
}

// `found` says which side of the threshold, not the figure: it is a label of roced_finding, and a
// figure would make a new series at every reading. The figure is in the text and the counters.
std::vector<finding::Finding> judge_phy(const std::string& netdev, bool readable,
                                        const SymbolErrorWindow& window,
                                        const PhyThresholds& thresholds) {
  if (!readable) {
    return {finding::cannot_tell(kPhySymbolErrorRate, netdev,
                                 "the port's symbol error counters cannot be read")};
  }
  std::vector<finding::Finding> out;
  if (const auto rate = window.last_rate(); rate && *rate > thresholds.degraded_per_second) {
    const std::string limit = shortest(thresholds.degraded_per_second);
    const std::string now = one_decimal(*rate);
    out.push_back(finding::make(kPhySymbolErrorRate, netdev,
                                now + " uncorrectable symbol errors a second, above " + limit,
                                "at most " + limit + "/s", "above " + limit + "/s"));
  }
  if (const uint64_t hour = window.last_hour(); hour > thresholds.fatal_per_hour) {
    const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(window.covered());
    const std::string limit = std::to_string(thresholds.fatal_per_hour);
    out.push_back(finding::make(kPhySymbolErrorsPerHour, netdev,
                                std::to_string(hour) + " uncorrectable symbol errors in the last " +
                                    std::to_string(std::max<int64_t>(minutes.count(), 1)) +
                                    " min, above " + limit + " an hour",
                                "at most " + limit + " an hour", "above " + limit + " an hour"));
  }
  return out;
}

}  // namespace roced::health
