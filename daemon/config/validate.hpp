// SPDX-License-Identifier: Apache-2.0
#pragma once
// The rules that tie settings together (validate.cpp), checked on the merged profile of the
// `profile` section and of each override, and on the port selection. docs/config.md lists them.

#include <utility>

#include "daemon/config/reader.hpp"

namespace roced::config::detail {

// Checks `profile`, which the section at `prefix` ("profile" or "overrides.lan5") produced.
// A problem is reported at the first field the section set among those the rule involves; an
// override is held only to the rules whose fields it set (the rest are `profile`'s to report).
// `unreadable` lists the fields (inside the profile) that had an error: a rule that involves one
// is skipped, as it would judge a value the file did not give.
void validate_profile(const Profile& profile, const FieldLocations& set_here,
                      const std::vector<std::string>& unreadable, const std::string& prefix,
                      bool is_override, Diagnostics& out);

// Where the `ports` lists and the override patterns are in the file, item by item.
struct SelectionLocations {
  std::optional<Location> drivers;  // the key, when given
  std::vector<Location> driver_items;
  std::optional<Location> netdevs;  // the key, when given
  size_t netdev_entries = 0;        // as written, those with an error too
  std::vector<Location> netdev_items;
  std::vector<Location> exclude_items;
  std::vector<std::pair<std::string, Location>> overrides;  // pattern, key; in file order
};

void validate_selection(const PortSelection& ports, const SelectionLocations& where,
                        Diagnostics& out);

}  // namespace roced::config::detail
