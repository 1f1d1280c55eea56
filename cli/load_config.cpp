// SPDX-License-Identifier: Apache-2.0
#include "cli/load_config.hpp"

#include <filesystem>
#include <iostream>
#include <iterator>

namespace roced::cli {

config::LoadResult read_config(const std::string& path) {
  if (path != "-") return config::load_file(path);
  const std::string text{std::istreambuf_iterator<char>(std::cin), {}};
  return config::load_string(text, "<stdin>");
}

std::optional<config::Config> load_config(const std::string& path, const char* how_to_name) {
  config::LoadResult loaded = read_config(path);
  for (const auto& diagnostic : loaded.diagnostics) std::cerr << diagnostic.to_string() << "\n";
  if (!loaded.ok()) {
    std::error_code ec;
    if (path != "-" && !std::filesystem::exists(path, ec)) {
      std::cerr << "rocectl: there is no " << path << " (" << how_to_name << ")\n";
    } else {
      std::cerr << "rocectl: " << path << " is not a valid configuration\n";
    }
    return std::nullopt;
  }
  return std::move(loaded.config);
}

}  // namespace roced::cli
