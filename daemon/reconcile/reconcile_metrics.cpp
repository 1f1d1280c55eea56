// SPDX-License-Identifier: Apache-2.0
#include "daemon/reconcile/reconcile_metrics.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <string>

#include "daemon/plan/findings.hpp"
#include "daemon/settings/spec.hpp"
#include "telemetry/finding_family.hpp"

namespace roced::reconcile {

namespace {

using telemetry::FamilySpec;
using telemetry::LabelSet;
using telemetry::MetricType;

constexpr FamilySpec kInSync{"roce_config_in_sync", MetricType::gauge,
                             "1 when the setting matched the profile at roced's last check."};
constexpr FamilySpec kPortState{"roce_config_port_state", MetricType::gauge,
                                "1 for the port's current state in roced."};
constexpr FamilySpec kLossless{"roce_config_lossless_priority", MetricType::gauge,
                               "1 for each priority the port's profile makes lossless "
                               "(pfc.priorities), for rules to join on."};
constexpr FamilySpec kApplies{"roce_config_applies_total", MetricType::counter,
                              "Applies roced made to the port, by result."};
constexpr FamilySpec kDrifts{"roce_config_drifts_total", MetricType::counter,
                             "Times a setting was found changed away from the profile."};
constexpr FamilySpec kCorrections{"roce_config_corrections_total", MetricType::counter,
                                  "Drifts roced corrected."};
constexpr FamilySpec kLastCheck{"roce_config_last_check_timestamp_seconds", MetricType::gauge,
                                "Unix time of roced's last check of the port."};

// What the last check said of each setting the profile manages (the row's own rule) and the
// port can take: matched or not. Empty before the first check and while the port is unreadable:
// no claim either way.
std::map<std::string, bool> settings_in_sync(const PortSnapshot& port) {
  std::map<std::string, bool> in_sync;
  const plan::PortPlan& plan = port.last_plan;
  if (!port.last_check || !plan.error.empty()) return in_sync;
  for (const settings::Row& row : settings::rows()) {
    if (!row.manages(plan.desired)) continue;
    const auto same = [&row](const auto& item) { return item.setting == row.info->id; };
    if (std::any_of(plan.unsupported.begin(), plan.unsupported.end(), same)) continue;
    in_sync[std::string(row.info->key)] =
        std::none_of(plan.changes.begin(), plan.changes.end(), same);
  }
  return in_sync;
}

void add_port_state(telemetry::ExpositionWriter& out, const LabelSet& netdev,
                    std::string_view state) {
  for (const auto& entry : kConditionNames) {
    out.add(kPortState, netdev.with({{"state", entry.name}}), entry.name == state ? 1 : 0);
  }
}

void add_port(telemetry::ExpositionWriter& out, const PortSnapshot& port,
              const config::Config& config) {
  const LabelSet netdev = {{"netdev", port.port.netdev}};
  add_port_state(out, netdev, condition_name(port.condition));
  if (port.condition == PortCondition::Vanished) return;  // its state alone: nothing to read
  const std::map<std::string, bool> in_sync = settings_in_sync(port);
  for (const auto& [setting, matched] : in_sync) {
    out.add(kInSync, netdev.with({{"setting", setting}}), matched ? 1 : 0);
  }
  if (port.last_check && port.last_plan.error.empty()) {
    telemetry::add_findings(out, port.port.netdev, plan::findings_of(port.last_plan));
  }
  const uint8_t lossless = config.profile_for(port.port.netdev).pfc_priorities;
  for (int priority = 0; priority < 8; ++priority) {
    if ((lossless & (1u << priority)) == 0) continue;
    out.add(kLossless, netdev.with({{"priority", std::to_string(priority)}}), 1);
  }
  const PortCounters& counters = port.counters;
  out.add(kApplies, netdev.with({{"result", "ok"}}), static_cast<double>(counters.applies_ok));
  out.add(kApplies, netdev.with({{"result", "failed"}}),
          static_cast<double>(counters.applies_failed));
  // Every setting the port is checked for has its counters from 0, so that increase() sees
  // the first drift; a count for a setting no longer checked stays, as counters must.
  const auto by_setting = [&](const FamilySpec& family, std::map<std::string, uint64_t> counts) {
    for (const auto& [setting, matched] : in_sync) counts.try_emplace(setting, 0);
    for (const auto& [setting, count] : counts) {
      out.add(family, netdev.with({{"setting", setting}}), static_cast<double>(count));
    }
  };
  by_setting(kDrifts, counters.drifts);
  by_setting(kCorrections, counters.corrections);
  if (port.last_check) {
    const auto since_epoch = port.last_check->time_since_epoch();
    out.add(kLastCheck, netdev, std::chrono::duration<double>(since_epoch).count());
  }
}

}  // namespace

void add_port_config_families(telemetry::ExpositionWriter& out,
                              const std::vector<PortSnapshot>& ports,
                              const config::Config& config) {
  for (const auto& port : ports) add_port(out, port, config);
}

}  // namespace roced::reconcile
