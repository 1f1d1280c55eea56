// SPDX-License-Identifier: Apache-2.0
#pragma once
// The service's modules, in one place: started by stage and then in the order they were added,
// stopped in reverse, each reload's changed sections handed to the modules that take them (the
// one rule for what a reload changes), their health, findings and metric families gathered.

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/module/config_store.hpp"
#include "daemon/module/module.hpp"

namespace roced::module {

class ModuleSet {
 public:
  ModuleSet() = default;
  ~ModuleSet();  // stop()
  ModuleSet(const ModuleSet&) = delete;
  ModuleSet& operator=(const ModuleSet&) = delete;

  // Before start(); the list is fixed from then on (scrapes and the bus read it unlocked).
  void add(std::unique_ptr<Module> module);

  // Starts the modules of `stage`, each once, in the order added; `stopping` is asked before
  // each (a stop during start-up leaves the rest unstarted).
  void start(
      Stage stage, const std::function<bool()>& stopping = [] { return false; });
  // Waits for every started module's wait_ready(), in start order (stop() ends the waits).
  void wait_ready();
  // Every module started, in the reverse order; idempotent.
  void stop();

  // Hands `reload.after` to every started module that takes one of `reload.changed`; returns
  // their names, in start order.
  std::vector<std::string> reconfigure(const Reload& reload);

  bool healthy(std::chrono::steady_clock::time_point now) const;
  std::vector<finding::Finding> findings() const;
  // Every module, as the exporter's collectors (a module without families writes none).
  std::vector<telemetry::Collector*> collectors() const;

  template <class M>
  M* find() const {
    for (const auto& module : modules_) {
      if (auto* found = dynamic_cast<M*>(module.get())) return found;
    }
    return nullptr;
  }
  const std::vector<std::unique_ptr<Module>>& modules() const { return modules_; }

 private:
  std::vector<Module*> started() const;

  std::vector<std::unique_ptr<Module>> modules_;
  mutable std::mutex mutex_;      // started_: the start-up thread adds, the service reads
  std::vector<Module*> started_;  // in start order, each from the moment its start() begins
};

}  // namespace roced::module
