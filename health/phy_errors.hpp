// SPDX-License-Identifier: Apache-2.0
#pragma once
// How a port's PHY is doing, from the counters mlx5 reads off the port (PPCNT): symbol errors FEC
// could not correct, bits it corrected, link-down events. A dying optic or a marginal cable first
// shows as a rising symbol error rate; the job sees only retransmissions and a slower step time.
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "finding/finding.hpp"
#include "health/counter_window.hpp"
#include "health/settings.hpp"

namespace roced::health {

// Where a port's symbol error count was read: the kernel's standard statistics (ethtool
// netlink's eth-phy group, SymbolErrorDuringCarrier; on mlx5 the 802.3 PPCNT group's
// a_symbol_error_during_carrier: en_stats.c mlx5e_stats_eth_phy_get), else `ethtool -S`.
enum class SymbolErrorSource { none, standard, ethtool_stats };

// The counters of one `ethtool -S` reading that speak of the PHY; empty where the driver has
// none. Symbol errors are the physical layer group's rx_pcs_symbol_err_phy (post-FEC, present on
// firmware with ppcnt_statistical_group), else the 802.3 group's rx_symbol_err_phy, which every
// mlx5 port has (en_stats.c: mlx5e_grp_phy_fill_stats, pport_802_3_stats_desc).
struct PhyCounters {
  std::optional<uint64_t> symbol_errors;
  SymbolErrorSource symbol_errors_from = SymbolErrorSource::none;
  std::optional<uint64_t> corrected_bits;    // rx_corrected_bits_phy
  std::optional<uint64_t> link_down_events;  // link_down_events_phy, 32-bit
  // rx_err_lane_<n>_phy: the bits corrected on each lane (phy_corrected_bits_lane<n>, firmware
  // with PCAM per_lane_error_counters): one lane far above the others is one bad fibre or laser.
  std::array<std::optional<uint64_t>, 4> lane_corrected_bits = {};
};
PhyCounters phy_counters(std::span<const std::string> names, std::span<const uint64_t> values);
// The standard count, where the driver gives one, in place of `ethtool -S`'s: the one counter
// every driver names and defines alike (IEEE 802.3 aSymbolErrorDuringCarrier), and what
// `ethtool -S <netdev> --groups eth-phy` shows. On mlx5 it is the 802.3 group's
// a_symbol_error_during_carrier (ethtool -S rx_symbol_err_phy) rather than the physical layer
// group's rx_pcs_symbol_err_phy that ethtool -S also lists: the portable definition wins.
void prefer_standard(PhyCounters& counters, std::optional<uint64_t> symbol_errors_during_carrier);

// Symbol errors over the last hour: the window judge_phy reads.
inline CounterWindow symbol_error_window() {
  return CounterWindow(std::chrono::hours(1), CounterWidth::bits64);
}

// Above the rate (settings.symbol_errors_per_second): a degraded finding; above the hour's count
// (symbol_errors_per_hour): a fatal one; no readable symbol error counter: one that cannot tell.
std::vector<finding::Finding> judge_phy(const std::string& netdev, bool readable,
                                        const CounterWindow& window,
                                        const HealthSettings& settings = {});

// Link-down events over the last 10 minutes (link_down_events_phy is 32-bit), with those of an
// interval in which roced applied to the port kept apart: mlx5 retrains the link for every PFC
// change (mlx5_toggle_port_link), roced's included.
inline CounterWindow link_down_window() {
  return CounterWindow(std::chrono::minutes(10), CounterWidth::bits32);
}

// More than `limit` link-down events roced did not cause within the window: a flapping link.
// NVSentinel raises on a carrier_changes delta above 2 at a 1 s poll (two flaps within a
// second); at roced's 10 s readings a link that flaps every few minutes would never show so, so
// the count runs over 10 minutes (HealthSettings::link_flaps_per_10m). No counter: a finding
// that cannot tell.
std::optional<finding::Finding> judge_link_flaps(const std::string& netdev, bool readable,
                                                 const CounterWindow& window, uint64_t limit = 2);

inline constexpr finding::Kind kLinkFlapping{
    "link_flapping", finding::Severity::Warning, "health",
    "The port's link went down more often than a healthy link does, without roced changing it: a "
    "loose or failing cable or optic, a switch port resetting, or another tool changing PFC (mlx5 "
    "retrains the link for each change). Every loss stalls the RoCE traffic on it.",
    "`ethtool <netdev>` and the kernel log for the link's ups and downs, `ethtool -m <netdev>` for "
    "the optic, the switch port's log for its side; `rocectl status` names any drift another tool "
    "made. Reseat or replace the cable or optic."};

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
