// SPDX-License-Identifier: Apache-2.0
#include "daemon/module/module_set.hpp"

#include <algorithm>

namespace roced::module {

ModuleSet::~ModuleSet() { stop(); }

void ModuleSet::add(std::unique_ptr<Module> module) {
  if (module) modules_.push_back(std::move(module));
}

void ModuleSet::start(Stage stage, const std::function<bool()>& stopping) {
  for (const auto& module : modules_) {
    if (module->stage() != stage) continue;
    if (stopping()) return;
    {
      // Counted from here: its health is asked while it starts (the reconciler's first check
      // can take a minute), and a stop must reach a start that was cut short.
      const std::lock_guard lock(mutex_);
      started_.push_back(module.get());
    }
    module->start();
  }
}

void ModuleSet::wait_ready() {
  for (Module* module : started()) module->wait_ready();
}

void ModuleSet::stop() {
  for (;;) {
    Module* module = nullptr;
    {
      const std::lock_guard lock(mutex_);
      if (started_.empty()) return;
      module = started_.back();
      started_.pop_back();
    }
    module->stop();
  }
}

std::vector<Module*> ModuleSet::started() const {
  const std::lock_guard lock(mutex_);
  return started_;
}

std::vector<std::string> ModuleSet::reconfigure(const Reload& reload) {
  std::vector<std::string> told;
  if (!reload.ok || !reload.before || !reload.after) return told;
  for (Module* module : started()) {
    const std::vector<Section> takes = module->sections();
    const bool concerned =
        std::any_of(reload.changed.begin(), reload.changed.end(), [&takes](Section changed) {
          return std::find(takes.begin(), takes.end(), changed) != takes.end();
        });
    if (!concerned) continue;
    module->reconfigure(*reload.before, *reload.after);
    told.emplace_back(module->name());
  }
  return told;
}

bool ModuleSet::healthy(std::chrono::steady_clock::time_point now) const {
  const std::vector<Module*> modules = started();
  return std::all_of(modules.begin(), modules.end(),
                     [now](const Module* module) { return module->healthy(now); });
}

std::vector<finding::Finding> ModuleSet::findings() const {
  std::vector<finding::Finding> all;
  for (const Module* module : started()) {
    auto found = module->findings();
    all.insert(all.end(), std::make_move_iterator(found.begin()),
               std::make_move_iterator(found.end()));
  }
  return all;
}

std::vector<telemetry::Collector*> ModuleSet::collectors() const {
  std::vector<telemetry::Collector*> out;
  out.reserve(modules_.size());
  for (const auto& module : modules_) out.push_back(module.get());
  return out;
}

}  // namespace roced::module
