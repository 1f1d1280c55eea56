// SPDX-License-Identifier: Apache-2.0
#include "daemon/watchdog/storm_metrics.hpp"

#include <chrono>
#include <string>

namespace roced::watchdog {

namespace {

using telemetry::FamilySpec;
using telemetry::LabelSet;
using telemetry::MetricType;

constexpr FamilySpec kWatchdogPolls{"roced_watchdog_polls_total", MetricType::counter,
                                    "Rounds of the PFC storm watchdog over every port."};
constexpr FamilySpec kWatchdogLatePolls{
    "roced_watchdog_late_polls_total", MetricType::counter,
    "Watchdog rounds that began more than half a poll interval late (an overloaded host)."};
constexpr FamilySpec kWatchdogInterval{"roced_watchdog_poll_interval_seconds", MetricType::gauge,
                                       "The watchdog's configured poll interval."};
constexpr FamilySpec kWatchdogEffectiveInterval{
    "roced_watchdog_effective_poll_interval_seconds", MetricType::gauge,
    "The poll interval in use: the configured one unless the poll budget needs longer."};
constexpr FamilySpec kWatchdogBudgetLimited{
    "roced_watchdog_poll_budget_limited", MetricType::gauge,
    "1 while this share of the poll budget (cpu, firmware) sets a longer poll interval."};
constexpr FamilySpec kWatchdogReadCpu{"roced_watchdog_read_cpu_seconds_total", MetricType::counter,
                                      "CPU time the storm watchdog's rounds of reads took."};
constexpr FamilySpec kWatchdogReadTime{
    "roced_watchdog_read_seconds_total", MetricType::counter,
    "Time the port's statistics reads took (on mlx5: its firmware command time)."};
constexpr FamilySpec kStormActive{
    "roce_pfc_storm_active", MetricType::gauge,
    "1 while a PFC storm is detected on the priority and direction and not yet restored."};
constexpr FamilySpec kStormRemediated{
    "roce_pfc_storm_remediation_active", MetricType::gauge,
    "1 while roced's storm action (PFC off, stall prevention tightened) is in effect."};
constexpr FamilySpec kStormHeld{
    "roce_pfc_storm_held", MetricType::gauge,
    "1 while the port is held in its safe state past the storm: the action budget is spent."};
constexpr FamilySpec kStormDetections{"roce_pfc_storm_detections_total", MetricType::counter,
                                      "PFC storms detected."};
constexpr FamilySpec kStormRestorations{"roce_pfc_storm_restorations_total", MetricType::counter,
                                        "PFC storms that ended (restoration time without pause)."};
constexpr FamilySpec kStormActions{"roce_pfc_storm_actions_total", MetricType::counter,
                                   "Storm actions roced took, by action and result."};
constexpr FamilySpec kStormEscalations{
    "roce_pfc_storm_escalations_total", MetricType::counter,
    "Storms roced could not handle: remediation-failed, action-failed, budget-spent."};
constexpr FamilySpec kStormLatency{
    "roce_pfc_storm_detection_latency_seconds", MetricType::histogram,
    "From a storm's onset (as the pause counters place it) to its detection."};

}  // namespace

void add_storm_families(telemetry::ExpositionWriter& out, const WatchdogStats& stats) {
  out.add(kWatchdogPolls, {}, static_cast<double>(stats.polls));
  out.add(kWatchdogLatePolls, {}, static_cast<double>(stats.late_polls));
  out.add(kWatchdogInterval, {}, std::chrono::duration<double>(stats.poll_interval).count());
  out.add(kWatchdogEffectiveInterval, {},
          std::chrono::duration<double>(stats.effective_interval).count());
  for (const char* resource : {"cpu", "firmware"}) {
    out.add(kWatchdogBudgetLimited, {{"resource", resource}},
            stats.budget_limit == resource ? 1 : 0);
  }
  out.add(kWatchdogReadCpu, {}, std::chrono::duration<double>(stats.read_cpu).count());
  for (const auto& [netdev, time] : stats.read_time) {
    out.add(kWatchdogReadTime, {{"netdev", netdev}}, std::chrono::duration<double>(time).count());
  }
  for (const auto& storm : stats.storms) {
    const LabelSet labels = {{"netdev", storm.netdev},
                             {"priority", std::to_string(storm.priority)},
                             {"direction", std::string(direction_name(storm.direction))}};
    out.add(kStormActive, labels, storm.active ? 1 : 0);
    out.add(kStormRemediated, labels, storm.remediated ? 1 : 0);
    out.add(kStormHeld, labels, storm.held ? 1 : 0);
    out.add(kStormDetections, labels, static_cast<double>(storm.detections));
    out.add(kStormRestorations, labels, static_cast<double>(storm.restorations));
    for (const auto& [key, count] : storm.actions) {
      out.add(kStormActions, labels.with({{"action", key.first}, {"result", key.second}}),
              static_cast<double>(count));
    }
    for (const auto& [reason, count] : storm.escalations) {
      out.add(kStormEscalations, labels.with({{"reason", reason}}), static_cast<double>(count));
    }
    const LatencyHistogram& latency = storm.detection_latency;
    out.add(kStormLatency, labels,
            telemetry::HistogramSample{LatencyHistogram::kBounds, latency.buckets, latency.count,
                                       latency.sum});
  }
}

}  // namespace roced::watchdog
