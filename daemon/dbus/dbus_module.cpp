// SPDX-License-Identifier: Apache-2.0
#include "daemon/dbus/dbus_module.hpp"

#include <spdlog/spdlog.h>

#include "daemon/dbus/names.hpp"
#include "daemon/dbus/service.hpp"

namespace roced::dbus {

DbusModule::DbusModule(reconcile::Reconciler& reconciler, DaemonInfo info,
                       std::chrono::milliseconds retry_every)
    : reconciler_(reconciler), info_(std::move(info)), retry_every_(retry_every) {}

DbusModule::~DbusModule() { stop(); }

std::optional<std::string> DbusModule::try_start() {
  try {
    auto bus = std::make_unique<Service>(reconciler_, info_);
    bus->start();
    std::lock_guard lock(mutex_);
    bus_ = std::move(bus);
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

void DbusModule::start() {
  const auto problem = try_start();
  if (!problem) {
    spdlog::info("D-Bus API: {} on the system bus", kBusName);
    return;
  }
  spdlog::warn("D-Bus API not offered: {}; trying again every {} s", *problem,
               std::chrono::duration<double>(retry_every_).count());
  // A bus that starts after roced (a pod's bus container, dbus.service restarted) is still
  // found: the ports never wait for it.
  retrying_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      if (wake_.wait_for(lock, retry_every_, [this] { return stopping_; })) return;
      lock.unlock();
      const auto again = try_start();
      lock.lock();
      if (!again) {
        spdlog::info("D-Bus API: {} on the system bus, now that it is there", kBusName);
        return;
      }
    }
  });
}

void DbusModule::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (retrying_.joinable()) retrying_.join();
  std::lock_guard lock(mutex_);
  bus_.reset();
}

}  // namespace roced::dbus
