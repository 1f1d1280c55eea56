#pragma once
// The storm watchdog as a service attachment: when `watchdog.enabled`, a StormLoop over the
// reconciler's ports (their profile's PFC priorities), each event a log line on its port.
// Read at start, like the metrics endpoint.

#include <memory>

#include "daemon/service/service.hpp"

namespace roced::storms {

std::unique_ptr<service::Service::Attachment> attach_storm_watch(service::Service& service);

}  // namespace roced::storms
