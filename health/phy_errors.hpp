// SPDX-License-Identifier: Apache-2.0
#pragma once
// How a port's PHY is doing, from the counters mlx5 reads off the port (PPCNT): symbol errors FEC
// could not correct, bits it corrected, link-down events. A dying optic or a marginal cable first
// shows as a rising symbol error rate; the job sees only retransmissions and a slower step time.
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "finding/finding.hpp"

namespace roced::health {

// NVIDIA NVSentinel's NIC health monitor defaults (its chart's values.yaml): symbol errors above
// 10 a second are a degraded link, above 120 in an hour a fatal one.
struct PhyThresholds {
  double degraded_per_second = 10;
  uint64_t fatal_per_hour = 120;
};

// The counters of one `ethtool -S` reading that speak of the PHY; empty where the driver has
// none. Symbol errors are the physical layer group's rx_pcs_symbol_err_phy (post-FEC, present on
// firmware with ppcnt_statistical_group), else the 802.3 group's rx_symbol_err_phy, which every
// mlx5 port has (en_stats.c: mlx5e_grp_phy_fill_stats, pport_802_3_stats_desc).
struct PhyCounters {
  std::optional<uint64_t> symbol_errors;
  std::optional<uint64_t> corrected_bits;    // rx_corrected_bits_phy
  std::optional<uint64_t> link_down_events;  // link_down_events_phy, 32-bit
};
PhyCounters phy_counters(std::span<const std::string> names, std::span<const uint64_t> values);

// Symbol errors over the last hour, from successive readings of the counter: each step counted
// by the one rule of util/counter_step.hpp (a counter that went down restarted).
class SymbolErrorWindow {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  static constexpr std::chrono::hours kSpan{1};

  void add(TimePoint at, uint64_t counter);
  // Errors a second over the interval since the reading before; empty until there are two.
  std::optional<double> last_rate() const;
  // Errors counted within the last hour (or since the first reading, when that is younger), and
  // how long that is.
  uint64_t last_hour() const;
  std::chrono::seconds covered() const;

 private:
  struct Step {
    TimePoint at;
    uint64_t errors;  // since the reading before
    double seconds;   // since the reading before
  };
  std::deque<Step> steps_;
  std::optional<uint64_t> counter_;
  TimePoint first_at_{};
  TimePoint last_at_{};
};

// Above the rate: a degraded finding; above the hour's count: a fatal one; no readable symbol
// error counter: one that cannot tell.
std::vector<finding::Finding> judge_phy(const std::string& netdev, bool readable,
                                        const SymbolErrorWindow& window,
                                        const PhyThresholds& thresholds = {});

inline constexpr finding::Kind kPhySymbolErrorRate{
    "phy_symbol_error_rate", finding::Severity::Warning, "health",
    "The port's PHY receives symbol errors its FEC cannot correct faster than a healthy link "
    "does: every one is a lost frame that RoCE retransmits, so collectives slow while the "
    "lossless configuration reads right.",
    "`ethtool -S <netdev>` (its symbol_err and corrected_bits counters) and `ethtool -m <netdev>` "
    "(the optic's power and temperature). Clean or reseat the cable and optic at both ends; "
    "replace the optic if the rate stays. Drain the node if it climbs."};

inline constexpr finding::Kind kPhySymbolErrorsPerHour{
    "phy_symbol_errors_per_hour", finding::Severity::Critical, "health",
    "The port counted more uncorrectable symbol errors within the last hour than a link fit "
    "for training traffic does: the link is failing, whether or not the rate is high now.",
    "Drain the node, then replace the optic or cable (`ethtool -m <netdev>` names the optic; "
    "the switch port's own counters show whether the fault is at this end)."};

}  // namespace roced::health
