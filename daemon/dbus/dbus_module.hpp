// SPDX-License-Identifier: Apache-2.0
#pragma once
// The D-Bus API as one of the service's modules: it claims io.roced.Daemon1 once the ports were
// first checked (so a client ordered After=roced.service finds it at READY=1). Without a system
// bus, or when another roced (or the policy) holds the name, roced keeps the ports right without
// it, says why, and tries again now and then; the same when the bus goes away later.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "daemon/dbus/daemon_info.hpp"
#include "daemon/module/module.hpp"
#include "daemon/reconcile/reconciler.hpp"

namespace roced::dbus {

class Service;

class DbusModule final : public module::Module {
 public:
  DbusModule(reconcile::Reconciler& reconciler, DaemonInfo info,
             std::chrono::milliseconds retry_every = std::chrono::seconds(5));
  ~DbusModule() override;

  std::string_view name() const override { return "dbus"; }
  std::vector<module::Section> sections() const override { return {}; }
  void start() override;
  void stop() override;
  void reconfigure(const config::Config&, const config::Config&) override {}

 private:
  std::optional<std::string> try_start();  // nullopt once the API is offered, else why not
  void keep_offered();                     // the keeper thread: offers it again when lost

  reconcile::Reconciler& reconciler_;
  DaemonInfo info_;
  std::chrono::milliseconds retry_every_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool lost_ = false;  // the bus's thread saw the connection fail
  std::unique_ptr<Service> bus_;
  std::thread keeper_;
};

}  // namespace roced::dbus
