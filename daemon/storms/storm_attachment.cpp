#include "daemon/storms/storm_attachment.hpp"

#include <spdlog/spdlog.h>

#include "daemon/log/log.hpp"
#include "daemon/storms/storm_log.hpp"
#include "daemon/storms/storm_loop.hpp"

namespace roced::storms {

namespace {

class StormAttachment final : public service::Service::Attachment {
 public:
  explicit StormAttachment(std::unique_ptr<StormLoop> loop) : loop_(std::move(loop)) {
    loop_->start();
  }

 private:
  std::unique_ptr<StormLoop> loop_;
};

spdlog::level::level_enum level_of(const watchdog::StormEvent& event) {
  if (std::holds_alternative<watchdog::StormDetected>(event)) return spdlog::level::warn;
  if (std::holds_alternative<watchdog::RemediationFailed>(event)) return spdlog::level::err;
  return spdlog::level::info;
}

}  // namespace

std::unique_ptr<service::Service::Attachment> attach_storm_watch(service::Service& service) {
  reconcile::Reconciler& reconciler = service.reconciler();
  const watchdog::WatchdogSettings settings = reconciler.config().watchdog;
  if (!settings.enabled) return nullptr;
  auto targets = [&reconciler] {
    const config::Config config = reconciler.config();
    std::vector<WatchedPort> ports;
    for (const auto& snapshot : reconciler.snapshot()) {
      if (snapshot.condition == reconcile::PortCondition::Vanished) continue;
      ports.push_back({snapshot.port, config.profile_for(snapshot.port.netdev).pfc_priorities});
    }
    return ports;
  };
  auto listener = [](const watchdog::PortStormEvent& event) {
    log::port(level_of(event.event), event.netdev, "pfc.priorities", "{}", describe(event));
  };
  spdlog::info("PFC storm watchdog: poll {} ms, detection {} ms, restoration {} ms, alert only",
               settings.poll_interval.count(), settings.detection_time.count(),
               settings.restoration_time.count());
  return std::make_unique<StormAttachment>(
      std::make_unique<StormLoop>(service.system(), settings, targets, listener));
}

}  // namespace roced::storms
