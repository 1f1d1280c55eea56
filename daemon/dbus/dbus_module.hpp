// SPDX-License-Identifier: Apache-2.0
#pragma once
// The D-Bus API as one of the service's modules: it claims io.roced.Daemon1 once the ports were
// first checked (so a client ordered After=roced.service finds it at READY=1). Without a system
// bus, or when another roced (or the policy) holds the name, roced keeps the ports right without
// it and says why.

#include <memory>

#include "daemon/dbus/daemon_info.hpp"
#include "daemon/module/module.hpp"
#include "daemon/reconcile/reconciler.hpp"

namespace roced::dbus {

class Service;

class DbusModule final : public module::Module {
 public:
  DbusModule(reconcile::Reconciler& reconciler, DaemonInfo info);
  ~DbusModule() override;

  std::string_view name() const override { return "dbus"; }
  std::vector<module::Section> sections() const override { return {}; }
  void start() override;
  void stop() override;
  void reconfigure(const config::Config&, const config::Config&) override {}

 private:
  reconcile::Reconciler& reconciler_;
  DaemonInfo info_;
  std::unique_ptr<Service> bus_;
};

}  // namespace roced::dbus
