// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `profile` section and each `overrides.<pattern>` section: the same keys, read over a base
// profile (the defaults for `profile`, the merged `profile` for an override).

#include "daemon/config/reader.hpp"

namespace roced::config::detail {

// Applies the keys of the mapping `node` (at `where`, dotted path `prefix`) to `profile` and
// records where each field was set. Problems go to the reader's diagnostics.
void read_profile(Reader& reader, const YAML::Node& node, Location where, const std::string& prefix,
                  Profile& profile, FieldLocations& set_here);

}  // namespace roced::config::detail
