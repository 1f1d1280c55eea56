// SPDX-License-Identifier: Apache-2.0
// Wires the connection, the bus thread, the worker, the object and the reconciler's events.
#include "daemon/dbus/service.hpp"

#include <sdbus-c++/sdbus-c++.h>

#include <mutex>

#include "daemon/dbus/bus_loop.hpp"
#include "daemon/dbus/daemon_object.hpp"
#include "daemon/dbus/names.hpp"
#include "daemon/dbus/sdbus_compat.hpp"
#include "daemon/dbus/work_queue.hpp"

namespace roced::dbus {

// The reconciler keeps its listener for its whole life and has no way to remove it; the listener
// holds this and finds it detached once the Service has stopped.
struct EventSink {
  std::mutex mutex;
  BusLoop* loop = nullptr;
  DaemonObject* object = nullptr;

  template <class Event>
  void deliver(const Event& event) {
    std::lock_guard lock(mutex);
    if (loop == nullptr) return;
    DaemonObject* target = object;
    loop->post([target, event] { target->emit(event); });
  }
  void detach() {
    std::lock_guard lock(mutex);
    loop = nullptr;
    object = nullptr;
  }
};

struct Service::Impl {
  Impl(reconcile::Reconciler& r, DaemonInfo i, std::unique_ptr<sdbus::IConnection> c)
      : reconciler(r), info(std::move(i)), connection(std::move(c)) {}

  reconcile::Reconciler& reconciler;
  DaemonInfo info;
  std::unique_ptr<sdbus::IConnection> connection;
  std::unique_ptr<BusLoop> loop;
  std::unique_ptr<WorkQueue> work;
  std::unique_ptr<DaemonObject> object;
  std::shared_ptr<EventSink> sink = std::make_shared<EventSink>();
  bool name_owned = false;
};

Service::Service(reconcile::Reconciler& reconciler, DaemonInfo info)
    : Service(sdbus::createSystemBusConnection(), reconciler, std::move(info)) {}

Service::Service(std::unique_ptr<sdbus::IConnection> connection, reconcile::Reconciler& reconciler,
                 DaemonInfo info)
    : impl_(std::make_unique<Impl>(reconciler, std::move(info), std::move(connection))) {}

Service::~Service() { stop(); }

void Service::start(std::function<void(const std::string& why)> on_lost) {
  Impl& s = *impl_;
  if (s.object) return;
  s.loop = std::make_unique<BusLoop>(*s.connection);
  s.loop->on_lost(std::move(on_lost));
  s.work = std::make_unique<WorkQueue>();
  // The object before the name: a call that arrives the moment the name is ours finds it.
  s.object = std::make_unique<DaemonObject>(*s.connection, *s.loop, *s.work, s.reconciler, s.info);
  {
    std::lock_guard lock(s.sink->mutex);
    s.sink->loop = s.loop.get();
    s.sink->object = s.object.get();
  }
  s.reconciler.on_event(
      [sink = s.sink](const reconcile::PortEvent& event) { sink->deliver(event); });
  if (s.info.storms != nullptr) {
    s.info.storms->on_notice(
        [sink = s.sink](const watchdog::StormNotice& notice) { sink->deliver(notice); });
  }
  try {
    s.connection->requestName(BusName(kBusName));
  } catch (...) {
    stop();
    throw;
  }
  s.name_owned = true;
  s.loop->start();
}

void Service::stop() {
  Impl& s = *impl_;
  if (!s.object) return;
  s.sink->detach();
  s.work->stop();  // an Apply in hand ends first; its reply is posted to the loop
  s.loop->stop();  // sends what was posted, then joins
  s.object.reset();
  if (s.name_owned) {
    try {
      s.connection->releaseName(BusName(kBusName));
    } catch (const sdbus::Error&) {
      // The bus is gone already; so is the name.
    }
    s.name_owned = false;
  }
  s.work.reset();
  s.loop.reset();
}

}  // namespace roced::dbus
