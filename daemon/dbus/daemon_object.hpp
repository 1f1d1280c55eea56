// SPDX-License-Identifier: Apache-2.0
#pragma once
// The object /io/roced/Daemon1 with the interface io.roced.Daemon1 (docs/dbus.md): its methods,
// properties and signals, served by a Reconciler. Built and used on the bus thread only; the
// methods that touch the ports run on the WorkQueue and send their reply through the BusLoop.

#include <sdbus-c++/IConnection.h>
#include <sdbus-c++/IObject.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "daemon/dbus/bus_loop.hpp"
#include "daemon/dbus/daemon_info.hpp"
#include "daemon/dbus/work_queue.hpp"
#include "daemon/reconcile/reconciler.hpp"

namespace roced::dbus {

class VTable;

class DaemonObject {
 public:
  DaemonObject(sdbus::IConnection& connection, BusLoop& loop, WorkQueue& work,
               reconcile::Reconciler& reconciler, DaemonInfo info);
  ~DaemonObject();
  DaemonObject(const DaemonObject&) = delete;
  DaemonObject& operator=(const DaemonObject&) = delete;

  // The signal for `event` (PortDrifted, PortCorrected, PortAppeared, PortVanished, ApplyFailed).
  // Bus thread only: post() it there.
  void emit(const reconcile::PortEvent& event);
  // StormDetected, StormRemediated, StormRestored, StormEscalated (other notices are log lines).
  // Bus thread only.
  void emit(const watchdog::StormNotice& notice);

 private:
  void register_methods(VTable& vtable);
  void register_properties(VTable& vtable);
  void register_signals(VTable& vtable);
  // Refuses a caller that is not root, whatever the bus policy let through: the policy file may
  // be missing or edited, the daemon's answer must not depend on it.
  void require_root() const;

  std::string get_status() const;
  std::string get_plan();
  std::tuple<std::string, std::vector<std::string>> get_pending_plan();
  std::string apply();
  std::pair<bool, std::vector<std::string>> reload();
  std::string get_storms() const;
  std::string status_line() const;  // DaemonInfo::status_line, else the reconciler's

  BusLoop& loop_;
  WorkQueue& work_;
  reconcile::Reconciler& reconciler_;
  DaemonInfo info_;
  std::unique_ptr<sdbus::IObject> object_;
};

}  // namespace roced::dbus
