// SPDX-License-Identifier: Apache-2.0
#pragma once
// roced on the system bus: owns the connection, claims io.roced.Daemon1, serves the object
// /io/roced/Daemon1 on a thread of its own and turns the reconciler's events into signals.
//
// In roced's main, once the Reconciler exists (before or after its start()):
//
//   roced::dbus::Service bus(reconciler, {ROCED_VERSION, config_path, sim_dir,
//   system.description}); bus.start();  // throws sdbus::Error: no system bus, or the policy does
//   not let us own the name
//   ...           // on SIGTERM: bus.stop() before reconciler.stop() (the destructor also stops)

#include <sdbus-c++/IConnection.h>

#include <functional>
#include <memory>
#include <string>

#include "daemon/dbus/daemon_info.hpp"
#include "daemon/reconcile/reconciler.hpp"

namespace roced::dbus {

class Service {
 public:
  // The system bus: sd-bus connects to $DBUS_SYSTEM_BUS_ADDRESS when set, else
  // /run/dbus/system_bus_socket. Throws sdbus::Error when there is none.
  Service(reconcile::Reconciler& reconciler, DaemonInfo info);
  // Any bus (the tests' private dbus-daemon).
  Service(std::unique_ptr<sdbus::IConnection> connection, reconcile::Reconciler& reconciler,
          DaemonInfo info);
  ~Service();  // stop()
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Registers the object, claims the name, starts serving. Throws sdbus::Error when the name
  // cannot be had (another roced, or not root under the shipped policy). `on_lost` is called on
  // the bus's thread if the connection fails later; the Service is then to be destroyed.
  void start(std::function<void(const std::string& why)> on_lost = {});
  // Finishes the call in hand (an Apply runs to its end), releases the name, joins. Idempotent.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace roced::dbus
