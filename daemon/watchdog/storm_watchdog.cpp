// SPDX-License-Identifier: Apache-2.0
#include "daemon/watchdog/storm_watchdog.hpp"

#include <algorithm>
#include <set>

#include "daemon/log/log.hpp"

namespace roced::watchdog {

StormWatchdog::StormWatchdog(System& system, reconcile::Reconciler& reconciler,
                             watchdog::WatchdogSettings settings, TimeSource& time)
    : settings_(settings),
      remediator_(settings,
                  [&reconciler](const std::string& netdev, reconcile::Remediation hold) {
                    return reconciler.remediate(netdev, hold);
                  }),
      loop_(
          system, settings,
          [&reconciler, told = std::set<std::string>()]() mutable {
            // Every lossless priority of the profile is watched, held by a remediation or not.
            const auto config = reconciler.shared_config();
            std::vector<WatchedPort> ports;
            auto managed = reconciler.ports();
            std::sort(managed.begin(), managed.end(),
                      [](const auto& a, const auto& b) { return a.port.netdev < b.port.netdev; });
            for (const auto& snapshot : managed) {
              if (snapshot.condition == reconcile::PortCondition::Vanished) continue;
              // A bond has no pause counters: its slaves are watched, each a port of its own.
              if (snapshot.port.role == PortRole::Bond) continue;
              // roced sets no PFC there and the watchdog reads mlx5's pause counters: said once.
              if (!snapshot.port.is_mlx5()) {
                if (told.insert(snapshot.port.netdev).second) {
                  log::port(spdlog::level::info, snapshot.port.netdev, "watchdog",
                            "not watched for PFC storms ({})", mlx5_only_reason(snapshot.port));
                }
                continue;
              }
              ports.push_back(
                  {snapshot.port, config->profile_for(snapshot.port.netdev).pfc_priorities});
            }
            return ports;
          },
          remediator_, time) {
  // A PFC mask changed behind everyone's back (mlx5's firmware DCBX agent sends no
  // notification): the port's ethtool names changed with it, and the reconciler looks now
  // rather than at its next drift check.
  loop_.on_names_changed(
      [&reconciler](const std::string& netdev) { reconciler.check_soon(netdev); });
}

StormWatchdog::~StormWatchdog() { stop(); }

void StormWatchdog::start() { loop_.start(); }

void StormWatchdog::stop() { loop_.stop(); }

void StormWatchdog::reconfigure(const watchdog::WatchdogSettings& settings) {
  {
    std::lock_guard lock(settings_mutex_);
    settings_ = settings;
  }
  loop_.reconfigure(settings);
}

watchdog::WatchdogSettings StormWatchdog::settings() const {
  std::lock_guard lock(settings_mutex_);
  return settings_;
}

WatchdogStats StormWatchdog::stats() const {
  WatchdogStats stats;
  stats.poll_interval = settings().poll_interval;
  stats.effective_interval = loop_.interval();
  stats.budget_limit = std::string(watchdog::budget_limit_name(loop_.budget_limit()));
  stats.detection_bound = loop_.detection_bound();
  stats.read_cpu = loop_.read_cpu();
  stats.read_time = loop_.read_time();
  stats.polls = loop_.polls();
  stats.late_polls = loop_.late_polls();
  stats.storms = remediator_.snapshot();
  return stats;
}

void log_notice(const StormNotice& notice) {
  spdlog::level::level_enum level = spdlog::level::info;
  switch (notice.kind) {
    case StormNotice::Kind::Detected:
    case StormNotice::Kind::Unverified:
      level = spdlog::level::warn;
      break;
    case StormNotice::Kind::Escalated:
      level = notice.critical ? spdlog::level::critical : spdlog::level::err;
      break;
    default:
      break;
  }
  log::port(level, notice.netdev, "watchdog", "{}", notice.message);
}

}  // namespace roced::watchdog
