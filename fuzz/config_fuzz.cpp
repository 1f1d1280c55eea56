// SPDX-License-Identifier: Apache-2.0
// roced.yaml from text, as `roced --check-config` and a reload read it: parse, read every
// section, validate. Promise: a file is accepted exactly when it has no error diagnostic, and every
// diagnostic says something.
#include <cstddef>
#include <cstdint>
#include <string>

#include "daemon/config/config.hpp"
#include "daemon/config/summary.hpp"
#include "fuzz/support/check.hpp"

using roced::fuzz::require;
namespace config = roced::config;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const config::LoadResult result = config::load_string(text, "roced.yaml");
  bool has_error = false;
  for (const auto& diagnostic : result.diagnostics) {
    has_error |= diagnostic.severity == config::Diagnostic::Severity::Error;
    require(!diagnostic.message.empty(), "a diagnostic says what is wrong");
    require(!diagnostic.to_string().empty(), "a diagnostic prints");
  }
  require(result.ok() != has_error, "accepted exactly when there is no error");
  if (!result.ok()) return 0;
  const config::Config& loaded = *result.config;
  (void)config::describe_selection(loaded);
  (void)loaded.ports.selects("lan2", "mlx5_core");
  (void)loaded.profile_for("lan2");
  for (const auto& override_entry : loaded.overrides)
    (void)loaded.profile_for(override_entry.pattern);
  return 0;
}
