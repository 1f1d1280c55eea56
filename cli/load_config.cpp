// SPDX-License-Identifier: Apache-2.0
#include "cli/load_config.hpp"

#include <iostream>

namespace roced::cli {

std::optional<config::Config> load_config(const std::string& path) {
  config::LoadResult loaded = config::load_file(path);
  for (const auto& diagnostic : loaded.diagnostics) std::cerr << diagnostic.to_string() << "\n";
  if (!loaded.ok()) {
    std::cerr << "rocectl: " << path << " is not a valid configuration\n";
    return std::nullopt;
  }
  return std::move(loaded.config);
}

}  // namespace roced::cli
