// SPDX-License-Identifier: Apache-2.0
#include "daemon/module/config_store.hpp"

namespace roced::module {

namespace {

using telemetry::FamilySpec;
using telemetry::MetricType;

constexpr FamilySpec kReloadOk{
    "roced_config_last_reload_successful", MetricType::gauge,
    "1 when the last configuration reload worked (or none was asked since the start), 0 when it "
    "failed and roced runs the previous configuration."};
constexpr FamilySpec kReloadTime{
    "roced_config_last_reload_success_timestamp_seconds", MetricType::gauge,
    "When roced last took its configuration file: the start, or the last reload that worked."};

constexpr FamilySpec kConfigInfo{
    "roced_config_info", MetricType::gauge,
    "The configuration roced runs: the SHA-256 of its file (as sha256sum prints it), the same on "
    "every node that runs the same file; its path."};

bool section_differs(Section section, const config::Config& a, const config::Config& b) {
  switch (section) {
    case Section::Daemon:
      return !(a.daemon == b.daemon);
    case Section::Metrics:
      return !(a.metrics == b.metrics);
    case Section::Watchdog:
      return !(a.watchdog == b.watchdog);
    case Section::Health:
      return !(a.health == b.health);
    case Section::Probe:
      return !(a.probe == b.probe);
    case Section::Ports:
      return !(a.ports == b.ports);
    case Section::Profile:
      return !(a.profile == b.profile);
    case Section::Overrides:
      return !(a.overrides == b.overrides);
  }
  return true;
}

}  // namespace

std::vector<Section> changed_sections(const config::Config& before, const config::Config& after) {
  std::vector<Section> changed;
  for (const auto& entry : kSectionNames) {
    if (section_differs(entry.value, before, after)) changed.push_back(entry.value);
  }
  return changed;
}

std::string first_error(const std::vector<config::Diagnostic>& diagnostics) {
  for (const auto& diagnostic : diagnostics) {
    if (diagnostic.severity == config::Diagnostic::Severity::Error) return diagnostic.to_string();
  }
  return "invalid configuration";
}

config::LoadResult ConfigStore::load() {
  config::LoadResult loaded = config::load_file(path_);
  if (loaded.ok()) {
    std::lock_guard lock(mutex_);
    current_ = std::make_shared<const config::Config>(*loaded.config);
  }
  return loaded;
}

Reload ConfigStore::reload() {
  config::LoadResult loaded = config::load_file(path_);
  Reload result;
  result.diagnostics = std::move(loaded.diagnostics);
  std::lock_guard lock(mutex_);
  result.before = current_;
  result.after = current_;
  if (!loaded.ok()) {
    problem_ = first_error(result.diagnostics);
    return result;
  }
  result.ok = true;
  result.after = std::make_shared<const config::Config>(std::move(*loaded.config));
  if (result.before) result.changed = changed_sections(*result.before, *result.after);
  current_ = result.after;
  problem_.reset();
  last_success_ = std::chrono::system_clock::now();
  return result;
}

Snapshot ConfigStore::current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

std::optional<std::string> ConfigStore::reload_problem() const {
  std::lock_guard lock(mutex_);
  return problem_;
}

std::chrono::system_clock::time_point ConfigStore::last_success() const {
  std::lock_guard lock(mutex_);
  return last_success_;
}

void ConfigStore::collect(telemetry::ExpositionWriter& out) {
  std::lock_guard lock(mutex_);
  out.add(kReloadOk, {}, problem_ ? 0 : 1);
  out.add(kReloadTime, {}, std::chrono::duration<double>(last_success_.time_since_epoch()).count());
  if (current_) {
    out.add(kConfigInfo, {{"sha256", current_->sha256}, {"path", current_->path}}, 1);
  }
}

}  // namespace roced::module
