// SPDX-License-Identifier: Apache-2.0
#include "daemon/watchdog/storm_module.hpp"

#include "daemon/log/log.hpp"
#include "daemon/watchdog/storm_log.hpp"
#include "daemon/watchdog/storm_metrics.hpp"

namespace roced::watchdog {

namespace {

void log_settings(const watchdog::WatchdogSettings& settings, std::string_view what) {
  if (!settings.enabled) {
    spdlog::info("{}: off (watchdog.enabled)", what);
    return;
  }
  spdlog::info(
      "{}: poll {} ms, detection {} ms, restoration {} ms, action rx {} / tx {}, at most {} "
      "actions per port and hour",
      what, settings.poll_interval.count(), settings.detection_time.count(),
      settings.restoration_time.count(), watchdog::action_name(settings.rx_action),
      watchdog::action_name(settings.tx_action), settings.max_actions_per_hour);
}

}  // namespace

StormModule::StormModule(System& system, reconcile::Reconciler& reconciler,
                         std::shared_ptr<sampling::StatsPoller> poller,
                         const config::Config& config, SwitchPortOf switch_port)
    : watchdog_(system, reconciler, config.watchdog) {
  watchdog_.on_notice([switch_port = std::move(switch_port)](const StormNotice& notice) {
    StormNotice named = notice;
    if (switch_port) {
      if (const std::string where = switch_port(notice.netdev); !where.empty()) {
        named.message += " (switch " + where + ")";
      }
    }
    log_notice(named);
  });
  watchdog_.use_poller(std::move(poller));
}

void StormModule::start() {
  watchdog_.start();  // switched off, its thread waits for a reload that switches it on
  log_settings(watchdog_.settings(), "PFC storm watchdog");
}

void StormModule::stop() {
  watchdog_.stop();
  for (const auto& back : watchdog_.put_back_holds()) {
    const std::string what = reconcile::describe(back.hold);
    if (back.ok()) {
      log::port(spdlog::level::warn, back.netdev, "watchdog",
                "stopping: put the configuration back where the storm watchdog held it ({}); "
                "nothing watches this port for PFC storms until roced runs again",
                what);
    } else {
      log::port(spdlog::level::critical, back.netdev, "watchdog",
                "stopping: could not put the configuration back where the storm watchdog held "
                "it ({}): {}: {}; the port stays so until roced starts again and applies its "
                "profile",
                what, apply::outcome_name(back.result.outcome), back.result.error);
    }
  }
}

void StormModule::reconfigure(const config::Config& before, const config::Config& after) {
  const watchdog::WatchdogSettings& was = before.watchdog;
  const watchdog::WatchdogSettings& now = after.watchdog;
  if (now == was) return;
  if (was.enabled && !now.enabled) {
    // Each hold is a storm's remediation: name them, they end now whatever the storm does.
    for (const auto& storm : watchdog_.stats().storms) {
      if (!storm.remediated && !storm.held) continue;
      log::port(spdlog::level::warn, storm.netdev, "watchdog",
                "switching the watchdog off releases its hold on {} (the storm may not be over)",
                storm_place(storm.priority, storm.direction));
    }
  }
  watchdog_.reconfigure(now);
  log_settings(now, was.enabled == now.enabled ? "PFC storm watchdog reconfigured"
                                               : "PFC storm watchdog switched by reload");
  if (now.enabled && was.enabled) {
    spdlog::info("PFC storm watchdog: storms being handled keep their action until restored");
  }
}

void StormModule::collect(telemetry::ExpositionWriter& out) {
  // Switched off (by reload, too), its families are absent, as when it never ran.
  if (watchdog_.enabled()) add_storm_families(out, watchdog_.stats());
}

}  // namespace roced::watchdog
