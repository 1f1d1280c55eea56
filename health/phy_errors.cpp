// SPDX-License-Identifier: Apache-2.0
#include "health/phy_errors.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace roced::health {

namespace {

constexpr size_t kLanes = std::tuple_size_v<decltype(PhyCounters::lane_corrected_bits)>;

// A rate as a person reads it: one decimal ("11.0").
std::string one_decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
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
    } else if (name.size() == 17 && name.starts_with("rx_err_lane_") && name.ends_with("_phy") &&
               name[12] >= '0' && name[12] < '0' + static_cast<char>(kLanes)) {
      out.lane_corrected_bits[static_cast<size_t>(name[12] - '0')] = values[i];
    }
  }
  if (!out.symbol_errors) out.symbol_errors = in_frames;
  if (out.symbol_errors) out.symbol_errors_from = SymbolErrorSource::ethtool_stats;
  return out;
}

void prefer_standard(PhyCounters& counters, std::optional<uint64_t> symbol_errors_during_carrier) {
  if (!symbol_errors_during_carrier) return;
  counters.symbol_errors = symbol_errors_during_carrier;
  counters.symbol_errors_from = SymbolErrorSource::standard;
}

// `found` says which side of the threshold, not the figure: it is a label of roced_finding, and a
// figure would make a new series at every reading. The figure is in the text and the counters.
std::vector<finding::Finding> judge_phy(const std::string& netdev, bool readable,
                                        const CounterWindow& window,
                                        const HealthSettings& settings) {
  if (!readable) {
    return {finding::cannot_tell(kPhySymbolErrorRate, netdev,
                                 "the port's symbol error counters cannot be read")};
  }
  std::vector<finding::Finding> out;
  const auto per_second = settings.symbol_errors_per_second;
  if (const auto rate = window.last_rate(); rate && *rate > static_cast<double>(per_second)) {
    const std::string limit = std::to_string(per_second);
    const std::string now = one_decimal(*rate);
    out.push_back(finding::make(kPhySymbolErrorRate, netdev,
                                now + " uncorrectable symbol errors a second, above " + limit,
                                "at most " + limit + "/s", "above " + limit + "/s"));
  }
  if (const uint64_t hour = window.total(); hour > settings.symbol_errors_per_hour) {
    const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(window.covered());
    const std::string limit = std::to_string(settings.symbol_errors_per_hour);
    out.push_back(finding::make(kPhySymbolErrorsPerHour, netdev,
                                std::to_string(hour) + " uncorrectable symbol errors in the last " +
                                    std::to_string(std::max<int64_t>(minutes.count(), 1)) +
                                    " min, above " + limit + " an hour",
                                "at most " + limit + " an hour", "above " + limit + " an hour"));
  }
  return out;
}

std::optional<finding::Finding> judge_link_flaps(const std::string& netdev, bool readable,
                                                 const CounterWindow& window, uint64_t limit) {
  if (!readable) {
    return finding::cannot_tell(kLinkFlapping, netdev,
                                "the port's link-down counter cannot be read");
  }
  const uint64_t downs = window.total();
  if (downs <= limit) return std::nullopt;
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(window.covered());
  std::string text = std::to_string(downs) + " link-down events in the last " +
                     std::to_string(std::max<int64_t>(minutes.count(), 1)) + " min, above " +
                     std::to_string(limit);
  if (const uint64_t own = window.own_total(); own > 0) {
    text += " (not counting " + std::to_string(own) + " while roced applied)";
  }
  return finding::make(kLinkFlapping, netdev, text,
                       "at most " + std::to_string(limit) + " in 10 min",
                       "above " + std::to_string(limit) + " in 10 min");
}

}  // namespace roced::health
