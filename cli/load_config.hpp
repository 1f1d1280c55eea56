// SPDX-License-Identifier: Apache-2.0
#pragma once
// Loading the configuration for a rocectl command: every diagnostic goes to stderr as
// file:line:column: field: message, and the Config comes back only when the file is valid.

#include <optional>
#include <string>

#include "daemon/config/config.hpp"

namespace roced::cli {

// `path`, or standard input when it is "-" (named "<stdin>" in diagnostics).
config::LoadResult read_config(const std::string& path);

// `how_to_name` is said when the file is not there: how this command is given another one.
std::optional<config::Config> load_config(
    const std::string& path, const char* how_to_name = "--config FILE reads another file");

}  // namespace roced::cli
