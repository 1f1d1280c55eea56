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
    bus->start([this](const std::string&) {
      std::lock_guard lock(mutex_);
      lost_ = true;
      wake_.notify_all();
    });
    std::lock_guard lock(mutex_);
    bus_ = std::move(bus);
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

void DbusModule::start() {
  if (const auto problem = try_start()) {
    spdlog::warn("D-Bus API not offered: {}; trying again every {} s", *problem,
                 std::chrono::duration<double>(retry_every_).count());
  } else {
    spdlog::info("D-Bus API: {} on the system bus", kBusName);
  }
  // A bus that starts after roced (a pod's bus container) or comes back after it went away
  // (dbus.service restarted, the bus container restarted) is found again: the ports never wait
  // for it.
  keeper_ = std::thread([this] { keep_offered(); });
}

void DbusModule::keep_offered() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (bus_ && !lost_) {
      wake_.wait(lock, [this] { return stopping_ || lost_; });
      continue;
    }
    if (lost_) {
      // Destroyed here, not on the bus's own thread, which the Service joins.
      std::unique_ptr<Service> gone = std::move(bus_);
      lost_ = false;
      lock.unlock();
      gone.reset();
      spdlog::warn("D-Bus API gone with the bus; trying again every {} s",
                   std::chrono::duration<double>(retry_every_).count());
      lock.lock();
    }
    if (wake_.wait_for(lock, retry_every_, [this] { return stopping_; })) return;
    lock.unlock();
    const auto again = try_start();
    lock.lock();
    if (!again) spdlog::info("D-Bus API: {} on the system bus, now that it is there", kBusName);
  }
}

void DbusModule::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (keeper_.joinable()) keeper_.join();
  // Out of the lock: the bus's thread may be on its way to on_lost, which takes it.
  std::unique_ptr<Service> bus;
  {
    std::lock_guard lock(mutex_);
    bus = std::move(bus_);
  }
  bus.reset();
}

}  // namespace roced::dbus
