// SPDX-License-Identifier: Apache-2.0
#pragma once
// The service's configuration: the file loaded and validated, the snapshot every module was
// given, and what a reload changed, by section. A broken file changes nothing: the snapshot
// stays and the problem is kept until a reload works. Its own metric families say how the last
// reload went.

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "daemon/module/module.hpp"

namespace roced::module {

// The sections that differ between two configurations, in kSectionNames' order.
std::vector<Section> changed_sections(const config::Config& before, const config::Config& after);

struct Reload {
  bool ok = false;
  std::vector<config::Diagnostic> diagnostics;  // why not, when !ok; warnings otherwise
  Snapshot before;
  Snapshot after;                // == before when !ok
  std::vector<Section> changed;  // empty when !ok or nothing changed
};

class ConfigStore final : public telemetry::Collector {
 public:
  explicit ConfigStore(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  // The first load, at start: the result's diagnostics, and the snapshot when it is valid.
  config::LoadResult load();
  // Reads the file again; when it is valid, it becomes the current snapshot.
  Reload reload();
  Snapshot current() const;
  // Why the last reload failed; nullopt when it worked (a start counts as one).
  std::optional<std::string> reload_problem() const;
  std::chrono::system_clock::time_point last_success() const;

  void collect(telemetry::ExpositionWriter& out) override;

 private:
  std::string path_;
  mutable std::mutex mutex_;
  Snapshot current_;
  std::optional<std::string> problem_;
  std::chrono::system_clock::time_point last_success_ = std::chrono::system_clock::now();
};

// The first error of a load, as one line (STATUS=, the reload's problem).
std::string first_error(const std::vector<config::Diagnostic>& diagnostics);

}  // namespace roced::module
