// SPDX-License-Identifier: Apache-2.0
#include "daemon/dbus/dbus_module.hpp"

#include <spdlog/spdlog.h>

#include "daemon/dbus/names.hpp"
#include "daemon/dbus/service.hpp"

namespace roced::dbus {

DbusModule::DbusModule(reconcile::Reconciler& reconciler, DaemonInfo info)
    : reconciler_(reconciler), info_(std::move(info)) {}

DbusModule::~DbusModule() { stop(); }

void DbusModule::start() {
  try {
    auto bus = std::make_unique<Service>(reconciler_, info_);
    bus->start();
    spdlog::info("D-Bus API: {} on the system bus", kBusName);
    bus_ = std::move(bus);
  } catch (const std::exception& e) {
    spdlog::warn("D-Bus API not offered: {}", e.what());
  }
}

void DbusModule::stop() { bus_.reset(); }

}  // namespace roced::dbus
